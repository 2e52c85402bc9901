"""Only members of the group join its game (issues 24 and 31).

Whether by the Join button or a join link, a joiner's membership is asked of Telegram (a
``/join`` written in the group proves it); a "yes" is trusted for a few minutes only
(``Services.is_member``). A definite "no" (left, banned, a 400) refuses; a Telegram that
could not answer (a 5xx, a 429, a timeout) seats nobody and says to try again. A member
who leaves the group or is banned from it (a ``chat_member`` update, or the "left" service
message a bot that is not an admin still gets) is forgotten at once and loses their lobby
seat. At the start, those seated through the link are asked again.
"""

from __future__ import annotations

import contextlib
import logging

from telegram import CallbackQuery, ChatMember, Message, Update
from telegram import User as TgUser
from telegram.constants import ChatMemberStatus

from shbot.storage import NoGame, StoreUnavailable
from shbot.table import Refusal, lobby

from .. import render as r
from .common import Ctx, current_table, is_group, reply, svc

log = logging.getLogger(__name__)


async def member_of(
    context: Ctx,
    chat_id: int,
    user: TgUser,
    message: Message | None,
    query: CallbackQuery | None,
    via_private: bool,
) -> bool:
    """Whether ``user`` may join the group's lobby; anyone else is told why, in private (an
    alert to a press, a reply in the private chat)."""
    s = svc(context)
    if query is None and not via_private:  # /join written in the group
        s.note_member(chat_id, user.id)
        return True
    table = await current_table(context, chat_id)
    if table is None or table.game is not None or table.ending or table.player(user.id):
        return True  # nothing to join (or seated already): the join's own answer says so
    inside = await s.is_member(chat_id, user.id)
    if inside:
        return True
    t = await s.t_user(user)
    text = r.member_unknown_text(t) if inside is None else r.not_member_text(t)
    if query is not None:
        await query.answer(text, show_alert=True)
    else:
        await reply(context, message, text)
    return False


def gone(member: ChatMember) -> bool:
    """Left the group, banned from it, or restricted and no longer in it."""
    status = member.status
    if status in (ChatMemberStatus.LEFT, ChatMemberStatus.BANNED):
        return True
    return status == ChatMemberStatus.RESTRICTED and not getattr(member, "is_member", True)


async def unseat(context: Ctx, chat_id: int, user_id: int) -> None:
    """Forget ``user_id``'s membership and take their lobby seat (a running game keeps its
    seats: the timers and stand-ins play for an absent player)."""
    s = svc(context)
    s.forget_member(chat_id, user_id)
    table = await current_table(context, chat_id)
    if table is None or table.game is not None or table.player(user_id) is None:
        return
    with contextlib.suppress(NoGame, Refusal, StoreUnavailable):
        await s.commit.run(chat_id, lambda tb: lobby.leave(tb, user_id))
        log.info("chat %s: a player left the group and lost their lobby seat", chat_id)


async def on_chat_member(update: Update, context: Ctx) -> None:
    """Someone's membership of a group changed (sent to a bot that asks for
    ``chat_member`` updates and is an admin there)."""
    change = update.chat_member
    if change is None or not is_group(change.chat):
        return
    webapp = context.application.bot_data.get("webapp")  # the Mini App asks again too
    if webapp is not None:
        webapp.access.forget(change.chat.id, change.new_chat_member.user.id)
    if gone(change.new_chat_member):
        await unseat(context, change.chat.id, change.new_chat_member.user.id)


async def on_left_member(update: Update, context: Ctx) -> None:
    """The "X left the group" service message (small groups send it to every bot)."""
    message = update.effective_message
    if message is None or message.left_chat_member is None or not is_group(message.chat):
        return
    await unseat(context, message.chat.id, message.left_chat_member.id)


async def drop_strangers(context: Ctx, chat_id: int) -> None:
    """Before a start: those seated through the join link whose membership is not known
    fresh are asked again; one Telegram says is gone loses the seat (the start then counts
    without them). A Telegram that cannot answer keeps them: they were members when seated."""
    s = svc(context)
    table = await current_table(context, chat_id)
    if table is None or table.game is not None or table.ending:
        return
    for user_id in lobby.linked(table):
        if not s.knows_member(chat_id, user_id) and await s.is_member(chat_id, user_id) is False:
            await unseat(context, chat_id, user_id)
