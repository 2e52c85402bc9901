"""Lobby: /newgame, join, leave and start (the private /start is in ``private_start``)."""

from __future__ import annotations

import logging
from functools import partial

from telegram import CallbackQuery, Message, Update
from telegram import User as TgUser

from shbot.i18n import Translator
from shbot.storage import GameExists, NoGame
from shbot.table import Refusal, lobby, lobby_clock
from shbot.table.outcome import Outcome

from .. import callbacks as cb
from .. import render as r
from ..refusals import answer_text
from .common import (
    Ctx,
    answer,
    answer_redelivered,
    current_table,
    group_only,
    is_person,
    player_from,
    posts_as_group,
    press_key,
    refuse,
    reply,
    svc,
)
from .join_deadline import (
    arm_lobby,
    join_minutes,
    maybe_autostart,
    set_join_deadline,
    tell_in,
)
from .members import member_of
from .starting import commit_start

log = logging.getLogger(__name__)
DEFAULT_MINUTES = lobby_clock.DEFAULT_MINUTES


async def cmd_newgame(update: Update, context: Ctx) -> None:
    if not await group_only(update, context):
        return
    s = svc(context)
    chat, user, message = update.effective_chat, update.effective_user, update.effective_message
    assert chat is not None and user is not None
    if not is_person(user, message):  # a channel, a bot or an anonymous admin cannot host
        await refuse(context, None, message, await s.t_group(chat.id, user), Refusal("not_person"))
        return
    await group_defaults(context, chat.id, chat.title, user)
    t = await s.t_group(chat.id)
    busy = await s.store.player_chat(user.id)
    if busy is not None and busy != chat.id:
        await reply(context, message, t._("You are already playing in another group."))
        return
    settings = await s.store.get_user(user.id)
    args = context.args or []
    minutes, odd = join_minutes(args)
    note = r.join_time_note(t, args[0], minutes or DEFAULT_MINUTES) if odd else None
    table = lobby.new_lobby(player_from(user, ready=bool(settings.get("dm"))))
    lobby_clock.set_deadline(table, minutes or DEFAULT_MINUTES)
    try:
        await s.commit.create(chat.id, table)
    except GameExists:
        if minutes and await set_join_deadline(context, chat.id, user.id, minutes):
            if note:  # the host chose another join deadline: the lobby shows it
                await reply(context, message, note)
            return
        await reply(
            context,
            message,
            t._("A game is already open in this group. /board shows it; /cancelgame ends it."),
        )
        return
    arm_lobby(context.application, chat.id, table)
    await s.store.claim_player(user.id, chat.id)
    if note:
        await reply(context, message, note)
    await tell_subscribers(context, chat.id, chat.title or "")


async def group_defaults(context: Ctx, chat_id: int, title: str | None, host: TgUser) -> None:
    """The group's title (named in private chats) and, for a group that never chose one, the
    language of its first host: read and written at once, so a /lang sent just before is
    never overwritten by this default (issue 31)."""
    s = svc(context)
    lang = await s.user_lang(host.id, host.language_code)

    def defaults(current: dict[str, object]) -> dict[str, object]:
        changes: dict[str, object] = {}
        if title and current.get("title") != title:
            changes["title"] = title
        if not current.get("lang"):
            changes["lang"] = lang
        return changes

    await s.store.change_group(chat_id, defaults)
    s.forget_group_lang(chat_id)


async def tell_subscribers(context: Ctx, chat_id: int, title: str) -> None:
    """/nextgame: those who asked hear, once, that a lobby opened."""
    s = svc(context)
    for subscriber in await s.store.pop_subscribers(chat_id):
        ts = await s.t_user(subscriber)
        text = ts._("🔔 A new game of Secret Hitler is open in {group}.", group=r.esc(title))
        s.outbox.post(subscriber, text)


async def bound_elsewhere(context: Ctx, user_id: int, chat_id: int) -> bool:
    """The user plays in another group. A binding whose game does not seat them (a crash
    between the binding and the join's commit) is released here instead of holding them."""
    s = svc(context)
    busy = await s.store.player_chat(user_id)
    if busy is None or busy == chat_id:
        return False
    table = await current_table(context, busy)
    if table is not None and table.player(user_id) is not None:
        return True
    await s.store.release_players(busy, [user_id])
    return False


async def join_lobby(
    context: Ctx,
    chat_id: int,
    user: TgUser,
    message: Message | None,
    t: Translator,
    *,
    gid: str | None = None,
    via_private: bool = False,
    query: CallbackQuery | None = None,
) -> None:
    s = svc(context)
    if not is_person(user, message if query is None else None):
        await refuse(context, query, message, t, Refusal("not_person"))
        return
    if not await member_of(context, chat_id, user, message, query, via_private):
        return
    if await bound_elsewhere(context, user.id, chat_id):
        await answer(context, query, message, t._("You are already playing in another group."))
        return
    ready = via_private or bool((await s.store.get_user(user.id)).get("dm"))
    player = player_from(user, ready)
    if await s.store.claim_player(user.id, chat_id) is not None:
        await answer(context, query, message, t._("You are already playing in another group."))
        return

    seat = partial(lobby.join, player=player, gid=gid, via_link=via_private)
    try:
        outcome = await s.commit.run(chat_id, seat, update_key=press_key(query))
    except NoGame:
        await s.store.release_players(chat_id, [user.id])
        await answer(context, query, message, t._("There is no open game. /newgame opens one."))
        return
    except Refusal as refusal:
        await join_refused(context, chat_id, user.id, message, query, t, refusal, via_private)
        return
    await joined(
        context, chat_id, user.id, message, query, t, outcome, ready=ready, via_private=via_private
    )
    await maybe_autostart(context, chat_id, outcome.table)


async def joined(
    context: Ctx,
    chat_id: int,
    user_id: int,
    message: Message | None,
    query: CallbackQuery | None,
    t: Translator,
    outcome: Outcome,
    *,
    ready: bool,
    via_private: bool,
) -> None:
    """Tell the new player they are in; a press by one the bot cannot write to yet opens
    the private chat in one tap instead (the /start there marks the player ready)."""
    if via_private:
        await tell_in(context, user_id, outcome.table.gid, message, t)
    elif not ready and query is not None:
        link = r.deep_link(svc(context).bot_username, r.join_payload(chat_id, outcome.table.gid))
        await query.answer(url=link)
    else:
        text = answer_text(t, outcome.answer) or t._("You joined the game.")
        await answer(context, query, message, text, alert=False)


async def join_refused(
    context: Ctx,
    chat_id: int,
    user_id: int,
    message: Message | None,
    query: CallbackQuery | None,
    t: Translator,
    refusal: Refusal,
    via_private: bool,
) -> None:
    """A refused join releases the binding it took (unless the user sits at the table
    anyway) and says why; a join link opened twice just sends the player back."""
    if refusal.code == "duplicate":
        await answer_redelivered(context, query)  # the same press delivered twice: applied once
        return
    table = await current_table(context, chat_id)
    if table is None or table.player(user_id) is None:
        await svc(context).store.release_players(chat_id, [user_id])  # only if bound here
    if via_private and refusal.code == "joined" and table is not None:
        await tell_in(context, user_id, table.gid, message, t)
    else:
        await refuse(context, query, message, t, refusal)


async def cmd_join(update: Update, context: Ctx) -> None:
    if not await group_only(update, context):
        return
    chat, user = update.effective_chat, update.effective_user
    assert chat is not None and user is not None
    t = await svc(context).t_group(chat.id, user)
    await join_lobby(context, chat.id, user, update.effective_message, t)


async def leave_lobby(
    context: Ctx,
    chat_id: int,
    user: TgUser,
    message: Message | None,
    query: CallbackQuery | None,
    t: Translator,
) -> None:
    if not is_person(user, message if query is None else None):
        await refuse(context, query, message, t, Refusal("not_person"))
        return
    try:
        outcome = await svc(context).commit.run(
            chat_id, lambda tb: lobby.leave(tb, user.id), update_key=press_key(query)
        )
    except NoGame:
        await answer(context, query, message, t._("There is no open game. /newgame opens one."))
        return
    except Refusal as refusal:
        if refusal.code == "started_leave" and query is None:  # /leave: a computer plays on
            from .seats import leave_running

            await leave_running(context, chat_id, user, message, query, t)
        elif refusal.code == "duplicate":
            await answer_redelivered(context, query)
        else:
            await refuse(context, query, message, t, refusal)
        return
    await answer(context, query, message, answer_text(t, outcome.answer) or "", alert=False)


async def cmd_leave(update: Update, context: Ctx) -> None:
    if not await group_only(update, context):
        return
    chat, user = update.effective_chat, update.effective_user
    assert chat is not None and user is not None
    t = await svc(context).t_group(chat.id, user)
    await leave_lobby(context, chat.id, user, update.effective_message, None, t)


async def start_game(
    context: Ctx,
    chat_id: int,
    user: TgUser,
    message: Message | None,
    query: CallbackQuery | None,
    t: Translator,
) -> None:
    """The table is checked first; admin rights are asked only if the start hinges on them.
    An anonymous admin starts as an admin of this group; a channel or a bot never starts."""
    s = svc(context)
    as_group = query is None and posts_as_group(message, chat_id)
    if not as_group and not is_person(user, message if query is None else None):
        await refuse(context, query, message, t, Refusal("not_person"))
        return
    table = await current_table(context, chat_id)
    if table is None:
        await answer(context, query, message, t._("There is no open game. /newgame opens one."))
        return
    try:
        lobby.check_start(table, user.id)
    except Refusal as refusal:
        await refuse(context, query, message, t, refusal)
        return
    admin = as_group or (user.id != table.host and await s.is_admin(chat_id, user.id))
    outcome = await commit_start(context, chat_id, user.id, admin, message, query, t)
    if outcome is None:
        return
    if query is not None:
        await query.answer()
    log.info(
        "game %s started in chat %s with %d players",
        outcome.table.gid,
        chat_id,
        len(outcome.table.players),
    )


async def cmd_startgame(update: Update, context: Ctx) -> None:
    if not await group_only(update, context):
        return
    chat, user = update.effective_chat, update.effective_user
    assert chat is not None and user is not None
    t = await svc(context).t_group(chat.id, user)
    await start_game(context, chat.id, user, update.effective_message, None, t)


async def on_lobby_press(update: Update, context: Ctx) -> None:
    """Join / Leave / Start buttons of the lobby message."""
    query = update.callback_query
    if query is None or query.message is None:
        return
    press = cb.parse(query.data)
    user = query.from_user
    t = await svc(context).t_user(user)
    if not isinstance(press, cb.GamePress):  # no data at all matches every pattern in PTB
        await query.answer(t._("This button is not valid."))
        return
    chat_id = query.message.chat.id
    if press.op == cb.JOIN:
        await join_lobby(context, chat_id, user, None, t, gid=press.game_id, query=query)
    elif press.op == cb.LEAVE:
        await leave_lobby(context, chat_id, user, None, query, t)
    else:
        await start_game(context, chat_id, user, None, query, t)
