"""Words of computer seats: the lobby's buttons, the stand-in lines, the take-back button,
and the answers and refusals of /addbot, /removebot and the take-back press."""

from __future__ import annotations

from typing import Any

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from shbot.i18n import Translator, esc
from shbot.table import Table
from shbot.table.model import FSI, PDI

from .. import callbacks as cb

#: Slot families of computer seats (rendered by :func:`build`).
FAMILIES = ("standin", "seatback")


def lobby_row(t: Translator, gid: str) -> list[InlineKeyboardButton]:
    """The lobby's row of buttons for computer players."""
    return [
        InlineKeyboardButton(
            t._("🤖 Add a computer player"), callback_data=cb.game_data(gid, 0, cb.ADD_BOT)
        ),
        InlineKeyboardButton(t._("➖ 🤖"), callback_data=cb.game_data(gid, 0, cb.REMOVE_BOT)),
    ]


def _name(table: Table, seat: int) -> str:
    return f"{FSI}{esc(table.names()[seat])}{PDI}"


def standin_text(t: Translator, table: Table, d: dict[str, Any]) -> str:
    name = _name(table, int(d["seat"]))
    if d.get("back"):
        return t._("🙋 {name} plays their seat again.", name=name)
    if d.get("why") == "left":
        return t._("🤖 A computer player now plays for {name}, who left the game.", name=name)
    return t._(
        "🤖 A computer player now plays for {name}, who missed two deadlines in a row.",
        name=name,
    )


def seatback_text(t: Translator) -> str:
    return t._(
        "🤖 A computer player now plays your seat, so that the game goes on. "
        "Whenever you are back, press the button to play again."
    )


def seatback_keyboard(t: Translator, table: Table) -> InlineKeyboardMarkup:
    data = cb.game_data(table.gid, 0, cb.TAKE_BACK)
    return InlineKeyboardMarkup(
        [[InlineKeyboardButton(t._("🙋 Take my seat back"), callback_data=data)]]
    )


def build(
    t: Translator, table: Table, family: str, d: dict[str, Any]
) -> tuple[str, InlineKeyboardMarkup | None] | None:
    """The text and keyboard of an owed slot of computer seats."""
    game = table.game
    if game is None:
        return None
    if family == "standin":
        return standin_text(t, table, d), None
    if family == "seatback":
        live = not table.ending and not game.is_over
        return seatback_text(t), seatback_keyboard(t, table) if live else None
    return None


def answer_text(t: Translator, code: str | None, count: int = 0) -> str | None:
    if code == "bots_added":
        return t.ngettext(
            "{n} computer player joined.", "{n} computer players joined.", count, n=count
        )
    if code == "bot_removed":
        return t._("A computer player left.")
    if code == "standin":
        return t._("A computer player plays your seat now; I sent you a button to take it back.")
    if code == "seat_back":
        return t._("Welcome back: you play your seat again.")
    return None


def lobby_hint(t: Translator) -> str:
    return t._("Too few? The host can fill the table with computer players (🤖, /addbot).")


def standin_on(group: dict[str, Any]) -> bool:
    """The group lets a computer take an absent seat (on unless turned off)."""
    return group.get("standin", "on") != "off"


def standin_line(t: Translator, group: dict[str, Any]) -> str:
    return t._(
        "🤖 A computer plays for an absent player: {state}",
        state=t._("on") if standin_on(group) else t._("off"),
    )


# ------------------------------------------------------------------ /practice


def practice_hint(t: Translator) -> str:
    """Where /help and /rules point to computer players and practice games."""
    return t._(
        "🤖 Too few players? The host adds computer players with /addbot (and removes one "
        "with /removebot).\n"
        "🎓 Learn alone: send /practice (or /practice 5 to /practice 10) in a private chat "
        "with me to play a full game against computer players."
    )


def practice_in_private_text(t: Translator) -> str:
    return t._("🎓 /practice works in a private chat with me: a game of you against computers.")


def practice_usage_text(t: Translator) -> str:
    return t._("🎓 /practice takes a number of players from 5 to 10, for example /practice 7.")


def practice_busy_text(t: Translator, *, here: bool) -> str:
    if here:
        return t._("🎓 Your practice game is still running here. /cancelgame ends it.")
    return t._("You are already playing in another group.")


def practice_intro_text(t: Translator, computers: int) -> str:
    return t.ngettext(
        "🎓 <b>Practice game</b>: you and {n} computer player, with the rules of a group "
        "game. The table's messages come here; those marked 🔒 are for you alone (in a "
        "group they would reach you in private). No timers; /cancelgame ends the game.",
        "🎓 <b>Practice game</b>: you and {n} computer players, with the rules of a group "
        "game. The table's messages come here; those marked 🔒 are for you alone (in a "
        "group they would reach you in private). No timers; /cancelgame ends the game.",
        computers,
        n=computers,
    )


def private_mark(t: Translator) -> str:
    """The first line of a private message in a practice game (whose table is that chat)."""
    return t._("🔒 <i>Only you see this:</i>")
