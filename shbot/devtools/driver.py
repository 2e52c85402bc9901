"""Simulated players driving the real bot through :class:`FakeBotAPI`, for the benchmarks.

A trimmed-down cousin of ``tests/harness.py`` and ``tests/botplay.py`` that the installed
package can import. Updates are genuine ``telegram.Update`` objects fed to
``Application.process_update``; every move is a button press on a message the bot sent, found
through the game's current step (read from the store, as a player reads the screen), so the
bot's handlers, store, outbox and (optionally) rate limiter all do their real work.

Moves are produced by :class:`GameRun`, one at a time, so a benchmark can interleave many
games and time only the bot's share of the work (:meth:`Driver.feed`).
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import itertools
import random
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any
from unittest import mock

from telegram import Update
from telegram.ext import JobQueue

from shbot.bot import callbacks as cb
from shbot.bot.services import Services
from shbot.engine import Phase
from shbot.storage import Store
from shbot.table.lobby import MAX_PLAYERS
from shbot.table.model import Table

from .fake_telegram import FakeBotAPI, JSONDict, StoredMessage, utf16_len

AnyApp = Any  # Application[...] with six type parameters; nothing here depends on them

_user_ids = itertools.count(200_001)
_group_ids = itertools.count(1)
GROUP_OPS = frozenset({cb.NOMINATE, cb.VOTE})
PRIVATE_OPS = frozenset({cb.DISCARD, cb.ENACT, cb.VETO, cb.VETO_ANSWER, cb.TARGET})


@dataclass(frozen=True)
class FakeUser:
    """A human Telegram account; ``to_dict`` is the User object Telegram sends."""

    id: int
    first_name: str
    language_code: str = "en"

    def to_dict(self) -> JSONDict:
        return {
            "id": self.id,
            "is_bot": False,
            "first_name": self.first_name,
            "language_code": self.language_code,
        }


def make_users(count: int) -> list[FakeUser]:
    """``count`` players with fresh ids (unique in the process)."""
    return [FakeUser(next(_user_ids), f"Player{i}") for i in range(1, count + 1)]


def new_group_id() -> int:
    """A fresh supergroup id in Telegram's -100... range."""
    return -1_000_000_000_000 - next(_group_ids) * 1000 - random.randrange(1000)


# ----------------------------------------------------------------------------- virtual time


@contextlib.contextmanager
def snap_limiter_levels() -> Iterator[None]:
    """Round aiolimiter bucket levels that float drift left a hair above an integer.

    Under a frozen virtual clock (looptime) ``AsyncLimiter`` can livelock: after leaking,
    its level is e.g. 9.000000000000002 instead of 9, so it re-arms its wake-up timer for
    *now* forever and virtual time never advances. Real clocks move on, so production is
    unaffected; snapping within 1e-9 of a request changes nothing measurable.
    """
    from aiolimiter import AsyncLimiter

    original = AsyncLimiter._leak

    def leak(self: AsyncLimiter) -> None:
        original(self)
        nearest = round(self._level)
        if abs(self._level - nearest) < 1e-9:
            self._level = float(nearest)

    with mock.patch.object(AsyncLimiter, "_leak", leak):
        yield


@contextlib.contextmanager
def jobqueue_on_loop_clock() -> Iterator[None]:
    """Make PTB's JobQueue (APScheduler) read "now" from the running loop's clock.

    APScheduler sleeps with ``loop.call_later`` but decides what is due with
    ``datetime.now()``; under virtual time (looptime) the sleep ends at once while the wall
    clock has not moved, so jobs never fire. Anchored at entry, "now" here is the wall time
    then plus the loop time elapsed since: identical in real time, virtual under looptime.
    """
    loop = asyncio.get_running_loop()
    wall0, loop0 = dt.datetime.now(dt.UTC), loop.time()

    def now(tz: dt.tzinfo | None = None) -> dt.datetime:
        current = wall0 + dt.timedelta(seconds=loop.time() - loop0)
        return (
            current.astimezone(tz) if tz is not None else current.astimezone().replace(tzinfo=None)
        )

    class LoopDatetime(dt.datetime):
        @classmethod
        def now(cls, tz: dt.tzinfo | None = None) -> dt.datetime:  # type: ignore[override]
            return now(tz)

    with contextlib.ExitStack() as stack:
        stack.enter_context(
            mock.patch.object(JobQueue, "_tz_now", lambda self: now(self.scheduler.timezone))
        )
        for module in (
            "apscheduler.schedulers.base",
            "apscheduler.triggers.date",
            "apscheduler.triggers.interval",
        ):
            stack.enter_context(mock.patch(f"{module}.datetime", LoopDatetime))
        yield


# ----------------------------------------------------------------------------- driver


class Players:
    """Simulated users: chats in ``fake``, and the updates their actions send to the bot.

    ``store`` is the bot's store, read (never written) to know whose turn it is."""

    def __init__(self, fake: FakeBotAPI, store: Store) -> None:
        self.fake = fake
        self.store = store
        self._query_ids = itertools.count(1)

    async def settle(self, timeout: float | None = None) -> None:
        """Wait until the bot has delivered what it queued (see subclasses)."""
        raise NotImplementedError

    def group(self, users: list[FakeUser]) -> int:
        """A new supergroup holding ``users`` (the first one its creator)."""
        chat = self.fake.add_chat(new_group_id(), title="Bench group")
        for user in users:
            self.fake.add_user(user.to_dict())
            self.fake.started.add(user.id)
            chat.members.add(user.id)
        self.fake.set_admins(chat.id, creator=users[0].id)
        return chat.id

    def command(self, user: FakeUser, chat_id: int, command: str) -> JSONDict:
        """The update for ``user`` sending ``command`` in ``chat_id``."""
        self.fake.private_chat(user.to_dict())
        head = command.split(" ", 1)[0]
        entity = {"type": "bot_command", "offset": 0, "length": utf16_len(head)}
        message = self.fake.receive_message(chat_id, user.to_dict(), command, [entity])
        return {"message": message.to_dict()}

    def press(self, user: FakeUser, message: StoredMessage, data: str) -> JSONDict:
        """The update for ``user`` pressing the button ``data`` of ``message``."""
        query_id = f"{user.id}{next(self._query_ids):09d}"
        self.fake.register_callback_query(query_id, user.id)
        return {
            "callback_query": {
                "id": query_id,
                "from": user.to_dict(),
                "message": message.to_dict(),
                "chat_instance": str(abs(message.chat_id) * 7 + 3),
                "data": data,
            }
        }


class Driver(Players):
    """Feeds updates to ``app`` (an Application built over ``fake``) and times each one.

    ``latencies`` holds the seconds ``process_update`` took for every fed update while
    ``timing`` is true. Errors that reach the Application's error handlers are collected in
    ``errors``: a benchmark of a failing bot would measure nothing useful.
    """

    def __init__(self, app: AnyApp, fake: FakeBotAPI, store: Store) -> None:
        super().__init__(fake, store)
        self.app = app
        self.latencies: list[float] = []
        self.timing = True
        self.errors: list[BaseException] = []
        self._update_ids = itertools.count(1)
        app.add_error_handler(self._record_error)

    async def _record_error(self, update: object, context: Any) -> None:
        if context.error is not None:
            self.errors.append(context.error)

    @property
    def svc(self) -> Services:
        svc: Services = self.app.bot_data["svc"]
        return svc

    async def __aenter__(self) -> Driver:
        await self.app.initialize()
        await self.app.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        try:
            with contextlib.suppress(TimeoutError):
                await self.settle(60)
            if self.app.running:
                await self.app.stop()
        finally:
            await self.app.shutdown()

    async def settle(self, timeout: float | None = None) -> None:
        """Wait until every message the bot queued has been delivered."""
        await self.svc.outbox.join(timeout=timeout)

    async def feed(self, payload: JSONDict) -> None:
        """Process one update (Bot API JSON without ``update_id``), timing the bot's work."""
        update = Update.de_json({"update_id": next(self._update_ids), **payload}, self.app.bot)
        start = time.perf_counter()
        await self.app.process_update(update)
        if self.timing:
            self.latencies.append(time.perf_counter() - start)


def _step_message(
    fake: FakeBotAPI, chat_id: int, prefix: str, ops: frozenset[str]
) -> StoredMessage | None:
    """The newest message in ``chat_id`` with a button of the current step for ``ops``."""
    for message in reversed(fake.messages(chat_id)):
        for button in message.buttons():
            data = button.get("callback_data", "")
            if data.startswith(prefix):
                press = cb.parse(data)
                if isinstance(press, cb.GamePress) and press.op in ops:
                    return message
    return None


def _options(message: StoredMessage, prefix: str) -> list[tuple[str, str]]:
    out = []
    for button in message.buttons():
        data = button.get("callback_data", "")
        if data.startswith(prefix):
            press = cb.parse(data)
            if isinstance(press, cb.GamePress):
                out.append((press.op, data))
    return out


class NotReady(Exception):
    """The buttons for the next move are not on screen yet (messages still queued)."""


class LostUpdate(AssertionError):
    """A press the bot had accepted is asked for again: the game lost an update."""


class GameRun:
    """One game from ``/newgame`` to its end, as a sequence of updates.

    :meth:`next_update` returns the next update to feed (None once the game is over), or
    raises :class:`NotReady` when the buttons it needs have not been delivered yet. Players
    pick at random among the offered buttons (Ja with probability ``ja``), so games vary
    with ``seed`` and always end.
    """

    def __init__(
        self, driver: Players, users: list[FakeUser], seed: int, *, ja: float = 0.7
    ) -> None:
        self.driver = driver
        self.users = users
        self.by_id = {u.id: u for u in users}
        self.rng = random.Random(seed)
        self.ja = ja
        self.group_id = driver.group(users)
        self.updates = 0
        self.done = False
        self._script: list[Callable[[], JSONDict]] = [
            # Each player opens the private chat first: the lobby waits for that.
            *(lambda u=u: driver.command(u, u.id, "/start") for u in users),
            lambda: driver.command(users[0], self.group_id, "/newgame"),
            *(lambda u=u: self._lobby_press(u, cb.JOIN) for u in users[1:]),
            # A full table starts by itself when its last player joins: no Start to press.
            *([lambda: self._lobby_press(users[0], cb.START)] if len(users) < MAX_PLAYERS else []),
        ]
        self.gid: str | None = None
        self.pressed: set[tuple[int, int]] = set()  # (step, seat) of every press sent

    def _lobby_press(self, user: FakeUser, op: str) -> JSONDict:
        fake = self.driver.fake
        for message in reversed(fake.messages(self.group_id)):
            for button in message.buttons():
                press = cb.parse(button.get("callback_data", ""))
                if isinstance(press, cb.GamePress) and press.op == op and press.step == 0:
                    return self.driver.press(user, message, button["callback_data"])
        raise NotReady(f"no lobby button {op!r} in {self.group_id}")

    async def next_update(self) -> JSONDict | None:
        """The next update of this game (one press, or one lobby step)."""
        updates = await self.next_updates(all_voters=False)
        return updates[0] if updates else None

    async def next_updates(self, *, all_voters: bool = True) -> list[JSONDict]:
        """The updates that may be sent now: during a vote, with ``all_voters``, one ballot
        from every player who has not voted yet (they press at the same moment)."""
        if self.done:
            return []
        if self._script:
            payload = self._script[0]()
            self._script.pop(0)
            self.updates += 1
            return [payload]
        record = await self.driver.store.get_game(self.group_id)
        table = Table.from_dict(record.data) if record is not None else None
        if table is None or table.game is None or (self.gid and table.gid != self.gid):
            if self.gid is None:
                raise NotReady("the game has not started yet")
            self.done = True
            return []
        self.gid = table.gid
        game = table.game
        pending = game.to_act()
        if table.ending or game.phase is Phase.GAME_OVER:
            # Over: an ended game stays in the store until its last messages are delivered
            # (then it is archived), so "no game" is not the only sign of the end.
            self.done = True
            return []
        if not pending:
            raise NotReady(f"nobody to act at step {table.step} ({game.phase.value})")
        seats = pending if all_voters and game.phase is Phase.VOTE else pending[:1]
        prefix = f"{table.gid}:{table.step}:"
        chosen = []
        for seat in seats:  # find every button first: NotReady must leave no trace
            user = self.by_id[table.at(seat).id]
            if game.phase in (Phase.NOMINATE, Phase.VOTE):
                message = _step_message(self.driver.fake, self.group_id, prefix, GROUP_OPS)
            else:
                message = _step_message(self.driver.fake, user.id, prefix, PRIVATE_OPS)
            if message is None:
                raise NotReady(f"no buttons for step {table.step} ({game.phase.value})")
            if (table.step, seat) in self.pressed:
                # The bot accepted this player's press for this step, yet still waits for
                # it: an update was lost (or applied to a stale copy of the game).
                raise LostUpdate(f"game {table.gid}: seat {seat} asked twice at step {table.step}")
            chosen.append((seat, user, message))
        out = []
        for seat, user, message in chosen:
            self.pressed.add((table.step, seat))
            options = _options(message, prefix)
            if game.phase is Phase.VOTE:
                want = "1" if self.rng.random() < self.ja else "0"
                data = next(d for op, d in options if op == cb.VOTE and d.endswith(":" + want))
            else:
                mine = [d for op, d in options if op in PRIVATE_OPS | {cb.NOMINATE}]
                data = self.rng.choice(mine)
            self.updates += 1
            out.append(self.driver.press(user, message, data))
        return out
