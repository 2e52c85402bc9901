"""The lobby: who joined, the Join/Leave/Start buttons, the deep links to the private chat."""

from __future__ import annotations

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from shbot.i18n import Translator, esc
from shbot.table import lobby, lobby_clock
from shbot.table.model import FSI, PDI, Table
from shbot.table.rematch import still_invited

from .. import callbacks as cb
from . import seats
from .common import (
    fit,
    isolated,
    markup,
)
from .table import deadline_html
from .widths import fit_rows


def lobby_text(t: Translator, table: Table, *, closed: str | None = None) -> str:
    lines = [t._("<b>Secret Hitler</b> — a new game is open."), ""]
    host = table.player(table.host)
    if host is not None:
        lines.append(t._("Host: {host}", host=isolated(host.name)))
    lines.append(t._("Players ({count}/10):", count=len(table.players)))
    waiting = False
    for i, p in enumerate(table.players):
        mark = "✅" if p.ready else "⏳"
        waiting = waiting or not p.ready
        lines.append(f"{i + 1}. {mark} {FSI}{esc(p.name)}{PDI}")
    if not table.players:
        lines.append(t._("(nobody yet)"))
    lines += invited_lines(t, table, closed)
    lines.append("")
    if closed:
        lines.append(closed)
        return fit("\n".join(lines))
    if waiting:
        lines.append(
            t._(
                "⏳ Still to open a private chat with me, where I send the secret roles: "
                "{names}. Until then they do not count toward the 5 players. Tap “Open "
                "private chat”, then Start.",
                names=unready_names(t, table),
            )
        )
    lines.append(t._("Press Join to play. A game needs 5 to 10 players; the host starts it."))
    lines += deadline_lines(t, table)
    lines.append(seats.lobby_hint(t))
    return fit("\n".join(lines))


def deadline_lines(t: Translator, table: Table) -> list[str]:
    """When joining closes (each reader's Telegram shows it in their own time zone), and a
    minute before, that it is near (the lobby is edited: no new message)."""
    at = lobby_clock.join_by(table)
    if at is None:
        return []
    lines = [
        t._(
            "⏰ Joining closes at {time}: the game then starts by itself if 5 or more "
            "players have opened a private chat with me (it starts at once when 10 have). "
            "The host can pick another time with /newgame and a number of minutes, e.g. "
            "/newgame 15.",
            time=deadline_html(t, at),
        )
    ]
    if lobby_clock.warned(table):
        lines.append(t._("⏳ <b>Less than a minute left to join!</b>"))
    return lines


def invited_lines(t: Translator, table: Table, closed: str | None) -> list[str]:
    """A rematch's players who have not confirmed yet (mentioned: their phones ring)."""
    waiting = [] if closed else still_invited(table)
    if not waiting:
        return []
    names = t._(", ").join(
        f'<a href="tg://user?id={p.id}">{FSI}{esc(p.name)}{PDI}</a>' for p in waiting
    )
    return [t._("📨 Invited, one tap on Join to confirm: {names}", names=names)]


def lobby_keyboard(
    t: Translator, table: Table, bot_username: str, chat_id: int | None = None
) -> InlineKeyboardMarkup | None:
    """Join/Leave/Start, and the deep link that opens the private chat and joins in one tap
    (it must name the group: a /start in private does not say where it came from)."""
    gid = table.gid
    rows = [
        [
            InlineKeyboardButton(t._("✋ Join"), callback_data=cb.game_data(gid, 0, cb.JOIN)),
            InlineKeyboardButton(t._("🚪 Leave"), callback_data=cb.game_data(gid, 0, cb.LEAVE)),
        ],
        *fit_rows(seats.lobby_row(t, gid), 2),  # a row each where a label would be cut
    ]
    if len(table.players) >= lobby.MIN_PLAYERS:  # offered only once a game could start
        rows.append(
            [InlineKeyboardButton(t._("▶️ Start"), callback_data=cb.game_data(gid, 0, cb.START))]
        )
    if bot_username:
        rows.append(
            [
                InlineKeyboardButton(
                    t._("💬 Open private chat"),
                    url=deep_link(bot_username, join_payload(chat_id, gid) if chat_id else gid),
                )
            ]
        )
    return markup(rows)


def deep_link(bot_username: str, payload: str) -> str:
    return f"https://t.me/{bot_username}?start={payload}"


def private_chat_keyboard(
    t: Translator, bot_username: str, payload: str
) -> InlineKeyboardMarkup | None:
    """One "Open private chat" button (none while the bot's username is unknown)."""
    if not bot_username:
        return None
    link = deep_link(bot_username, payload)
    return InlineKeyboardMarkup([[InlineKeyboardButton(t._("💬 Open private chat"), url=link)]])


def join_payload(chat_id: int, gid: str) -> str:
    """The /start payload that joins the lobby ``gid`` of ``chat_id`` ([A-Za-z0-9_-] only)."""
    return f"j{chat_id}_{gid}".replace("-", "m")


def unready_names(t: Translator, table: Table) -> str:
    """The lobby's players who have not opened the private chat yet."""
    return t._(", ").join(isolated(p.name) for p in table.players if not p.ready)


def lobby_closed_text(
    t: Translator, closed: str, by: str | None = None, table: Table | None = None
) -> str:
    """The last line of a lobby that no longer takes players."""
    if closed == "started":
        return t._("▶️ The game has started!")
    if closed == "everybody_left":
        return t._("Everybody left: the game is cancelled.")
    if closed == "deadline" and table is not None and any(not p.ready for p in table.players):
        return t._(
            "⌛ Fewer than 5 players had opened a private chat with me by the join deadline "
            "({ready} of {joined}): the game is cancelled. Still to open it: {names}.",
            ready=lobby_clock.ready_count(table),
            joined=len(table.players),
            names=unready_names(t, table),
        )
    if closed == "deadline":
        return t._("⌛ Fewer than 5 players by the join deadline: the game is cancelled.")
    if by:
        return t._("🛑 The game was cancelled by {name}.", name=isolated(by))
    return t._("🛑 The game was cancelled.")


def unreachable_text(t: Translator, player: str) -> str:
    return t._(
        "⚠️ I cannot write to {name} in private. {name}, please open a private chat with "
        "me and press Start: I will send you what you missed.",
        name=isolated(player),
    )


def join_time_note(t: Translator, arg: str, minutes: int) -> str:
    """``/newgame abc``: the join time was not a whole number of minutes from 1 to 60."""
    return t.ngettext(
        "⏰ The join time is a whole number of minutes from 1 to 60; “{arg}” is not one, so "
        "joining stays open for {minutes} minute.",
        "⏰ The join time is a whole number of minutes from 1 to 60; “{arg}” is not one, so "
        "joining stays open for {minutes} minutes.",
        minutes,
        arg=esc(arg[:16]),
        minutes=minutes,
    )


def not_member_text(t: Translator) -> str:
    return t._(
        "Only members of the group can join its game. Join the group first, then press "
        "Join in its lobby."
    )


def member_unknown_text(t: Translator) -> str:
    """Telegram could not say whether the joiner is a member (a 5xx, a 429, a timeout)."""
    return t._(
        "I could not check with Telegram that you are a member of the group. Please try "
        "again in a moment."
    )
