"""Texts and keyboards of /settings and /stats."""

from __future__ import annotations

from typing import Any

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from shbot.i18n import LANGUAGE_NAMES, LANGUAGES, Translator, esc
from shbot.table import board

from .. import callbacks as cb
from ..config import TIMER_PRESETS
from . import seats
from .common import name, role_name
from .widths import too_wide

#: Setting codes in callback data (``@set:<chat>_<code>``): short so the data stays small.
TIMER_CODES = {"off": "t0", "short": "t1", "normal": "t2", "long": "t3"}
VOTE_CODES = {"nein": "vn", "ignore": "vi"}
SEAT_CODES = {False: "sj", True: "ss"}
REBALANCED_CODES = {False: "r0", True: "r1"}
STANDIN_CODES = {"on": "b1", "off": "b0"}  # a computer takes an absent seat (render/seats.py)
BOARD_CODES = {board.PICTURE: "bp", board.TEXT: "bt"}


def chat_arg(chat_id: int) -> str:
    return str(chat_id).replace("-", "m")


def parse_chat_arg(text: str) -> int | None:
    try:
        return int(text.replace("m", "-"))
    except ValueError:
        return None


def timer_label(t: Translator, preset: str, *, button: bool = False) -> str:
    seconds = TIMER_PRESETS[preset]
    if seconds <= 0 and button:
        # Translators: the button that turns the timers off ("Off" is the value in
        # "⏱ Timers: Off").
        return t._("No timers")
    if seconds <= 0:
        return t._("Off")
    if seconds % 60 == 0:
        minutes = seconds // 60
        return t.ngettext("{n} min per step", "{n} min per step", minutes)
    return t.ngettext("{n} s per step", "{n} s per step", seconds)


def vote_rule_label(t: Translator, rule: str) -> str:
    if rule == "ignore":
        return t._("a missing vote is not counted")
    return t._("a missing vote counts as Nein!")


def board_label(t: Translator, style: str) -> str:
    return t._("a picture") if style == board.PICTURE else t._("text")


def settings_text(t: Translator, title: str, group: dict[str, Any], default_timer: str) -> str:
    timer = str(group.get("timers") or default_timer)
    lang = str(group.get("lang") or "en")
    lines = [
        t._("<b>⚙️ Settings of {group}</b>", group=esc(title)),
        "",
        t._("🌐 Language: {language}", language=LANGUAGE_NAMES.get(lang, lang)),
        t._("⏱ Timers: {timers}", timers=timer_label(t, timer)),
        t._("🗳 When time runs out: {rule}", rule=vote_rule_label(t, _vote_rule(group))),
        t._(
            "🪑 Seats: {seats}",
            seats=t._("shuffled") if group.get("shuffle_seats") else t._("in joining order"),
        ),
        t._(
            "⚖️ Rebalanced variant (6, 7 and 9 players): {state}",
            state=t._("on") if group.get("rebalanced") else t._("off"),
        ),
        seats.standin_line(t, group),
        t._("🖼 Board: {style}", style=board_label(t, board.chosen(group.get("board")))),
        "",
        t._(
            "<i>Language, timers and the board apply at once; seats and the variant from the "
            "next game. Only group admins can change these settings.</i>"
        ),
    ]
    return "\n".join(lines)


def _vote_rule(group: dict[str, Any]) -> str:
    return "ignore" if group.get("missing_votes") == "ignore" else "nein"


def settings_keyboard(
    t: Translator, chat_id: int, group: dict[str, Any], default_timer: str
) -> InlineKeyboardMarkup:
    arg = chat_arg(chat_id)
    timer = str(group.get("timers") or default_timer)
    lang = str(group.get("lang") or "en")
    style = board.chosen(group.get("board"))

    def button(label: str, code: str, chosen: bool) -> InlineKeyboardButton:
        text = f"✅ {label}" if chosen else label
        return InlineKeyboardButton(text, callback_data=cb.free_data(cb.SETTINGS, f"{arg}_{code}"))

    def pair(*buttons: InlineKeyboardButton) -> list[list[InlineKeyboardButton]]:
        """Side by side if both would fit with their ✅ (so a press never moves the
        layout), else a row each (render/widths.py)."""
        worst = [b.text if b.text.startswith("✅ ") else f"✅ {b.text}" for b in buttons]
        return [list(buttons)] if not too_wide(worst) else [[b] for b in buttons]

    timers = [
        button(timer_label(t, p, button=True), code, p == timer) for p, code in TIMER_CODES.items()
    ]
    standin = seats.standin_on(group)
    rows = [
        [button(LANGUAGE_NAMES[code], f"l{code}", code == lang) for code in LANGUAGES],
        *pair(*timers[:2]),
        *pair(*timers[2:]),
        *pair(
            button(t._("Missing vote: Nein!"), VOTE_CODES["nein"], _vote_rule(group) == "nein"),
            button(t._("Missing vote: ignored"), VOTE_CODES["ignore"], _vote_rule(group) != "nein"),
        ),
        *pair(
            button(t._("Seats: joining order"), SEAT_CODES[False], not group.get("shuffle_seats")),
            button(t._("Seats: shuffled"), SEAT_CODES[True], bool(group.get("shuffle_seats"))),
        ),
        *pair(
            button(t._("Rebalanced: off"), REBALANCED_CODES[False], not group.get("rebalanced")),
            button(t._("Rebalanced: on"), REBALANCED_CODES[True], bool(group.get("rebalanced"))),
        ),
        *pair(
            button(t._("🤖 Stand-in: off"), STANDIN_CODES["off"], not standin),
            button(t._("🤖 Stand-in: on"), STANDIN_CODES["on"], standin),
        ),
        *pair(
            button(t._("Board: picture"), BOARD_CODES[board.PICTURE], style == board.PICTURE),
            button(t._("Board: text"), BOARD_CODES[board.TEXT], style == board.TEXT),
        ),
    ]
    return InlineKeyboardMarkup(rows)


# ---------------------------------------------------------------------------- /stats


def _rate(wins: int, games: int) -> int:
    return round(100 * wins / games) if games else 0


def user_stats_text(t: Translator, stats: dict[str, Any]) -> str:
    games, wins = int(stats.get("games", 0)), int(stats.get("wins", 0))
    if games == 0:
        return t._("📊 You have not finished a game yet. Send /newgame in a group to play one.")
    lines = [
        t._("<b>📊 Your games</b>"),
        t.ngettext(
            "{n} game, {wins} won ({rate}%).",
            "{n} games, {wins} won ({rate}%).",
            games,
            wins=wins,
            rate=_rate(wins, games),
        ),
        "",
        t._("<b>By role</b>"),
    ]
    roles = {"liberal": "L", "fascist": "F", "hitler": "H"}
    for key, role in roles.items():
        entry = stats.get("by_role", {}).get(key)
        if not entry:
            continue
        g, w = int(entry.get("games", 0)), int(entry.get("wins", 0) or 0)
        lines.append(
            t.ngettext(
                "{role}: {n} game, {wins} won",
                "{role}: {n} games, {wins} won",
                g,
                role=role_name(t, role),
                wins=w,
            )
        )
    lines += ["", t._("<b>How your games ended</b>")]
    lines += _conditions(t, stats.get("by_condition", {}))
    return "\n".join(lines)


def _conditions(t: Translator, counts: dict[str, int]) -> list[str]:
    out = []
    for condition in ("five_liberal", "hitler_executed", "six_fascist", "hitler_elected"):
        n = int(counts.get(condition, 0))
        if n:
            out.append(stats_condition(t, condition, n))
    return out


def stats_condition(t: Translator, condition: str, n: int) -> str:
    """A /stats headline with its count: short words of its own, not the end card's sentence."""
    return {
        "five_liberal": t._("🔵 Five Liberal policies ×{n}", n=n),
        "hitler_executed": t._("💀 Hitler executed ×{n}", n=n),
        "six_fascist": t._("🔴 Six Fascist policies ×{n}", n=n),
        "hitler_elected": t._("👔 Hitler elected Chancellor ×{n}", n=n),
    }[condition]


def group_stats_text(t: Translator, title: str, stats: dict[str, Any]) -> str:
    games = int(stats.get("games", 0))
    if games == 0:
        return t._("📊 No game has been finished in this group yet. /newgame starts one.")
    wins = stats.get("wins", {})
    liberal, fascist = int(wins.get("liberal", 0)), int(wins.get("fascist", 0))
    lines = [
        t._("<b>📊 Games in {group}</b>", group=esc(title)),
        t.ngettext("{n} game finished.", "{n} games finished.", games),
        t._(
            "Liberals won {liberal} ({liberal_rate}%), Fascists won {fascist} ({fascist_rate}%).",
            liberal=liberal,
            fascist=fascist,
            liberal_rate=_rate(liberal, games),
            fascist_rate=_rate(fascist, games),
        ),
        "",
        t._("<b>How the games ended</b>"),
        *_conditions(t, stats.get("by_condition", {})),
    ]
    players = stats.get("players", [])
    if players:
        lines += ["", t._("<b>Most frequent players</b>")]
        for i, p in enumerate(players[:10], 1):
            lines.append(
                t.ngettext(
                    "{rank}. {name}: {n} game, {wins} won",
                    "{rank}. {name}: {n} games, {wins} won",
                    int(p.get("games", 0)),
                    rank=i,
                    name=name([str(p.get("name", "?"))], 0),
                    wins=int(p.get("wins", 0) or 0),
                )
            )
    return "\n".join(lines)
