"""What the bot benchmarks share: a fresh store, the production Application over the fake
Bot API, and small figures (milliseconds, RSS).

The bot benchmarks drive the production Application (shbot.bot.app.build_application)
over the in-process fake Bot API, with simulated players pressing its buttons
(shbot.devtools.driver). They import Telegram only when they run.

``bench bot --before`` measures older checkouts with this version's
:mod:`shbot.bench.measure`, which takes :data:`BOT_PLAYERS`, :func:`bench_store` and
:func:`running_bot` from the checkout it measures: keep their names and signatures.
"""

from __future__ import annotations

import contextlib
import os
import resource
import tempfile
import uuid
from collections.abc import AsyncIterator
from typing import Any

from shbot.bench.registry import Row

BOT_PLAYERS = 7
BOT_CONCURRENCY = (1, 16)


def ms(seconds: float) -> float:
    return round(seconds * 1000, 3)


def rss_mb() -> tuple[float, float]:
    """(current, peak) resident set size of this process in MB, from /proc (Linux)."""
    now = peak = 0.0
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    now = int(line.split()[1]) / 1024
                elif line.startswith("VmHWM:"):
                    peak = int(line.split()[1]) / 1024
    except OSError:
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return round(now, 1), round(peak, 1)


@contextlib.asynccontextmanager
async def bench_store(kind: str, redis_url: str | None = None) -> AsyncIterator[Any]:
    """A fresh store: SQLite in a temporary directory, or Redis under a fresh key prefix
    (deleted afterwards, so an external REDIS_URL stays clean)."""
    from shbot.storage import open_store

    if kind == "sqlite":
        with tempfile.TemporaryDirectory(prefix="shbot-bench-") as tmp:
            store = open_store(sqlite_path=os.path.join(tmp, "bench.sqlite3"))
            try:
                yield store
            finally:
                await store.close()
        return
    from shbot.devtools.redis_server import delete_prefix

    assert redis_url is not None
    prefix = f"bench:{uuid.uuid4().hex[:10]}:"
    store = open_store(redis_url=redis_url, prefix=prefix)
    try:
        yield store
    finally:
        await store.close()
        delete_prefix(redis_url, prefix)


@contextlib.asynccontextmanager
async def running_bot(
    store: Any, *, limiter: bool = False, deck_seed: int | None = None
) -> AsyncIterator[Any]:
    """The production Application over a fresh fake Bot API, started; yields a Driver.

    Without ``limiter`` the bot's pacing is off: the outbox's Pacer (20 calls a minute per
    group, on purpose) and PTB's AIORateLimiter (30 calls a second overall), which a
    throughput measurement must not include. With ``deck_seed`` the games' decks and seats
    come from that seed instead of ``secrets``, so a run can be repeated game for game."""
    from shbot.bot.app import build_application
    from shbot.bot.config import Config
    from shbot.devtools.driver import Driver
    from shbot.devtools.fake_telegram import FakeBotAPI

    fake = FakeBotAPI()
    # Step timers off: a deadline expiring while a large run waits would play moves of its
    # own and make runs differ; arming the jobs is cheap and not measured here.
    config = Config(token=fake.token, timers="off")
    app = build_application(config, store, request=fake, menus=False)
    if not limiter:
        app.bot._rate_limiter = None  # the only way to unplug it from a built Application
        app.bot_data["svc"].outbox.pacer.enabled = False
    if deck_seed is not None:
        seed_decks(app.bot_data["svc"], deck_seed)
    async with Driver(app, fake, store) as driver:
        yield driver


def seed_decks(svc: Any, seed: int) -> None:
    """Games' seeds (deck, seats) from ``seed``: the same bench seed plays the same games
    (the bot draws them from ``secrets``, which no bench can repeat)."""
    import random

    rng = random.Random(f"deck-{seed}")
    svc.new_seed = lambda: rng.getrandbits(63)


def no_redis_row(bench: str, reason: str) -> Row:
    return {"bench": bench, "store": "redis", "skipped": reason}
