"""``bench bot``'s measurement, self-contained so that it can measure older checkouts too.

:func:`measure` plays ``games`` 7-player games at once through the real Application and
times only the bot's work (feeding the updates, then delivering what its outbox queued);
a :class:`StoreMeter` counts what the bot asks of the store meanwhile.

``bench bot --before PATH`` (:mod:`shbot.bench.compare`) runs this file as a child process
(``python -c <this file>``) with ``PYTHONPATH`` at either checkout, so both are measured by
the same code. It therefore imports nothing of shbot at module level, and in a child relies
only on what every version since the devtools has: ``BOT_PLAYERS``, a store and a running
bot from ``shbot.bench.common`` (in checkouts from before ``shbot/bench/`` was a package:
``shbot.bench.BOT_PLAYERS``, ``_store`` and ``_running_bot``), and ``shbot.devtools.driver``.
"""

from __future__ import annotations

import asyncio
import importlib
import json
import math
import os
import sys
import time
from collections import Counter
from collections.abc import Sequence
from typing import Any

#: The store's methods that write (``update_game`` writes through ``save_game``).
WRITES = (
    "save_game",
    "create_game",
    "delete_game",
    "first_seen",
    "claim_player",
    "release_players",
    "update_group",
    "update_user",
    "record_result",
    "subscribe_next",
    "pop_subscribers",
)
PLAYER_READS = 32  # games whose next move is looked up at once (the store's pool has 50)


class StoreMeter:
    """Counts what the bot asks of ``store`` while ``on`` (the timed part of a run, so the
    players' own reads are left out): storage writes (any method in :data:`WRITES`, by
    name) and, on Redis, the commands its client sends (a script call counts one, a
    pipeline its queued commands plus MULTI/EXEC) and the round trips (a pipeline: one)."""

    def __init__(self, store: Any) -> None:
        self.on = False
        self.commands = self.round_trips = 0
        self.by_method: Counter[str] = Counter()
        for name in WRITES:
            if hasattr(store, name):
                setattr(store, name, self._counted(name, getattr(store, name)))
        client = getattr(store, "_r", None)  # RedisStore's redis.asyncio client
        if client is not None:
            self._count_redis(client)

    @property
    def writes(self) -> int:
        return sum(self.by_method.values())

    def _counted(self, name: str, method: Any) -> Any:
        async def counted(*args: Any, **kwargs: Any) -> Any:
            if self.on:
                self.by_method[name] += 1
            return await method(*args, **kwargs)

        return counted

    def _count_redis(self, client: Any) -> None:
        execute_command, pipeline = client.execute_command, client.pipeline

        async def counted_command(*args: Any, **kwargs: Any) -> Any:
            if self.on:
                self.commands += 1
                self.round_trips += 1
            return await execute_command(*args, **kwargs)

        def counted_pipeline(*args: Any, **kwargs: Any) -> Any:
            pipe = pipeline(*args, **kwargs)
            execute = pipe.execute

            async def counted_execute(*a: Any, **k: Any) -> Any:
                if self.on:
                    self.commands += len(pipe.command_stack) + 2 * bool(pipe.is_transaction)
                    self.round_trips += 1
                return await execute(*a, **k)

            pipe.execute = counted_execute
            return pipe

        client.execute_command = counted_command
        client.pipeline = counted_pipeline


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q`` quantile (0..1) by nearest rank; 0 for no values."""
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(q * len(ordered)) - 1))]


async def next_batch(driver: Any, runs: Sequence[Any]) -> list[dict[str, Any]]:
    """The next update of every unfinished game in ``runs`` whose buttons are on screen
    (empty once every game is done), letting the bot deliver when none is; the players'
    side, never timed."""
    from shbot.devtools.driver import NotReady

    stalls = 0
    while True:
        active = [run for run in runs if not run.done]
        found: list[Any] = []
        for i in range(0, len(active), PLAYER_READS):
            found += await asyncio.gather(
                *(run.next_update() for run in active[i : i + PLAYER_READS]),
                return_exceptions=True,
            )
        batch = []
        for payload in found:
            if isinstance(payload, BaseException) and not isinstance(payload, NotReady):
                raise payload
            if isinstance(payload, dict):
                batch.append(payload)
        if batch or all(run.done for run in runs):
            return batch
        stalls += 1
        if stalls > 3:
            raise RuntimeError("the games stalled: no buttons to press")
        await driver.settle(60)


def _checkout_bot() -> tuple[int, Any, Any]:
    """(players per game, store factory, running-bot factory) of the checkout measured."""
    try:
        from shbot.bench.common import BOT_PLAYERS, bench_store, running_bot
    except ImportError:  # a checkout from before shbot/bench/ was a package
        old = importlib.import_module("shbot.bench")
        return old.BOT_PLAYERS, old._store, old._running_bot
    return BOT_PLAYERS, bench_store, running_bot


async def measure(
    kind: str, url: str | None, games: int, concurrency: int, seed: int
) -> dict[str, Any]:
    """``games`` 7-player games at once on ``kind`` ("sqlite" or "redis" at ``url``), fed
    ``concurrency`` updates at a time. Per press: only phases made of presses alone count
    (the lobby's commands write settings, not games)."""
    import shbot
    from shbot.devtools.driver import GameRun, make_users

    players, bench_store, running_bot = _checkout_bot()
    async with bench_store(kind, url) as store, running_bot(store) as driver:
        meter = StoreMeter(store)
        runs = [GameRun(driver, make_users(players), seed + i) for i in range(games)]
        updates = presses = press_trips = 0
        press_writes: Counter[str] = Counter()
        seconds = cpu = 0.0
        while batch := await next_batch(driver, runs):
            writes, trips = Counter(meter.by_method), meter.round_trips
            meter.on = True
            start, start_cpu = time.perf_counter(), time.process_time()
            for i in range(0, len(batch), concurrency):
                await asyncio.gather(*(driver.feed(p) for p in batch[i : i + concurrency]))
            await driver.settle(120)
            seconds += time.perf_counter() - start
            cpu += time.process_time() - start_cpu
            meter.on = False
            updates += len(batch)
            if all("callback_query" in p for p in batch):
                presses += len(batch)
                press_writes += meter.by_method - writes
                press_trips += meter.round_trips - trips
            if driver.errors:
                raise RuntimeError(f"the bot raised: {driver.errors[:3]!r}")
        lat = driver.latencies
        row: dict[str, Any] = {
            "updates": updates,
            "seconds": round(seconds, 3),
            "updates_per_second": round(updates / seconds, 1),
            # This process's CPU (the bot, and the fake Bot API it calls): less sensitive to
            # other processes than the wall clock.
            "cpu_ms_per_update": round(cpu / updates * 1000, 3),
            "p50_ms": round(percentile(lat, 0.5) * 1000, 3),
            "p99_ms": round(percentile(lat, 0.99) * 1000, 3),
            "max_ms": round(max(lat) * 1000, 3),
            "bot_calls": driver.fake.count(),
            "presses": presses,
            "storage_writes_per_press": round(press_writes.total() / max(1, presses), 2),
            "writes_per_press_by_method": {
                name: round(n / max(1, presses), 2) for name, n in press_writes.most_common()
            },
            "shbot": os.path.dirname(shbot.__file__),
        }
        if kind == "redis":
            row["redis_commands_per_update"] = round(meter.commands / max(1, updates), 2)
            row["redis_round_trips_per_press"] = round(press_trips / max(1, presses), 2)
        return row


def main(argv: Sequence[str]) -> int:
    """Child entry: one JSON argument in, one JSON row out."""
    a = json.loads(argv[1])
    row = asyncio.run(measure("redis", a["redis"], a["games"], a["concurrency"], a["seed"]))
    print(json.dumps(row), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
