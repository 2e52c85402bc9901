"""Restarting the bot in the middle of a game, as a deploy or a crash would.

A restart discards the ``Application`` (and with it the outbox, the per-chat locks and the
language caches), closes the store object and builds everything anew with
``build_application`` on a store reopened at the same place (same SQLite file, same Redis URL
and prefix), over the *same* :class:`~tests.fake_telegram.FakeBotAPI`: Telegram keeps its
messages, so buttons sent before the restart can still be pressed after it.

``crash=True`` models a killed process: whatever the bot had queued for Telegram but not
delivered yet is lost. :func:`blackhole` makes that deterministic: from then on the outbox
drops everything, so the next press is committed to the store while none of its messages
reach Telegram; the recovery of the next Application must make the game playable again.
"""

from __future__ import annotations

import contextlib
import itertools
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from shbot.bot.app import build_application
from shbot.bot.config import Config
from shbot.storage import GameRecord, Store, open_store
from tests.botplay import Bot
from tests.fake_telegram import FakeBotAPI
from tests.harness import Harness
from tests.redis_server import RedisServer

StoreFactory = Callable[[], Store]


@pytest.fixture(params=["sqlite", "redis"])
def reopen(request: pytest.FixtureRequest, tmp_path: Path) -> StoreFactory:
    """Opens the test's store again (a new bot process would): SQLite file or Redis prefix."""
    if request.param == "sqlite":
        path = str(tmp_path / "shbot.sqlite3")
        return lambda: open_store(sqlite_path=path)
    server: RedisServer = request.getfixturevalue("redis_server")
    prefix: str = request.getfixturevalue("redis_prefix")
    return lambda: open_store(redis_url=server.url, prefix=prefix)


class Restarts:
    """Builds, restarts and finally stops the bot of one test; see the module docstring."""

    def __init__(self, reopen: StoreFactory, fake: FakeBotAPI | None = None) -> None:
        self.reopen = reopen
        self.fake = fake or FakeBotAPI()
        self.count = 0
        self.errors: list[BaseException] = []  # handler errors of discarded Applications
        # Telegram never reuses update or callback query ids; neither may the new harness
        # (the bot deduplicates presses by query id, in the store).
        self._update_ids = itertools.count(1)
        self._query_ids = itertools.count(1)

    async def start(self) -> Bot:
        store = self.reopen()
        app = build_application(
            Config(token=self.fake.token), store, request=self.fake, menus=False
        )
        app.bot._rate_limiter = None  # full speed in real time, as botplay.running_bot does
        app.bot_data["svc"].outbox.pacer.enabled = False
        h = Harness(app, self.fake)
        h._update_ids = self._update_ids
        h._query_ids = self._query_ids
        await h.__aenter__()
        assert app.post_init is not None and app.post_shutdown is not None
        await app.post_init(app)  # as run_polling does: the recovery of running games
        return Bot(self.fake, h, store, app)

    async def stop(self, bot: Bot, *, crash: bool = False) -> None:
        if crash:
            await bot.svc.outbox.close()  # undelivered messages die with the process
        else:
            await bot.settle()
        self.errors.extend(bot.h.errors)
        await bot.h.__aexit__(None, None, None)
        if not crash:
            await bot.app.post_shutdown(bot.app)  # type: ignore[misc]  # as run_polling does
        await bot.store.close()

    async def restart(self, bot: Bot, *, crash: bool = False) -> None:
        """Stop ``bot`` and start a new one in its place (the Bot object is updated)."""
        await self.stop(bot, crash=crash)
        new = await self.start()
        bot.h, bot.store, bot.app = new.h, new.store, new.app
        self.count += 1
        await bot.settle()  # what the recovery sends

    def assert_no_errors(self, bot: Bot) -> None:
        assert not self.errors, f"handler errors before a restart: {self.errors!r}"
        bot.h.assert_no_errors()


def blackhole(bot: Bot) -> None:
    """From now on nothing the bot queues reaches Telegram (until the next restart)."""

    def drop(chat_id: int, record: GameRecord | None, **_: Any) -> None:
        return None

    bot.svc.outbox.committed = drop  # type: ignore[method-assign]


@contextlib.asynccontextmanager
async def restartable_bot(reopen: StoreFactory) -> AsyncIterator[tuple[Restarts, Bot]]:
    restarts = Restarts(reopen)
    bot = await restarts.start()
    try:
        yield restarts, bot
    finally:
        await restarts.stop(bot)
