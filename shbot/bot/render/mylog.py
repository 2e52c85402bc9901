"""/mylog: what one player knows of their game.

The facts come from :func:`shbot.table.knowledge.knowledge` (public events and those
addressed to this seat only); this module only words them. Once the game is over the whole
game follows (every event, every role), as the omniscient transcript tells it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from shbot import transcript
from shbot.engine import FASCIST, HITLER, LIBERAL, Kind, party_of
from shbot.i18n import Translator, esc
from shbot.table import FSI, PDI, Table
from shbot.table.knowledge import Fact, events, knowledge, read

from .common import MAX_TEXT, name, name_list, policy, role_name
from .history import condition_text, final_tracks
from .private import done_discard_text, hand_text, investigation_text, peek_text, role_lines
from .table import event_line


def _round_header(t: Translator, names: Sequence[str], d: dict[str, Any]) -> list[str]:
    lines = [
        "",
        t._(
            "<b>Round {round}</b> · Presidential candidate: {president}",
            round=d["round"],
            president=name(names, d["president"]),
        ),
    ]
    if d.get("special"):
        lines.append(t._("<i>(special election)</i>"))
    return lines


def _private_line(t: Translator, table: Table, f: Fact) -> str | None:
    d = f.data
    if f.kind == "drew":
        return t._("🎩 You drew: {hand}.", hand=hand_text(t, d["policies"]))
    if f.kind == "discarded":
        return done_discard_text(t, d["policy"], d["passed"])
    if f.kind == "received":
        return t._("👔 You received: {hand}.", hand=hand_text(t, d["policies"]))
    if f.kind == "enacted":
        if d["discarded"] is None:
            return None
        return t._(
            "👔 You enacted a {policy} and discarded a {discarded}.",
            policy=policy(t, d["policy"]),
            discarded=policy(t, d["discarded"]),
        )
    if f.kind == "investigation":
        return investigation_text(t, table, d["target"], d["party"])
    if f.kind == "peek":
        return peek_text(t, d["policies"])
    return None


def fact_lines(t: Translator, table: Table, f: Fact) -> list[str]:
    names = table.names()
    d = f.data
    if f.kind == "role":
        return role_lines(t, names, d)
    if f.kind == Kind.ROUND_STARTED:
        return _round_header(t, names, d)
    if f.kind == "vote":
        if d["ja"] is None:
            return []
        return [t._("🗳 You voted Ja!") if d["ja"] else t._("🗳 You voted Nein!")]
    if f.kind == Kind.GAME_OVER:
        return ["", condition_text(t, str(d["condition"]))]
    line = _private_line(t, table, f) if f.private else event_line(t, f.kind, d, names)
    return [line] if line else []


def mylog_lines(t: Translator, table: Table, seat: int) -> list[str]:
    """What ``seat`` knows, in order; the whole game after its end."""
    game = table.game
    assert game is not None
    entries = read(table.log)
    facts = knowledge(entries, seat)
    me = name(table.names(), seat)
    lines = [t._("📜 <b>What you know</b> in this game, {player}:", player=me)]
    if not any(f.kind == "role" for f in facts):  # a game started before the log existed
        lines += role_lines(t, table.names(), game.private_view(seat))
    for f in facts:
        lines += fact_lines(t, table, f)
    if game.is_over and table.ending == "finished":
        lines += ["", t._("🏁 <b>The whole game</b>")]
        plain = [f"{FSI}{n}{PDI}" for n in table.names()]
        lines += [esc(line) for line in transcript.render(events(entries), t, plain)]
    return lines


def summary_lines(t: Translator, table: Table, seat: int) -> list[str]:
    """A finished game in five lines, before the whole of it (behind a button)."""
    game = table.game
    assert game is not None and game.winner is not None and game.condition is not None
    names = table.names()
    role = game.roles[seat]
    won = (party_of(role) == LIBERAL) == (game.winner.value == "liberal")
    winner = (
        t._("🏁 <b>The Liberals win!</b>")
        if game.winner.value == "liberal"
        else t._("🏁 <b>The Fascists win!</b>")
    )
    role_html = f"<b>{role_name(t, role)}</b>"
    you = (
        t._("You were {role}: you won.", role=role_html)
        if won
        else t._("You were {role}: you lost.", role=role_html)
    )
    fascists = [s for s, r in enumerate(game.roles) if r == FASCIST]
    return [
        t._("📜 <b>Your game</b>, {player}:", player=name(names, seat)),
        # Translators: who won, then how: "🏁 The Fascists win! Hitler was elected Chancellor …".
        t.pgettext(
            "winner, then how",
            "{winner} {how}",
            winner=winner,
            how=condition_text(t, game.condition.value),
        ),
        you,
        final_tracks(t, game)[0],
        t.ngettext(
            "Hitler: {hitler} · Fascist: {fascists}",
            "Hitler: {hitler} · Fascists: {fascists}",
            len(fascists),
            hitler=name(names, game.roles.index(HITLER)),
            fascists=name_list(t, names, fascists),
        ),
    ]


def pages(lines: Sequence[str], limit: int = MAX_TEXT) -> list[str]:
    """Lines packed into messages of at most ``limit`` characters, cut between lines (a
    line is never split: its HTML tags stay balanced; an over-long one is shortened)."""
    out: list[str] = []
    current: list[str] = []
    size = 0
    for line in lines:
        if len(line) > limit:
            line = line[: limit - 1] + "…"  # pragma: no cover - no line comes near
        if current and size + 1 + len(line) > limit:
            out.append("\n".join(current).strip("\n"))
            current, size = [], 0
        current.append(line)
        size += len(line) + (1 if size else 0)
    if current:
        out.append("\n".join(current).strip("\n"))
    return [p for p in out if p]


def mylog_in_group_text(t: Translator) -> str:
    return t._("📜 What you know of your game stays between us: send /mylog in our private chat.")


def no_mylog_text(t: Translator) -> str:
    return t._("You have no game to tell about yet. /mylog works once you play.")
