"""The private /start: it makes a player reachable, opens a join link, sends /mylog, or
sends a lost prompt again (a player who had blocked the bot)."""

from __future__ import annotations

import re

from telegram import InlineKeyboardButton, InlineKeyboardMarkup, Update

from shbot.i18n import Translator, normalize
from shbot.storage import NoGame
from shbot.table import PRIVATE_PHASES, Refusal, Table, lobby, prompt_seat
from shbot.table.outcome import Outcome

from .common import Ctx, current_table, is_group, reply, svc
from .info import welcome_text
from .join_deadline import maybe_autostart, tell_in
from .lobby import join_lobby
from .mylog import send_mylog
from .seats import offer_seat_back

MAX_CHAT_ID = 10**15  # Telegram chat ids fit in 52 bits; anything longer is forged
# What render.join_payload makes: j, the group id (m for its minus sign), _, the game id.
_JOIN_PAYLOAD = re.compile(r"j(m?[0-9]{1,16})_([a-z0-9]{4,12})")


def parse_join_payload(payload: str) -> tuple[int, str] | None:
    """The group and game a "join" deep link names; None for anything else (no int() of
    an unbounded or non-ASCII number: forged payloads cost nothing)."""
    m = _JOIN_PAYLOAD.fullmatch(payload) if len(payload) <= 64 else None
    if m is None:
        return None
    chat_id = int(m.group(1).replace("m", "-"))
    return (chat_id, m.group(2)) if chat_id < 0 and abs(chat_id) < MAX_CHAT_ID else None


async def cmd_start(update: Update, context: Ctx) -> None:
    s = svc(context)
    user, chat, message = update.effective_user, update.effective_chat, update.effective_message
    if user is None or chat is None:
        return
    if is_group(chat):
        from .info import cmd_help

        await cmd_help(update, context)
        return
    await s.store.update_user(user.id, {"dm": True, "tg_lang": normalize(user.language_code)})
    t = await s.t_user(user)
    payload = context.args[0] if context.args else ""
    if payload == "mylog" and await send_mylog(context, user):
        return
    target = parse_join_payload(payload)
    if target is not None:
        await join_lobby(context, target[0], user, message, t, gid=target[1], via_private=True)
        return
    group_id = await s.store.player_chat(user.id)
    if group_id is not None and (table := await mark_ready(context, group_id, user.id)):
        await tell_in(context, user.id, table.gid, message, t)
        await maybe_autostart(context, group_id, table)  # the last one a full table waited for
        return
    if group_id is not None and (
        await resend_prompt(context, group_id, user.id)
        or await offer_seat_back(context, group_id, user.id)  # a computer plays for them
    ):
        return
    await reply(context, message, welcome_text(t), add_to_group(t, s.bot_username))


def add_to_group(t: Translator, bot_username: str | None) -> InlineKeyboardMarkup | None:
    """The welcome's one button: add the bot to a group (Telegram's startgroup link)."""
    if not bot_username:
        return None
    url = f"https://t.me/{bot_username}?startgroup=true"
    return InlineKeyboardMarkup([[InlineKeyboardButton(t._("➕ Add me to a group"), url=url)]])


async def mark_ready(context: Ctx, chat_id: int, user_id: int) -> Table | None:
    """Mark a lobby player reachable in private: the lobby after it; None if they are not
    waiting in a lobby."""
    table = await current_table(context, chat_id)
    if table is None or table.game is not None:
        return None  # in a running game every player is reachable already: write nothing
    try:
        outcome = await svc(context).commit.run(chat_id, lambda tb: lobby.ready(tb, user_id))
    except (NoGame, Refusal):
        return None
    return outcome.table


async def resend_prompt(context: Ctx, chat_id: int, user_id: int) -> bool:
    """Send the current private prompt again if it belongs to ``user_id`` (they had blocked
    the bot, or lost the message)."""
    table = await current_table(context, chat_id)
    game = table.game if table is not None else None
    if table is None or game is None or game.is_over or game.phase not in PRIVATE_PHASES:
        return False
    seat = prompt_seat(game)
    if table.at(seat).id != user_id:
        return False

    def again(tb: Table) -> Outcome:
        if tb.step != table.step:
            raise Refusal("step_over")
        tb.owe(f"prompt:{tb.step}", user_id, {"seat": seat, "new": True})
        return Outcome(tb)

    try:
        await svc(context).commit.run(chat_id, again)
    except (NoGame, Refusal):
        return False
    return True
