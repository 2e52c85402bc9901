"""``bench bot``'s measurement, and the same measurement of an older version in one run.

:func:`measure` plays ``games`` 7-player games at once through the real Application and
times only the bot's work (feeding the updates, then delivering what its outbox queued);
a :class:`StoreMeter` counts what the bot asks of the store meanwhile.

``python -m shbot bench bot --before PATH`` compares two versions: this file is run as a
child process (``python -c <this file>``) with ``PYTHONPATH`` at the old checkout, then at
this one, in turn (old, new, old, new ...), on one Redis, so both are measured by the same
code under the same load. In a child it relies only on what every version since the
devtools has: ``shbot.bench._store``, ``_running_bot`` and ``BOT_PLAYERS``, and
``shbot.devtools.driver``.
"""

from __future__ import annotations

import asyncio
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
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
#: What a comparison reports, side by side (median of the rounds) with the ratio new/old.
FIGURES = (
    "updates_per_second",
    "cpu_ms_per_update",
    "p99_ms",
    "redis_commands_per_update",
    "redis_round_trips_per_press",
    "storage_writes_per_press",
)


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


# ------------------------------------------------------------------ one measurement


async def measure(
    kind: str, url: str | None, games: int, concurrency: int, seed: int
) -> dict[str, Any]:
    """``games`` 7-player games at once on ``kind`` ("sqlite" or "redis" at ``url``), fed
    ``concurrency`` updates at a time. Per press: only phases made of presses alone count
    (the lobby's commands write settings, not games)."""
    import shbot
    from shbot import bench
    from shbot.devtools.driver import GameRun, NotReady, make_users

    async with bench._store(kind, url) as store, bench._running_bot(store) as driver:
        meter = StoreMeter(store)
        runs = [GameRun(driver, make_users(bench.BOT_PLAYERS), seed + i) for i in range(games)]
        updates = presses = press_trips = stalls = 0
        press_writes: Counter[str] = Counter()
        seconds = cpu = 0.0
        while True:
            batch = []
            for run in [r for r in runs if not r.done]:
                try:
                    payload = await run.next_update()
                except NotReady:
                    continue
                if isinstance(payload, dict):
                    batch.append(payload)
            if not batch:
                if all(run.done for run in runs):
                    break
                stalls += 1
                if stalls > 3:
                    raise RuntimeError("the games stalled: no buttons to press")
                await driver.settle(60)
                continue
            stalls = 0
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


# ------------------------------------------------------------------ before and after


def compare(before: str, games: int, seed: int, rounds: int) -> list[dict[str, Any]]:
    """Rounds of (old, new) at each concurrency on one Redis; then one summary row per
    concurrency: the median of each figure over the rounds, and new/old."""
    from shbot.bench import BOT_CONCURRENCY
    from shbot.devtools.redis_server import redis_url

    sides = {"before": str(Path(before).resolve()), "after": str(Path(__file__).parents[1])}
    for side, path in sides.items():
        if not (Path(path) / "shbot" / "bench.py").is_file():
            raise SystemExit(f"shbot: bench bot --before: no shbot checkout at {path} ({side})")
    source = Path(__file__).read_text(encoding="utf-8")
    rows: list[dict[str, Any]] = []
    with redis_url() as (url, where), tempfile.TemporaryDirectory() as neutral:
        for n in range(1, rounds + 1):
            for concurrency in BOT_CONCURRENCY:
                for side, path in sides.items():
                    args = {"redis": url, "games": games, "concurrency": concurrency, "seed": seed}
                    row = _child(source, path, neutral, args)
                    row.update(
                        bench="bot-compare", side=side, commit=_commit(path), round=n,
                        concurrency=concurrency, games=games, redis=where,
                        load=round(os.getloadavg()[0], 2),
                    )  # fmt: skip
                    rows.append(row)
                    print(_line(row), file=sys.stderr, flush=True)
    return rows + summary(rows)


def _child(source: str, path: str, cwd: str, args: dict[str, Any]) -> dict[str, Any]:
    # PYTHONPATH is the side's checkout alone, and the working directory is neutral (with
    # -c, the current directory comes first on sys.path).
    env = {**os.environ, "PYTHONPATH": path}
    done = subprocess.run(
        [sys.executable, "-c", source, json.dumps(args)],
        env=env, cwd=cwd, capture_output=True, text=True, timeout=1800,
    )  # fmt: skip
    if done.returncode != 0:
        raise RuntimeError(f"bench of {path} failed:\n{done.stderr[-2000:]}")
    row: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    if Path(row["shbot"]).resolve() != (Path(path) / "shbot").resolve():
        raise RuntimeError(f"the child measured {row['shbot']}, not {path}")
    return row


def _commit(path: str) -> str | None:
    """The checkout's commit, "+dirty" when its shbot/ has uncommitted changes."""
    try:
        head, dirty = (
            subprocess.run(
                ["git", "-C", path, *cmd], capture_output=True, text=True, timeout=10
            ).stdout.strip()
            for cmd in (["rev-parse", "--short", "HEAD"], ["status", "--porcelain", "shbot"])
        )
    except OSError:
        return None
    return f"{head}+dirty" if head and dirty else head or None


def summary(rows: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for concurrency in sorted({r["concurrency"] for r in rows}):
        row: dict[str, Any] = {"bench": "bot-compare-summary", "concurrency": concurrency}
        for side in ("before", "after"):
            runs = [r for r in rows if r["concurrency"] == concurrency and r["side"] == side]
            row[f"{side}_commit"] = runs[0]["commit"] if runs else None
            row[f"{side}_rounds"] = len(runs)
            for figure in FIGURES:
                values = [r[figure] for r in runs if figure in r]
                row[f"{side}_{figure}"] = round(statistics.median(values), 2) if values else None
        for figure in FIGURES:
            old, new = row[f"before_{figure}"], row[f"after_{figure}"]
            row[f"ratio_{figure}"] = round(new / old, 2) if old and new is not None else None
        out.append(row)
    return out


def _line(r: dict[str, Any]) -> str:
    return (
        f"round {r['round']} conc {r['concurrency']:>2} {r['side']:>6} ({r['commit']}): "
        f"{r['updates_per_second']:7.1f} upd/s  {r['cpu_ms_per_update']:5.2f} cpu ms/upd  "
        f"p99 {r['p99_ms']:6.2f} ms  "
        f"{r['redis_commands_per_update']:5.2f} cmds/upd  "
        f"{r['redis_round_trips_per_press']:5.2f} trips/press  "
        f"{r['storage_writes_per_press']:5.2f} writes/press  load {r['load']}"
    )


def compare_table(rows: Sequence[dict[str, Any]]) -> str:
    lines = [f"{'conc':>4} {'figure':<28} {'before':>9} {'after':>9} {'after/before':>12}"]
    for r in rows:
        if r["bench"] != "bot-compare-summary":
            continue
        for figure in FIGURES:
            old, new, ratio = (r[f"{k}_{figure}"] for k in ("before", "after", "ratio"))
            lines.append(f"{r['concurrency']:>4} {figure:<28} {old!s:>9} {new!s:>9} {ratio!s:>12}")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
