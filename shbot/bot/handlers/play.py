"""Game presses: nominate, vote, the private hands, veto and powers, and "My role"."""

from __future__ import annotations

from typing import Any

from telegram import CallbackQuery, Update

from shbot.i18n import Translator
from shbot.table import Refusal

from .. import callbacks as cb
from ..presses import Reply, game_press, refusal_words, role_press
from .common import Ctx, answer_redelivered, current_table, is_group, svc


async def group_of(context: Ctx, chat_id: int, user_id: int, private: bool) -> int | None:
    """The group a press belongs to: its own chat, or (in private) the presser's game."""
    if not private:
        return chat_id
    return await svc(context).store.player_chat(user_id)


async def on_game_press(update: Update, context: Ctx) -> None:
    query = update.callback_query
    if query is None or query.message is None:
        return
    s = svc(context)
    user = query.from_user
    t = await s.t_user(user)
    press = cb.parse(query.data)
    assert isinstance(press, cb.GamePress)
    chat_id = await group_of(
        context, query.message.chat.id, user.id, not is_group(query.message.chat)
    )
    if chat_id is None:
        await game_gone(context, query, None, press.game_id)
        return

    async def respond(reply: Reply) -> None:
        if reply.status == "gone":
            await game_gone(context, query, chat_id, press.game_id, reply.last_known)
        elif reply.status == "duplicate":
            await answer_redelivered(context, query)  # applied by an earlier delivery
        elif reply.refusal is not None:
            await refused_press(context, query, chat_id, reply.refusal, t)
        else:
            await query.answer(reply.text)

    # The same judgement as a press on the Mini App's page (shbot/bot/presses.py).
    await game_press(s, user.id, t, chat_id, press, f"cq:{query.id}", respond)


async def refused_press(
    context: Ctx, query: CallbackQuery, chat_id: int | None, refusal: Refusal, t: Translator
) -> None:
    """Answer a refused press once. A refused press is not recorded by any commit: the
    store's first-seen mark (off the hot path, refusals only) lets one delivery answer it
    (Telegram refuses a second answer to one query)."""
    if refusal.code == "duplicate":
        await answer_redelivered(context, query)  # applied by an earlier delivery
        return
    if not await svc(context).store.first_seen(f"cq:{query.id}"):
        return  # refused and answered by an earlier delivery of it
    assert chat_id is not None
    text = await refusal_words(svc(context), t, chat_id, refusal)
    await query.answer(text, show_alert=refusal.alert)


async def game_gone(
    context: Ctx, query: CallbackQuery, chat_id: int | None, gid: str, last: Any = None
) -> None:
    """A press on a game the store does not have: over, or lost (see Services.lost_game)."""
    s = svc(context)
    t = await s.t_user(query.from_user)
    await query.answer(t._("This button belongs to a game that is over."))
    await s.lost_game(chat_id, gid, query.message, last)


async def on_my_role(update: Update, context: Ctx) -> None:
    query = update.callback_query
    if query is None or query.message is None:
        return
    s = svc(context)
    t = await s.t_user(query.from_user)
    press = cb.parse(query.data)
    assert isinstance(press, cb.GamePress)
    # "My role" sits under the group's board; pressed anywhere else it names no game.
    chat_id = query.message.chat.id if is_group(query.message.chat) else None
    if chat_id is None and await s.store.player_chat(query.from_user.id) == query.from_user.id:
        chat_id = query.from_user.id  # a practice game: its table is the private chat
    table = await current_table(context, chat_id) if chat_id is not None else None
    if table is None:
        await game_gone(context, query, chat_id, press.game_id)
        return
    reply = role_press(t, table, press, query.from_user.id)
    await query.answer(reply.text, show_alert=reply.alert)
