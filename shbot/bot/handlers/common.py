"""What every handler family shares: the services, who is a person, limits, plain replies."""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Callable, Coroutine
from typing import Any, cast

from telegram import CallbackQuery, Chat, Message, Update, User
from telegram.constants import ChatType
from telegram.error import BadRequest
from telegram.ext import ApplicationHandlerStop, ContextTypes

from shbot.i18n import Translator, normalize
from shbot.storage import NoGame
from shbot.table import Player, Refusal, Table, clean_name
from shbot.table.outcome import Outcome

from .. import callbacks as cb
from .. import render as r
from ..delivery.answers import Press, again
from ..delivery.answers import current as current_press
from ..delivery.commit import Change
from ..refusals import refusal_text
from ..services import Services

log = logging.getLogger(__name__)
Ctx = ContextTypes.DEFAULT_TYPE

#: Telegram's "GroupAnonymousBot": every anonymous admin of every group posts as this user.
ANONYMOUS_ADMIN = 1087968824
#: "Channel_Bot": a member posting in a group as one of their channels.
CHANNEL_BOT = 136817688
#: Telegram's own account: automatic forwards from a group's linked channel, service notices.
TELEGRAM = 777000
#: Accounts that stand for someone else (or many): never one person, never a player.
STAND_INS = frozenset({ANONYMOUS_ADMIN, CHANNEL_BOT, TELEGRAM})

#: Informational answers (/help, /rules, /board, /history, /ping, /stats, unknown commands):
#: per sender and chat, INFO_BURST at once, then one more every INFO_EVERY seconds; the rest
#: is ignored without a word, so nobody can fill a group's message window with them.
INFO_BURST, INFO_EVERY = 3, 10.0
#: Repeats (the same button or command again within REPEAT_WINDOW seconds) and malformed
#: button data: per sender, REPEAT_BURST presses at once, then REPEAT_RATE a second; beyond
#: that no handler runs: a press is still answered, with what the sender was last told under
#: that message (see answers.Presses), a command is dropped. A repeated command may cost a
#: message in the group: COMMAND_BURST of them, then one every COMMAND_EVERY seconds.
REPEAT_BURST, REPEAT_RATE, REPEAT_WINDOW = 20, 2.0, 10.0
COMMAND_BURST, COMMAND_EVERY = 3, 10.0
MAX_KEYS = 100_000  # bounded memory: forgetting a bucket only gives its owner a fresh burst


def svc(context: Ctx) -> Services:
    return cast(Services, context.application.bot_data["svc"])


def is_group(chat: Chat | None) -> bool:
    return chat is not None and chat.type in (ChatType.GROUP, ChatType.SUPERGROUP)


def is_person(user: User | None, message: Message | None = None) -> bool:
    """Only people play: not bots, not a group's anonymous admins, not channels (nor any
    other of Telegram's stand-in accounts, nor a message posted as a chat)."""
    if user is None or user.is_bot or user.id in STAND_INS:
        return False
    return message is None or message.sender_chat is None


def posts_as_group(message: Message | None, chat_id: int) -> bool:
    """An anonymous admin: Telegram shows the message as sent by the group itself."""
    sender_chat = message.sender_chat if message is not None else None
    return sender_chat is not None and sender_chat.id == chat_id


async def is_group_admin(
    context: Ctx, chat_id: int, user: User | None, message: Message | None = None
) -> bool:
    """Admin rights in ``chat_id``: an anonymous admin of that group has them (recognised by
    the chat it posts as, never by the user id all anonymous admins share); a channel, a bot
    or a stand-in account never has them; a person is asked about (cached)."""
    if posts_as_group(message, chat_id):
        return True
    if user is None or not is_person(user, message):
        return False
    return await svc(context).is_admin(chat_id, user.id)


def sender_of(update: Update) -> int | None:
    """Whom limits count against: the chat a message was posted as (a channel; a group for
    its anonymous admins), else the user; None for updates without a sender."""
    message = update.message or update.edited_message
    if message is not None and message.sender_chat is not None:
        return message.sender_chat.id
    user = update.effective_user
    return user.id if user is not None else None


class Budget:
    """Token buckets by key: ``burst`` at once, then one more every ``every`` seconds, on the
    event loop's clock (virtual under looptime in tests)."""

    def __init__(self, burst: float, every: float) -> None:
        self.burst, self.every = burst, every
        self._buckets: dict[Any, tuple[float, float]] = {}

    def take(self, key: Any) -> bool:
        """Spend one token of ``key``'s bucket; False if it is empty."""
        now = asyncio.get_running_loop().time()
        tokens, last = self._buckets.get(key, (self.burst, now))
        tokens = min(self.burst, tokens + max(0.0, now - last) / self.every)
        if len(self._buckets) > MAX_KEYS:
            self._buckets.clear()
        if tokens < 1:
            self._buckets[key] = (tokens, now)
            return False
        self._buckets[key] = (tokens - 1, now)
        return True


def _budget(context: Ctx, name: str, burst: float, every: float) -> Budget:
    data = context.application.bot_data
    budget = data.get(name)
    if not isinstance(budget, Budget):
        budget = data[name] = Budget(burst, every)
    return budget


def may_inform(update: Update, context: Ctx) -> bool:
    """May this sender get one more informational answer in this chat now?"""
    sender, chat = sender_of(update), update.effective_chat
    if sender is None or chat is None:
        return False
    return _budget(context, "info_budget", INFO_BURST, INFO_EVERY).take((chat.id, sender))


Callback = Callable[[Update, Ctx], Coroutine[Any, Any, None]]


def informational(callback: Callback) -> Callback:
    """A command whose answer only informs: limited per sender and chat (see INFO_BURST)."""

    async def limited(update: Update, context: Ctx) -> None:
        if may_inform(update, context):
            await callback(update, context)

    limited.__name__ = getattr(callback, "__name__", "informational")
    limited.__doc__ = callback.__doc__
    return limited


def _what(update: Update) -> tuple[str, bool] | None:
    """What an update asks for (a press: "q..."; a command: "m..."; to recognise a repeat),
    and whether it is malformed."""
    query = update.callback_query
    if query is not None:
        data = query.data
        malformed = not data or not data.isascii() or cb.parse(data) is None
        return f"q{data!r}"[:80], malformed
    message = update.message
    if message is not None and message.text and message.text.startswith("/"):
        return f"m{message.chat.id}:{message.text[:64]}", False
    return None  # chatter is nobody's business (and reaches no handler)


def no_sender(update: Update) -> bool:
    """A press or a message without any sender (Telegram sends none, but a forged or
    broken update must not reach a handler that reads ``from_user``)."""
    query = update.callback_query
    if query is not None:
        return query.from_user is None
    message = update.message or update.edited_message
    return message is not None and message.from_user is None and message.sender_chat is None


async def flood_guard(update: object, context: Ctx) -> None:
    """Registered ahead of every handler: the same button pressed or command sent again and
    again (or malformed data) beyond its sender's budget reaches no handler (see
    REPEAT_BURST); every press is followed from here to its answer (answers.Presses)."""
    if not isinstance(update, Update):
        return
    if no_sender(update):
        raise ApplicationHandlerStop  # nobody to answer or to seat: ignored quietly
    press = arrived(update, context)
    sender = sender_of(update)
    what = _what(update)
    if sender is None or what is None:
        return
    data = context.application.bot_data
    recent: dict[int, deque[tuple[str, float]]] = data.setdefault("recent_updates", {})
    now = asyncio.get_running_loop().time()
    mine = recent.get(sender)
    if mine is None:
        if len(recent) > MAX_KEYS:
            recent.clear()
        mine = recent[sender] = deque(maxlen=8)
    key, malformed = what
    repeat = any(k == key and now - at <= REPEAT_WINDOW for k, at in mine)
    mine.append((key, now))
    if not (repeat or malformed):
        return
    if key.startswith("q"):
        budget = _budget(context, "repeat_budget", REPEAT_BURST, 1 / REPEAT_RATE)
    else:
        budget = _budget(context, "command_budget", COMMAND_BURST, COMMAND_EVERY)
    if budget.take(sender):
        return
    log.debug("ignoring a repeated update from %s", sender)
    if press is not None and update.callback_query is not None:
        press.excess = True
        context.application.create_task(
            answer_excess(context, update.callback_query, press, malformed), update=update
        )
    raise ApplicationHandlerStop


def arrived(update: Update, context: Ctx) -> Press | None:
    """A press is followed until it is answered (see answers.Presses)."""
    query = update.callback_query
    if query is None:
        return None
    message = query.message
    where = (message.chat.id, message.message_id) if message is not None else (0, 0)
    return svc(context).presses.arrived(query.from_user.id, where, query.id)


async def answer_excess(context: Ctx, query: CallbackQuery, press: Press, malformed: bool) -> None:
    """A press beyond the flood guard's budget changes nothing, yet is answered (once: not
    a query delivered again): malformed data as not valid, else as the sender's newest
    answer under the same message (the stored vote, a refusal), else plainly. Never a
    traceback: the answer is a courtesy to a flood."""
    s = svc(context)
    if press.again:  # Telegram delivered this query before: that delivery answers it
        s.presses.finished(press)
        return
    try:
        said = None if malformed else await s.presses.told(press)
        if said is None:
            t = await s.t_user(query.from_user)
            await query.answer(refusal_text(t, Refusal("invalid" if malformed else "flood")))
        else:
            await query.answer(again(said), show_alert=said.alert)
    except Exception:
        log.info("could not answer a press beyond the flood budget", exc_info=True)
    finally:
        s.presses.finished(press)


async def press_done(update: object, context: Ctx) -> None:
    """Registered after every handler: this update's press (if any) is done."""
    press = current_press()
    if press is not None:
        press.registry.finished(press)


def player_from(user: User, ready: bool) -> Player:
    return Player(
        user.id, clean_name(user.full_name, f"#{user.id}"), normalize(user.language_code), ready
    )


async def reply(
    context: Ctx, message: Message | None, text: str, markup: Any = None, *, key: str | None = None
) -> None:
    """A direct answer to a command, paced with everything else the bot sends (a group's
    20 a minute, a private chat's, 25 a second overall: forty people opening the private
    chat at once must not earn a 429) and coalesced by ``key``."""
    if message is None:
        return
    svc(context).outbox.post(message.chat.id, text, markup, key=key)


async def answer(
    context: Ctx,
    query: CallbackQuery | None,
    message: Message | None,
    text: str,
    alert: bool = False,
) -> None:
    """A plain-text answer: a toast or alert to a press, else a message (escaped: names in
    refusals would otherwise break HTML mode and Telegram would refuse the whole reply). In a
    group, a newer answer to the same sender replaces one still unsent."""
    if query is not None:
        await query.answer(text[:200], show_alert=alert)
    elif message is not None:
        sender = message.sender_chat or message.from_user
        key = f"to:{sender.id}" if sender is not None else None
        await reply(context, message, r.esc(text), key=key)


async def answer_redelivered(context: Ctx, query: CallbackQuery | None) -> None:
    """A press that an earlier delivery of it already applied (the commit's "duplicate").
    If an earlier process committed it, that process may have died before answering (a
    kill -9): the player's button would spin, so answer it, once, without words (Telegram
    refuses a second answer, which changes nothing). A press this process or a live peer
    committed is answered by whoever committed it: nothing more to send."""
    if query is None or f"cq:{query.id}" not in svc(context).inherited:
        return
    svc(context).inherited.discard(f"cq:{query.id}")
    try:
        await query.answer()
    except BadRequest:
        log.info("a press delivered again after a restart was already answered")


async def refuse(
    context: Ctx,
    query: CallbackQuery | None,
    message: Message | None,
    t: Translator,
    refusal: Refusal,
    table: Table | None = None,
) -> None:
    await answer(context, query, message, refusal_text(t, refusal, table), alert=refusal.alert)


def press_key(query: CallbackQuery | None) -> str | None:
    """The key that recognises a press delivered twice (it rides in the commit's write)."""
    return f"cq:{query.id}" if query is not None else None


async def commit_or_refuse(
    context: Ctx,
    chat_id: int,
    change: Change,
    message: Message | None,
    query: CallbackQuery | None,
    t: Translator,
) -> Outcome | None:
    """Commit ``change``; None once a refusal was told to the presser (a toast or a reply),
    or the same press came twice."""
    try:
        return await svc(context).commit.run(chat_id, change, update_key=press_key(query))
    except NoGame:
        await answer(context, query, message, t._("There is no open game. /newgame opens one."))
    except Refusal as refusal:
        if refusal.code == "duplicate":
            await answer_redelivered(context, query)
        else:
            await refuse(context, query, message, t, refusal)
    return None


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
