"""Simulated Telegram users driving a real PTB ``Application`` over ``FakeBotAPI``.

Updates are genuine ``telegram.Update`` objects built with ``Update.de_json`` from the JSON
Telegram would push, and go through ``Application.process_update``, so filters, handlers,
``CallbackContext`` and error handlers all run as in production. The Harness takes an
Application that is already built (by the bot's own factory, with ``request=fake``), so tests
exercise the production wiring rather than a test-only copy of it.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import re
from collections.abc import Iterable
from dataclasses import dataclass
from types import TracebackType
from typing import Any

from telegram import Update
from telegram.ext import Application, ContextTypes

from shbot.devtools.driver import jobqueue_on_loop_clock, snap_limiter_levels
from tests.fake_telegram import (
    CallbackAnswer,
    FakeBotAPI,
    FakeChat,
    JSONDict,
    StoredMessage,
    utf16_len,
)

_user_ids = itertools.count(100_001)
_group_ids = itertools.count(1)


@dataclass(frozen=True)
class FakeUser:
    """A human Telegram account; ``to_dict`` is the User object Telegram sends."""

    id: int
    first_name: str
    last_name: str | None = None
    username: str | None = None
    language_code: str | None = "en"

    def to_dict(self) -> JSONDict:
        data: JSONDict = {"id": self.id, "is_bot": False, "first_name": self.first_name}
        for key in ("last_name", "username", "language_code"):
            if getattr(self, key) is not None:
                data[key] = getattr(self, key)
        return data

    @property
    def full_name(self) -> str:
        return f"{self.first_name} {self.last_name}" if self.last_name else self.first_name


def make_user(
    first_name: str = "Alice",
    last_name: str | None = None,
    username: str | None = None,
    language_code: str | None = "en",
) -> FakeUser:
    """A user with a fresh id (ids are unique across the whole test session)."""
    return FakeUser(next(_user_ids), first_name, last_name, username, language_code)


def make_users(count: int, language_code: str | None = "en") -> list[FakeUser]:
    """``count`` ordinary players named Player1, Player2, ..."""
    return [
        make_user(f"Player{i}", username=f"player{i}", language_code=language_code)
        for i in range(1, count + 1)
    ]


def html_user() -> FakeUser:
    """Names that break unescaped HTML parse mode (Telegram refuses the whole message)."""
    return make_user("<b>&amp;", last_name="</i><script>", username=None)


def rtl_user() -> FakeUser:
    """A right-to-left override that flips the rest of a line if not isolated."""
    return make_user("\u202eevil\u202c", last_name="\u200fשלום")


def emoji_user() -> FakeUser:
    """Multi-codepoint emoji: ZWJ family and a flag (UTF-16 length != len())."""
    return make_user("👩‍👩‍👧‍👦 Fam", last_name="🇯🇵", language_code="ja")


def long_name_user() -> FakeUser:
    """Telegram's maximum: 64 characters each in first and last name."""
    return make_user("W" * 64, last_name="名" * 64, language_code="ja")


def awkward_users() -> list[FakeUser]:
    """One of each awkward kind, for "every name renders" tests."""
    return [html_user(), rtl_user(), emoji_user(), long_name_user()]


def new_group_id() -> int:
    """A fresh supergroup id in Telegram's -100... range."""
    return -1_000_000_000_000 - next(_group_ids)


# A chat: the FakeChat, its id, or a FakeUser for that user's private chat.
ChatRef = FakeChat | int | FakeUser


def _accepted_texts() -> frozenset[str | None]:
    """Every answer that tells a presser their press went through, in every language: since
    refusals are toasts too (not pop-ups), this is how a test tells the two apart."""
    from shbot.bot.refusals import answer_text
    from shbot.i18n import LANGUAGES, PSEUDO, translator

    texts: set[str | None] = {None}
    for lang in (*LANGUAGES, PSEUDO):
        t = translator(lang)
        texts.update(
            answer_text(t, code)
            for code in ("joined", "left", "vote_ja", "vote_nein", "claimed", "claim_held")
        )
    return frozenset(texts)


ACCEPTED = _accepted_texts()


#: How a late or out-of-turn press is told what is happening instead (English).
LATE = re.compile(
    r"Too late: (\u2068[^\u2068\u2069]+\u2069 (is choosing a Chancellor now|already nominated "
    r"\u2068[^\u2068\u2069]+\u2069 — vote below|and \u2068[^\u2068\u2069]+\u2069 are in "
    r"session now)|President \u2068[^\u2068\u2069]+\u2069 is using a power now)\."
)
NOT_TURN = re.compile(r"It's \u2068[^\u2068\u2069]+\u2069's turn, not yours\.")


def in_capitals(gid: str) -> str:
    """``gid`` forged in capitals, never the genuine id: a game id is random hex
    (``token_hex``), digits only about once in 43 games, and digits have no capitals (an id
    like ``00254340`` in capitals is the genuine button)."""
    shouted = gid.upper()
    return shouted if shouted != gid else "A" + gid[1:]


def refused(answer: CallbackAnswer) -> bool:
    """The press was refused: a pop-up, or a toast that is not one of the accepted answers."""
    return answer.show_alert or answer.text not in ACCEPTED


class Harness:
    """Drives ``app`` as Telegram would, with ``fake`` as the Bot API; see the module docstring.

    Use as ``async with Harness(app, fake) as h:``. Errors reaching the Application's error
    handling are collected in ``errors`` (``capture_errors``) so tests can assert none occurred.
    ``snap_limiters`` and ``loop_clock_jobs`` apply ``snap_limiter_levels`` and
    ``jobqueue_on_loop_clock`` while the harness runs, so virtual-time tests just work.
    """

    def __init__(
        self,
        app: Application[Any, Any, Any, Any, Any, Any],
        fake: FakeBotAPI,
        *,
        capture_errors: bool = True,
        snap_limiters: bool = True,
        loop_clock_jobs: bool = True,
    ) -> None:
        self.app = app
        self._exit_stack = contextlib.ExitStack()
        self._snap_limiters = snap_limiters
        self._loop_clock_jobs = loop_clock_jobs
        self.fake = fake
        self.errors: list[BaseException] = []
        self._update_ids = itertools.count(1)
        self._query_ids = itertools.count(1)
        if capture_errors:
            app.add_error_handler(self._record_error)

    async def _record_error(self, update: object, context: ContextTypes.DEFAULT_TYPE) -> None:
        if context.error is not None:
            self.errors.append(context.error)

    async def __aenter__(self) -> Harness:
        """Initialize and start the Application (JobQueue included), without polling."""
        if self._snap_limiters:
            self._exit_stack.enter_context(snap_limiter_levels())
        if self._loop_clock_jobs:
            self._exit_stack.enter_context(jobqueue_on_loop_clock())
        try:
            await self.app.initialize()
            try:
                await self.app.start()
            except BaseException:
                await self.app.shutdown()
                raise
        except BaseException:
            self._exit_stack.close()
            raise
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        try:
            if self.app.running:
                await self.app.stop()
        finally:
            try:
                await self.app.shutdown()
            finally:
                self._exit_stack.close()

    # ---- chats and users ------------------------------------------------------------------

    def group(
        self,
        chat_id: int | None = None,
        title: str = "Test group",
        *,
        creator: FakeUser | None = None,
        admins: Iterable[FakeUser] = (),
        members: Iterable[FakeUser] = (),
        bot_admin: bool = False,
    ) -> FakeChat:
        """Create a supergroup the bot is in (as admin if ``bot_admin``)."""
        chat = self.fake.add_chat(chat_id or new_group_id(), title=title, bot_admin=bot_admin)
        admins = list(admins)
        for user in [*([creator] if creator else []), *admins, *members]:
            self.fake.add_user(user.to_dict())
            chat.members.add(user.id)
        self.fake.set_admins(
            chat.id, creator=creator.id if creator else None, admins=[u.id for u in admins]
        )
        return chat

    def private(self, user: FakeUser) -> FakeChat:
        """The user's private chat with the bot (it exists even before they press Start)."""
        return self.fake.private_chat(user.to_dict())

    def open_private(self, user: FakeUser) -> FakeChat:
        """The user pressed Start earlier: the bot may now write to them."""
        chat = self.private(user)
        self.fake.started.add(user.id)
        self.fake.blocked.discard(user.id)
        return chat

    def block(self, user: FakeUser) -> None:
        """The user blocked the bot: sends to them now fail with 403."""
        self.fake.blocked.add(user.id)

    def _chat(self, chat: ChatRef) -> FakeChat:
        if isinstance(chat, FakeChat):
            return chat
        if isinstance(chat, FakeUser):
            return self.private(chat)
        found = self.fake.chats.get(chat)
        if found is None:
            raise LookupError(f"unknown chat {chat}; create it with h.group() or h.private()")
        return found

    # ---- feeding updates ------------------------------------------------------------------

    async def feed(self, payload: JSONDict) -> Update:
        """Process one update given as Bot API JSON (``update_id`` is filled in)."""
        update = Update.de_json({"update_id": next(self._update_ids), **payload}, self.app.bot)
        await self.app.process_update(update)
        return update

    async def enqueue(self, payload: JSONDict) -> Update:
        """Put an update on the Application's queue, as polling would; see ``settle``."""
        update = Update.de_json({"update_id": next(self._update_ids), **payload}, self.app.bot)
        await self.app.update_queue.put(update)
        return update

    async def settle(self, timeout: float = 10.0) -> None:
        """Wait until queued updates and ``create_task``/non-blocking handler tasks are done."""
        async with asyncio.timeout(timeout):
            await self.app.update_queue.join()
            # PTB keeps no public handle on these; the name-mangled set is what stop() awaits.
            tasks: set[asyncio.Task[Any]] = getattr(
                self.app, "_Application__create_task_tasks", set()
            )
            while pending := [t for t in tasks if not t.done()]:
                await asyncio.gather(*pending, return_exceptions=True)

    def _message_payload(
        self, user: FakeUser, chat: ChatRef, text: str, entities: list[JSONDict] | None
    ) -> JSONDict:
        if chat == user.id or chat == user:
            chat = self.private(user)
        target = self._chat(chat)
        if target.type == "private":
            if target.id != user.id:
                raise ValueError("a private chat's id is its user's id")
            self.open_private(user)  # writing to the bot implies having pressed Start
        message = self.fake.receive_message(target.id, user.to_dict(), text, entities)
        return {"message": message.to_dict()}

    async def text(self, user: FakeUser, chat: ChatRef, text: str) -> StoredMessage:
        """``user`` writes plain ``text`` in ``chat``; returns the stored message."""
        payload = self._message_payload(user, chat, text, None)
        await self.feed(payload)
        return self.fake.message(self._chat(chat).id, payload["message"]["message_id"])

    async def command(
        self,
        user: FakeUser,
        chat: ChatRef,
        command: str,
        *,
        mention_bot: bool = False,
        wait: bool = True,
    ) -> StoredMessage:
        """``user`` sends a command such as "/newgame" or "/start payload".

        The first word gets the ``bot_command`` entity; ``mention_bot`` appends @botname as
        Telegram clients do in groups with several bots. ``wait``: return once the bot's
        replies are delivered (as a person waits for the answer), else at once.
        """
        if not command.startswith("/"):
            raise ValueError("commands start with /")
        head, sep, rest = command.partition(" ")
        if mention_bot:
            head = f"{head}@{self.fake.bot_username}"
        text = f"{head}{sep}{rest}"
        entity = {"type": "bot_command", "offset": 0, "length": utf16_len(head)}
        payload = self._message_payload(user, chat, text, [entity])
        await self.feed(payload)
        if wait:
            await self.replies_delivered()
        return self.fake.message(self._chat(chat).id, payload["message"]["message_id"])

    async def replies_delivered(self, timeout: float = 600.0) -> None:
        """The bot paces its replies in groups with its game messages: wait for them, as a
        person waits to read the answer to a command."""
        svc = self.app.bot_data.get("svc")
        if svc is not None:
            await svc.outbox.join(timeout=timeout)

    async def press(
        self,
        user: FakeUser,
        message: StoredMessage,
        *,
        text: str | None = None,
        data: str | None = None,
        member: bool = True,
    ) -> str:
        """``user`` presses the button (by text or callback_data) of a message; returns the
        callback query id (see ``answer``). ``member=False``: a visitor of a public group,
        who sees its buttons without being a member."""
        current = self.fake.message(message.chat_id, message.message_id)
        if current.deleted:
            raise LookupError(f"message {message.message_id} was deleted; nothing to press")
        button = current.button(text=text, data=data)
        if "callback_data" not in button:
            raise ValueError(f"button {button} sends no callback query")
        return await self.press_raw(
            user, current.chat_id, current.message_id, button["callback_data"], member=member
        )

    async def press_raw(
        self, user: FakeUser, chat_id: int, message_id: int, data: str, *, member: bool = True
    ) -> str:
        """A callback query with arbitrary (possibly forged or stale) data."""
        query_id = f"{user.id}{next(self._query_ids):08d}"
        self.fake.add_user(user.to_dict())
        chat = self._chat(chat_id)
        if chat.type != "private" and member:
            chat.members.add(user.id)
        try:
            stored = self.fake.message(chat_id, message_id)
            message = None if stored.deleted else stored.to_dict()
        except KeyError:
            message = None
        if message is None:  # Telegram sends an InaccessibleMessage (date 0) then
            message = {"chat": chat.to_dict(), "message_id": message_id, "date": 0}
        self.fake.register_callback_query(query_id, user.id)
        await self.feed(
            {
                "callback_query": {
                    "id": query_id,
                    "from": user.to_dict(),
                    "message": message,
                    "chat_instance": str(abs(chat_id) * 7 + 3),
                    "data": data,
                }
            }
        )
        return query_id

    # ---- reading --------------------------------------------------------------------------

    def last(self, chat: ChatRef) -> StoredMessage:
        """The bot's newest visible message in a chat."""
        chat_id = chat.id if isinstance(chat, FakeChat | FakeUser) else chat
        return self.fake.last(chat_id)

    def private_messages(self, user: FakeUser) -> list[StoredMessage]:
        """What the bot sent ``user`` privately (not deleted), oldest first."""
        return self.fake.messages(user.id)

    def refused(self, query_id: str) -> bool:
        return refused(self.answer(query_id))

    def answer(self, query_id: str) -> CallbackAnswer:
        """The bot's answer to one callback query."""
        return self.fake.answer_for(query_id)

    def answers_for(self, user: FakeUser) -> list[CallbackAnswer]:
        """Every callback answer (toasts and alerts) ``user`` received, oldest first."""
        return [a for a in self.fake.answers if a.user_id == user.id]

    def alerts_for(self, user: FakeUser) -> list[str]:
        """Texts of the refusals ``user`` received (toasts or pop-ups; see :func:`refused`)."""
        return [a.text or "" for a in self.answers_for(user) if refused(a)]

    def assert_no_errors(self) -> None:
        """Fail if a handler or job raised, or the bot called a method the fake lacks."""
        assert not self.errors, f"handler errors: {self.errors!r}"
        assert not self.fake.unknown_calls, f"unknown API methods: {self.fake.unknown_calls!r}"
