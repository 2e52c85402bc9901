"""Host and admin commands: cancel a game, change the group's or one's own language."""

from __future__ import annotations

import contextlib

from telegram import InlineKeyboardButton, InlineKeyboardMarkup, Message, Update, User
from telegram.constants import ChatMemberStatus

from shbot.i18n import (
    LANGUAGE_NAMES,
    LANGUAGES,
    language_changed_text,
    language_prompt_text,
    normalize,
)
from shbot.storage import NoGame
from shbot.table import Refusal, clean_name, lobby

from .. import callbacks as cb
from .. import render as r
from .common import (
    Ctx,
    current_table,
    group_only,
    is_group,
    is_group_admin,
    is_person,
    posts_as_group,
    reply,
    svc,
)


async def may_manage(
    context: Ctx, chat_id: int, user: User, host: int | None, message: Message | None = None
) -> bool:
    """The host, or an admin of the group (an anonymous one included, see is_group_admin)."""
    if user.id == host and is_person(user, message):
        return True
    return await is_group_admin(context, chat_id, user, message)


async def cmd_cancelgame(update: Update, context: Ctx) -> None:
    if not await group_only(update, context):
        return
    s = svc(context)
    chat, user, message = update.effective_chat, update.effective_user, update.effective_message
    assert chat is not None and user is not None
    t = await s.t_group(chat.id, user)
    table = await current_table(context, chat.id)
    if table is None:
        await reply(context, message, t._("There is no game to cancel."))
        return
    if not await may_manage(context, chat.id, user, table.host, message):
        await reply(context, message, t._("Only the host or a group admin can cancel the game."))
        return
    kb = InlineKeyboardMarkup(
        [
            [
                InlineKeyboardButton(
                    t._("Yes, cancel it"), callback_data=cb.game_data(table.gid, 0, cb.CANCEL_YES)
                ),
                InlineKeyboardButton(
                    t._("No, keep playing"), callback_data=cb.game_data(table.gid, 0, cb.CANCEL_NO)
                ),
            ]
        ]
    )
    await reply(context, message, t._("Cancel the current game? This cannot be undone."), kb)


async def on_cancel_press(update: Update, context: Ctx) -> None:
    query = update.callback_query
    if query is None or query.message is None:
        return
    s = svc(context)
    message = query.message
    chat_id = message.chat.id
    press = cb.parse(query.data)
    assert isinstance(press, cb.GamePress)
    user = query.from_user
    t = await s.t_user(user)
    tg = await s.t_group(chat_id)
    table = await current_table(context, chat_id)
    if table is None or table.gid != press.game_id:
        await query.answer(t._("This button belongs to a game that is over."))
        return
    if not await may_manage(context, chat_id, user, table.host):
        await query.answer(t._("Only the host or a group admin can cancel the game."))
        return
    if press.op == cb.CANCEL_NO:
        await query.answer()
        s.outbox.post(chat_id, tg._("The game goes on."), edit_id=message.message_id)
        return
    name = clean_name(user.full_name, "?")
    try:
        await s.commit.run(chat_id, lambda tb: lobby.cancel(tb, press.game_id, name))
    except (NoGame, Refusal):
        await query.answer(t._("This game is over."))
        return
    await query.answer()
    cancelled = tg._("🛑 The game was cancelled by {name}.", name=r.name([name], 0))
    s.outbox.post(chat_id, cancelled, edit_id=message.message_id)


async def cmd_lang(update: Update, context: Ctx) -> None:
    s = svc(context)
    chat, user, message = update.effective_chat, update.effective_user, update.effective_message
    if chat is None or user is None:
        return
    group = is_group(chat)
    t = await s.t_group(chat.id, user) if group else await s.t_user(user)
    if group and not await may_set_group_lang(context, chat.id, user, message):
        await reply(
            context, message, t._("Only a group admin can change the language during a game.")
        )
        return
    scope = "g" if group else "u"
    if context.args:
        code = normalize(context.args[0][:16])
        if code is None:
            await reply(
                context,
                message,
                t._(
                    "Unknown language. Available: {codes}.",
                    codes=", ".join(f"{c} ({LANGUAGE_NAMES[c]})" for c in LANGUAGES),
                ),
            )
            return
        await set_language(context, chat.id if group else user.id, group, code)
        await reply(context, message, language_changed_text(code))
        return
    await reply(context, message, language_prompt_text(t), r.language_keyboard(scope))


async def may_set_group_lang(
    context: Ctx, chat_id: int, user: User, message: Message | None = None
) -> bool:
    """Anyone outside a game; during one, a group admin (an anonymous one included)."""
    table = await current_table(context, chat_id)
    if table is None or table.game is None:
        return True
    return await is_group_admin(context, chat_id, user, message)


async def cmd_settings_anonymous(update: Update, context: Ctx) -> None:
    """/settings posted as a chat: an anonymous admin has no private chat with the bot, so
    the group's settings open in the group itself (each press checks the presser's rights:
    a button press always comes from the real account); a channel is refused."""
    s = svc(context)
    chat, message = update.effective_chat, update.effective_message
    if chat is None or message is None or not is_group(chat):
        return
    t = await s.t_group(chat.id, update.effective_user)
    if not posts_as_group(message, chat.id):
        await reply(context, message, t._("Only a group admin can change the settings."))
        return
    group = await s.store.get_group(chat.id)
    text = r.settings_text(t, chat.title or str(chat.id), group, s.config.timers)
    keyboard = r.settings_keyboard(t, chat.id, group, s.config.timers)
    await reply(context, message, text, keyboard, key="settings")


async def set_language(context: Ctx, target: int, group: bool, code: str) -> None:
    s = svc(context)
    if not group:
        await s.store.update_user(target, {"lang": code})
        s.forget_user_lang(target)
        return
    await s.store.update_group(target, {"lang": code})
    s.forget_group_lang(target)
    with contextlib.suppress(NoGame, Refusal):
        await s.commit.run(target, lobby.redraw)


async def on_lang_press(update: Update, context: Ctx) -> None:
    query = update.callback_query
    if query is None or query.message is None:
        return
    s = svc(context)
    message = query.message
    user = query.from_user
    t = await s.t_user(user)
    press = cb.parse(query.data)
    assert isinstance(press, cb.FreePress)
    scope, code = press.arg[:1], press.arg[1:]
    if code not in LANGUAGES or scope not in ("g", "u"):
        await query.answer(t._("This button is not valid."))
        return
    if scope == "g":
        if not is_group(message.chat):
            await query.answer(t._("This button is not valid."))
            return
        if not await may_set_group_lang(context, message.chat.id, user):
            await query.answer(t._("Only a group admin can change the language during a game."))
            return
        await set_language(context, message.chat.id, True, code)
    else:
        await set_language(context, user.id, False, code)
    await query.answer()
    s.outbox.post(message.chat.id, language_changed_text(code), edit_id=message.message_id)


async def on_my_chat_member(update: Update, context: Ctx) -> None:
    """The bot was removed from a group: its game ends at once and its players are free."""
    change = update.my_chat_member
    if change is None or not is_group(change.chat):
        return
    if change.new_chat_member.status in (ChatMemberStatus.LEFT, ChatMemberStatus.BANNED):
        await svc(context).lost_group(change.chat.id)


async def on_migrate(update: Update, context: Ctx) -> None:
    """A group became a supergroup: its game and settings move to the new chat id."""
    message = update.effective_message
    if message is None or message.migrate_to_chat_id is None:
        return
    await svc(context).migrate(message.chat.id, int(message.migrate_to_chat_id))
