"""The role message's extras (a cheat sheet for this board, /mylog in one tap, the way
back to the group) and the end card's Rematch button."""

from __future__ import annotations

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from shbot.engine import ROLE_COUNTS
from shbot.i18n import Translator
from shbot.table import Table

from .. import callbacks as cb
from .common import POWER_ICON, on_one_line, power_name


def cheat_sheet(t: Translator, table: Table) -> str:
    """Team sizes and the powers of this board, for the role message."""
    game = table.game
    assert game is not None
    liberals, fascists, _ = ROLE_COUNTS[game.n]
    track = []
    for i, power in enumerate(game.powers):
        track.append("🏁" if i == 5 else POWER_ICON[str(power)] if power else "⬜")
    present = [str(p) for p in dict.fromkeys(game.powers) if p]
    legend = on_one_line(
        t, [*(f"{POWER_ICON[p]} {power_name(t, p)}" for p in present), t._("🏁 Fascists win")]
    )
    return "\n".join(
        [
            t._("📋 <b>Cheat sheet</b> · {players} players", players=game.n),
            t._(
                "Liberals: {liberals} · Fascists: {fascists} + Hitler",
                liberals=liberals,
                fascists=fascists,
            ),
            t._("Fascist track: {track}", track=" ".join(track)),
            f"<i>{legend}</i>",
        ]
    )


def group_link(group_id: int, message_id: int | None) -> str | None:
    """A link to a message of a supergroup (-100… ids); None for basic groups or an
    unknown message."""
    text = str(group_id)
    if message_id is None or not text.startswith("-100") or len(text) <= 4:
        return None
    return f"https://t.me/c/{text[4:]}/{message_id}"


def role_keyboard(t: Translator, table: Table, group_id: int) -> InlineKeyboardMarkup:
    """Under the role message: /mylog in one tap, and the way back to the group's game."""
    rows = [
        [
            InlineKeyboardButton(
                t._("📜 What I know"), callback_data=cb.game_data(table.gid, 0, cb.MYLOG)
            )
        ]
    ]
    link = group_link(group_id, table.shown.get("board", table.shown.get("lobby")))
    title = table.options.get("title")
    if link is not None:
        rows.append([InlineKeyboardButton(t._("↩️ Back to the game"), url=link)])
    elif isinstance(title, str) and title:  # a basic group: no link, so its name
        data = cb.game_data(table.gid, 0, cb.BACK)
        short = title if len(title) <= 16 else title[:15] + "…"  # a label fits a phone
        label = t._("↩️ The game: {group}", group=short)
        rows.append([InlineKeyboardButton(label, callback_data=data)])
    return InlineKeyboardMarkup(rows)


def back_alert(t: Translator, table: Table) -> str:
    """The basic group's button, pressed: where the game is (an alert, 200 characters)."""
    title = str(table.options.get("title") or "")
    title = title if len(title) <= 64 else title[:63] + "…"  # Telegram allows 128
    return t._("Your game is in the group “{group}”: open it from your chat list.", group=title)


def rematch_keyboard(t: Translator, table: Table) -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup(
        [
            [
                InlineKeyboardButton(
                    t._("🔁 Rematch"), callback_data=cb.game_data(table.gid, 0, cb.REMATCH)
                )
            ]
        ]
    )
