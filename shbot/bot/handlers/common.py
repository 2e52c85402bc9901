"""What every handler family shares: the services, who is a person, plain replies."""

from __future__ import annotations

import logging
from typing import Any, cast

from telegram import CallbackQuery, Chat, Message, Update, User
from telegram.constants import ChatType, ParseMode
from telegram.ext import ContextTypes

from shbot.i18n import Translator, normalize
from shbot.table import Player, Refusal, Table, clean_name

from .. import render as r
from ..refusals import refusal_text
from ..services import Services

log = logging.getLogger(__name__)
Ctx = ContextTypes.DEFAULT_TYPE

#: Telegram's "GroupAnonymousBot": every anonymous admin of every group posts as this user.
ANONYMOUS_ADMIN = 1087968824


def svc(context: Ctx) -> Services:
    return cast(Services, context.application.bot_data["svc"])


def is_group(chat: Chat | None) -> bool:
    return chat is not None and chat.type in (ChatType.GROUP, ChatType.SUPERGROUP)


def is_person(user: User | None, message: Message | None = None) -> bool:
    """Only people play: not bots, not a group's anonymous admins, not channels."""
    if user is None or user.is_bot or user.id == ANONYMOUS_ADMIN:
        return False
    return message is None or message.sender_chat is None


def player_from(user: User, ready: bool) -> Player:
    return Player(
        user.id, clean_name(user.full_name, f"#{user.id}"), normalize(user.language_code), ready
    )


async def reply(
    context: Ctx, message: Message | None, text: str, markup: Any = None, *, key: str | None = None
) -> None:
    """A direct answer to a command. In a group it is paced with the game's messages
    (and coalesced by ``key``); in private it goes at once."""
    if message is None:
        return
    chat = message.chat
    if is_group(chat):
        svc(context).outbox.post(chat.id, text, markup, key=key)
        return
    await message.reply_text(
        text, parse_mode=ParseMode.HTML, reply_markup=markup, disable_web_page_preview=True
    )


async def answer(
    context: Ctx,
    query: CallbackQuery | None,
    message: Message | None,
    text: str,
    alert: bool = True,
) -> None:
    """A plain-text answer: a toast or alert to a press, else a message (escaped: names in
    refusals would otherwise break HTML mode and Telegram would refuse the whole reply)."""
    if query is not None:
        await query.answer(text[:200], show_alert=alert)
    else:
        await reply(context, message, r.esc(text))


async def refuse(
    context: Ctx,
    query: CallbackQuery | None,
    message: Message | None,
    t: Translator,
    refusal: Refusal,
    table: Table | None = None,
) -> None:
    await answer(context, query, message, refusal_text(t, refusal, table), alert=refusal.alert)


async def current_table(context: Ctx, chat_id: int) -> Table | None:
    """The group's live table (None when there is none or it has ended)."""
    record = await svc(context).store.get_game(chat_id)
    if record is None:
        return None
    table = Table.from_dict(record.data)
    return None if table.ending else table


async def group_only(update: Update, context: Ctx) -> bool:
    chat = update.effective_chat
    if is_group(chat):
        return True
    user = update.effective_user
    if user is not None:
        t = await svc(context).t_user(user)
        await reply(context, update.effective_message, t._("This command works in a group chat."))
    return False
