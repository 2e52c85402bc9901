"""``python -m shbot.i18n preview --lang ja``: the whole catalog as players see it, in one file.

A reviewer reads it top to bottom: the group chat (commands, then three sample games with
claims, powers, a veto when the cards allow, a computer standing in and timers), the
private chats, every keyboard with each row's width against a phone's (see
:mod:`shbot.devtools.widths`), the toasts and alerts, every plural at 0, 1, 2 and 5, and
last the few messages the samples did not reach, filled with sample values. Every text is
rendered by the bot's own code through a translator that notes each message it looks up,
so the file shows every msgid of the code (``tests/test_preview.py`` checks it).
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from babel.messages.pofile import read_po

from shbot import rules_text
from shbot.bot import refusals
from shbot.bot import render as r
from shbot.bot.handlers.info import help_text, rules_keyboard, welcome_text
from shbot.bot.render import mylog as rm
from shbot.bot.render import seats as rs
from shbot.bot.render import settings as rset
from shbot.bot.render.widths import display_width, label_budget
from shbot.engine import FASCIST, LIBERAL, Reason
from shbot.i18n import (
    _SOURCE_LOCALES,
    DOMAIN,
    LANGUAGE_NAMES,
    Translator,
    language_prompt_text,
    placeholders,
)
from shbot.i18n import translator as base_translator
from shbot.table import Player, Refusal, lobby, lobby_clock

from .preview_game import NAMES, Shown, sample_games

Key = str | tuple[str, str]  # a msgid, or (context, msgid)
_TAGS = re.compile(r"<[^<>]*>")
_ISOLATES = str.maketrans("", "", "\u2068\u2069")


class Recorder(Translator):
    """A translator that notes every message it is asked for (the singular of a plural)."""

    def __init__(self, base: Translator) -> None:
        super().__init__(base.locale, base._catalog)
        self.used: set[Key] = set()

    def gettext(self, message: str, /, **kwargs: object) -> str:
        self.used.add(message)
        return super().gettext(message, **kwargs)

    _ = gettext

    def ngettext(self, singular: str, plural: str, n: int, /, **kwargs: object) -> str:
        self.used.add(singular)
        return super().ngettext(singular, plural, n, **kwargs)

    def pgettext(self, context: str, message: str, /, **kwargs: object) -> str:
        self.used.add((context, message))
        return super().pgettext(context, message, **kwargs)

    def npgettext(
        self, context: str, singular: str, plural: str, n: int, /, **kwargs: object
    ) -> str:
        self.used.add((context, singular))
        return super().npgettext(context, singular, plural, n, **kwargs)


def readable(text: str) -> str:
    """As a phone shows it: no HTML tags or entities, no invisible isolates."""
    return html.unescape(_TAGS.sub("", text)).translate(_ISOLATES)


# ----------------------------------------------------------------------- what is shown


def commands(t: Translator) -> list[Shown]:
    """What the commands answer, outside a game (the game's own texts come from play)."""
    group: list[tuple[str, str, object]] = [
        ("/help", help_text(t), None),
        ("/rules", f"{rules_text.rules_intro(t)}\n\n{rs.practice_hint(t)}", rules_keyboard(t)),
        *((f"/rules › {k}", rules_text.render_section(t, k), None) for k in rules_text.SECTIONS),
        ("/lang", language_prompt_text(t), r.language_keyboard("g")),
        ("/stats", rset.group_stats_text(t, "Club", {}), None),
        ("/stats", rset.group_stats_text(t, "Club", GROUP_STATS), None),
        ("/mylog", rm.mylog_in_group_text(t), r.private_chat_keyboard(t, "shbot", "mylog")),
        ("/practice", rs.practice_in_private_text(t), None),
        ("/ping", r.ping_too_soon_text(t, 42), None),
        ("⚠", r.unreachable_text(t, NAMES.get(t.locale, NAMES["en"])[2]), None),
        ("/newgame abc", r.join_time_note(t, "abc", 10), None),
        ("/newgame 999", r.join_time_note(t, "999", 60), None),
        *_waiting_lobby(t),
    ]
    private: list[tuple[str, str, object]] = [
        ("/start", welcome_text(t), None),
        ("/stats", rset.user_stats_text(t, {}), None),
        ("/stats", rset.user_stats_text(t, USER_STATS), None),
        ("/mylog", rm.no_mylog_text(t), None),
        ("/practice 11", rs.practice_usage_text(t), None),
        ("/practice", rs.practice_busy_text(t, here=True), None),
        ("/practice", rs.practice_busy_text(t, here=False), None),
        ("/practice", rs.practice_intro_text(t, 6), None),
        ("🔒", rs.private_mark(t), None),
        ("/start j…", r.not_member_text(t), None),
        ("/start j…", r.member_unknown_text(t), None),
    ]
    for settings in ({}, SETTINGS_CHANGED):
        text = rset.settings_text(t, "Club", settings, "normal")
        private.append(("/settings", text, rset.settings_keyboard(t, -100, settings, "normal")))
    shown = [Shown("group", "Commands", name, text, _rows(kb)) for name, text, kb in group]
    shown += [Shown("private", "Commands", name, text, _rows(kb)) for name, text, kb in private]
    return shown


def _waiting_lobby(t: Translator) -> list[tuple[str, str, object]]:
    """A lobby of five where two have not opened the private chat, then its end at the
    join deadline."""
    names = NAMES.get(t.locale, NAMES["en"])
    table = lobby.new_lobby(Player(1, names[0], ready=True), created=1000.0)
    table.players += [Player(i, names[i - 1], ready=i < 4) for i in range(2, 6)]
    lobby_clock.set_deadline(table, 10, now=1000.0)
    closed = r.lobby_closed_text(t, "deadline", None, table)
    return [
        ("/newgame", r.lobby_text(t, table), r.lobby_keyboard(t, table, "shbot", -100)),
        ("⌛", r.lobby_text(t, table, closed=closed), None),
    ]


def toasts(t: Translator) -> list[Shown]:
    """Every refusal and answer a press can get, as a toast or an alert."""
    texts = [refusals.refusal_text(t, Refusal(code)) for code in refusals._PLAIN]
    texts += [refusals.refusal_text(t, Refusal("too_few", n=n)) for n in (1, 3)]
    names = NAMES.get(t.locale, NAMES["en"])
    texts += [refusals.refusal_text(t, Refusal("unready", names=list(names[1:3])))]
    texts += [refusals.refusal_text(t, Refusal("dead"))]
    texts += [r.reason_text(t, reason) for reason in Reason]
    texts += [refusals.vote_answer(t, ja) for ja in (True, False)]
    for code in ("bots_added", "bot_removed", "standin", "seat_back"):
        texts.append(rs.answer_text(t, code, 2) or "")
    return [Shown("toast", "Refusals and answers", "", text) for text in texts if text]


def mini_app(t: Translator) -> list[Shown]:
    """The Mini App's page (shbot/webapp): its words, and why it would show nothing."""
    from shbot.webapp.labels import error, labels

    texts = list(labels(t).values())
    texts += [error(t, reason) for reason in ("expired", "forbidden", "no_game", "busy", "x")]
    return [Shown("private", "Mini App", "📋", text) for text in texts]


GROUP_STATS = {
    "games": 5,
    "wins": {"liberal": 2, "fascist": 3},
    "by_condition": {
        "five_liberal": 1,
        "hitler_executed": 1,
        "six_fascist": 2,
        "hitler_elected": 1,
    },
    "players": [
        {"name": "Gaëlle", "games": 5, "wins": 3},
        {"name": "Bruno", "games": 1, "wins": 0},
    ],
}
USER_STATS = {
    "games": 5,
    "wins": 2,
    "by_condition": {"five_liberal": 2, "six_fascist": 3},
    "by_role": {
        "liberal": {"games": 3, "wins": 2},
        "fascist": {"games": 1, "wins": 0},
        "hitler": {"games": 1, "wins": 0},
    },
}
SETTINGS_CHANGED = {"timers": "off", "shuffle_seats": True, "rebalanced": True, "board": "text"}


def _rows(markup: object) -> list[list[str]]:
    from .preview_game import labels

    return labels(markup)  # type: ignore[arg-type]


# ----------------------------------------------------------------------- the catalog


@dataclass
class Entry:
    key: Key
    plural: str | None
    files: list[str] = field(default_factory=list)


def catalog_entries(locales: Path = _SOURCE_LOCALES) -> list[Entry]:
    """Every message of the template (locales/shbot.pot), in its order."""
    with (locales / f"{DOMAIN}.pot").open("rb") as source:
        template = read_po(source)
    out = []
    for m in template:
        if not m.id:
            continue
        singular = str(m.id[0] if isinstance(m.id, tuple | list) else m.id)
        plural = str(m.id[1]) if isinstance(m.id, tuple | list) else None
        key: Key = (m.context, singular) if m.context else singular
        out.append(Entry(key, plural, sorted({f for f, _ in m.locations})))
    return out


def sample_values(t: Translator, message: str, n: int = 2) -> dict[str, object]:
    """Values for the placeholders of ``message``: names of both genders, small counts."""
    names = NAMES.get(t.locale, NAMES["en"])
    known: dict[str, object] = {
        "player": names[0], "name": names[1], "president": names[2], "chancellor": names[3],
        "target": names[4], "hitler": names[5], "host": names[0], "by": names[1],
        "names": r.series(t, names[: max(n, 1)]), "group": "Club", "n": n, "count": n,
        "round": 3, "policy": r.policy(t, FASCIST), "party": r.party_name(t, LIBERAL),
        "hand": "🔴🔴🔵", "claim": "🔴🔴🔵", "time": "21:30", "language": LANGUAGE_NAMES[t.locale],
        "wins": 1, "rate": 40, "rank": 1, "role": r.role_name(t, LIBERAL), "codes": "en, ja, fr",
        "liberal": 2, "fascist": 3, "liberal_rate": 40, "fascist_rate": 60, "seed": 42,
        "tiles": "🔴🔵", "tile": "🔴", "truth": "🔴🔴🔵",
        "players": r.series(t, names[: max(n, 1)]),
    }  # fmt: skip
    return {k: known.get(k, f"‹{k}›") for k in placeholders(message)}


def render_entry(t: Translator, entry: Entry, n: int = 2) -> str:
    context, message = entry.key if isinstance(entry.key, tuple) else (None, entry.key)
    values = sample_values(t, message, n)
    if entry.plural is None:
        return t.pgettext(context, message, **values) if context else t._(message, **values)
    values.pop("n", None)
    if context:
        return t.npgettext(context, message, entry.plural, n, **values)
    return t.ngettext(message, entry.plural, n, **values)


# ----------------------------------------------------------------------- the document


@dataclass
class Preview:
    text: str
    in_play: set[Key]  # the messages the commands and sample games showed
    shown: list[Shown]  # what they showed, with the buttons
    every: set[Key]  # every message the file shows (the rest with sample values)


def build(lang: str) -> Preview:
    """The preview of ``lang``."""
    t = Recorder(base_translator(lang))
    shown = [*commands(t), *sample_games(t), *toasts(t), *mini_app(t)]
    in_play = set(t.used)
    entries = catalog_entries()
    out = [f"# shbot as players see it: {lang}", "", INTRO, ""]
    out += _section("Group chat", [s for s in shown if s.where == "group"])
    out += _section("Private chats", [s for s in shown if s.where == "private"])
    out += _buttons(shown)
    out += _toasts(shown)
    plurals = [e for e in entries if e.plural is not None]
    out += ["", "## Plurals: 0, 1, 2 and 5", ""]
    for e in plurals:
        out += [" | ".join(readable(render_entry(t, e, n)) for n in (0, 1, 2, 5))]
    rest = [e for e in entries if e.key not in t.used]
    out += ["", "## Other messages (sample values; not met in the sample games)", ""]
    for e in sorted(rest, key=lambda e: e.files):
        out += [f"[{', '.join(e.files)}]", readable(render_entry(t, e)), ""]
    return Preview("\n".join(out) + "\n", in_play, shown, set(t.used))


INTRO = (
    "Every text of the bot, rendered by its own code in four sample games and the "
    "commands. HTML tags are removed; edits of a message are shown as they replace it "
    "(✎); buttons follow their message, one row a line. Width: each label's cells (a CJK "
    "character or an emoji is 2) against what a 360-dp phone shows for that row."
)


def _section(title: str, items: Sequence[Shown]) -> list[str]:
    out = ["", f"## {title}"]
    scene = None
    for i, s in enumerate(items):
        nxt = items[i + 1] if i + 1 < len(items) else None
        if s.slot and nxt is not None and nxt.slot == s.slot and nxt.reader == s.reader:
            prev = items[i - 1] if i else None
            if prev is not None and prev.slot == s.slot and prev.reader == s.reader:
                continue  # the middle of a run of edits: its first and last are kept
        if s.scene != scene:
            scene = s.scene
            out += ["", f"### {scene}"]
        mark = "✎ " if s.edit else ""
        out += ["", f"── {mark}{s.reader}", readable(s.text)]
        out += ["  " + "  ".join(f"[ {readable(label)} ]" for label in row) for row in s.rows]
    return out


def _buttons(shown: Iterable[Shown]) -> list[str]:
    out = ["", "## Buttons (cells / budget of the row)", ""]
    seen: set[tuple[str, ...]] = set()
    for s in shown:
        for row in s.rows:
            if tuple(row) in seen or all(label.startswith("\u2068") for label in row):
                continue  # seen, or only the players' names (theirs, cut at 24 characters)
            if tuple(row) in seen:
                continue
            seen.add(tuple(row))
            budget = label_budget(len(row))
            cells = [display_width(label) for label in row]
            flag = "  ✗ TOO WIDE" if max(cells) > budget else ""
            labels = "  ".join(f"[ {readable(x)} ] {c}" for x, c in zip(row, cells, strict=True))
            out.append(f"{labels}  / {budget}{flag}")
    return out


def _toasts(shown: Iterable[Shown]) -> list[str]:
    out = ["", "## Toasts and alerts", ""]
    seen: set[str] = set()
    for s in shown:
        if s.where == "toast" and s.text not in seen:
            seen.add(s.text)
            out += [readable(s.text), ""]
    return out


def write(lang: str, path: Path | None = None) -> Path:
    target = path or Path(f"preview-{lang}.txt")
    target.write_text(build(lang).text, encoding="utf-8")
    return target
