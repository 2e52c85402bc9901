"""/practice [5-10]: one person against computer players, in the private chat.

The private chat is the practice game's "group": the table is stored under that chat, its
public messages go there, and so do the person's private ones (the table owes them to the
person, who is that same chat); the slot renderer marks the private ones. Same rules and
same commit path as a group game; timers are off.
"""

from __future__ import annotations

from telegram import Update
from telegram.constants import ParseMode
from telegram.error import RetryAfter, TelegramError

from shbot.storage import GameExists, NoGame
from shbot.table import MAX_PLAYERS, MIN_PLAYERS, Refusal, lobby, seats

from ..delivery.sender import retry_seconds
from ..render import seats as rs
from .common import Ctx, current_table, is_group, player_from, reply, svc

DEFAULT_PLAYERS = 7


def practice_players(args: list[str] | None) -> int | None:
    """The table size /practice asks for (7 by default); None if it is not 5 to 10."""
    if not args:
        return DEFAULT_PLAYERS
    arg = args[0]
    if not (arg.isascii() and arg.isdigit() and len(arg) <= 2):
        return None
    n = int(arg)
    return n if MIN_PLAYERS <= n <= MAX_PLAYERS else None


async def cmd_practice(update: Update, context: Ctx) -> None:
    s = svc(context)
    chat, user, message = update.effective_chat, update.effective_user, update.effective_message
    if chat is None or user is None:
        return
    if is_group(chat):
        t = await s.t_group(chat.id, user)
        await reply(context, message, rs.practice_in_private_text(t))
        return
    lang = await s.user_lang(user.id, user.language_code)
    await s.store.update_group(chat.id, {"lang": lang})  # this chat's "group" language
    s.forget_group_lang(chat.id)
    t = await s.t_user(user)
    players = practice_players(context.args)
    if players is None:
        await reply(context, message, rs.practice_usage_text(t))
        return
    busy = await s.store.player_chat(user.id)
    if busy is not None:
        text = rs.practice_busy_text(t, here=busy == chat.id)
        await reply(context, message, text)
        return
    host = player_from(user, ready=True)
    table = lobby.new_lobby(host)
    seats.add_computers(table, user.id, True, players - 1, lang)
    await explain(context, chat.id, rs.practice_intro_text(t, players - 1))
    try:
        await s.commit.create(chat.id, table)
    except GameExists:
        await reply(context, message, rs.practice_busy_text(t, here=True))
        return
    await s.store.claim_player(user.id, chat.id)
    options = {"shuffle_seats": True, "rebalanced": False, "timer": 0, "practice": True}
    seed = s.new_seed()
    try:
        await s.commit.run(chat.id, lambda tb: lobby.start(tb, user.id, True, seed, options))
    except (NoGame, Refusal):  # pragma: no cover - a lobby made just now starts
        return


async def explain(context: Ctx, chat_id: int, text: str) -> None:
    """The practice game's explanation comes first: sent before the table exists (the
    outbox would put a plain reply after the game's own messages). One message in a private
    chat, counted in its window; if Telegram refuses, the outbox tries it later (after a 429's
    wait)."""
    pacer = svc(context).outbox.pacer
    try:
        pacer.take(chat_id)
        await context.bot.send_message(chat_id, text, parse_mode=ParseMode.HTML)
    except TelegramError as exc:
        if isinstance(exc, RetryAfter):
            pacer.block(chat_id, retry_seconds(exc))
        svc(context).outbox.post(chat_id, text)


async def cmd_cancelgame(update: Update, context: Ctx) -> None:
    """/cancelgame: in a private chat it ends the practice game at once; in a group it
    asks as before."""
    chat, user = update.effective_chat, update.effective_user
    if chat is None or user is None or is_group(chat):
        from .admin import cmd_cancelgame as cancel_in_group

        await cancel_in_group(update, context)
        return
    s = svc(context)
    t = await s.t_user(user)
    table = await current_table(context, chat.id)
    if table is None:
        await reply(context, update.effective_message, t._("There is no game to cancel."))
        return
    try:
        await s.commit.run(chat.id, lambda tb: lobby.cancel(tb, table.gid, user.full_name))
    except (NoGame, Refusal):
        return
