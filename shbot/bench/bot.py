"""``bench bot``: updates per second and latency through the real Application, on SQLite
and Redis; with ``--before PATH``, the same of an older checkout, interleaved."""

from __future__ import annotations

import argparse
import asyncio
import contextlib

from shbot.bench.common import BOT_CONCURRENCY, BOT_PLAYERS, no_redis_row
from shbot.bench.registry import Row, register

BOT_GAMES = 20
BOT_TARGET_UPS = 500
BOT_TARGET_P99_MS = 20.0
BOT_TARGET_TRIPS = 4.0
BOT_COMPARE_ROUNDS = 3


async def bench_bot(games: int, seed: int = 0) -> list[Row]:
    """Updates per second and latency per update through the real Application, on SQLite
    and on a real Redis, ``games`` 7-player games at once, fed one at a time (latency is
    then the service time) and 16 at a time (what one process can absorb); with what the
    bot asks of the store (:func:`shbot.bench.measure.measure`)."""
    from shbot.bench.measure import measure
    from shbot.devtools.redis_server import NoRedis, redis_url

    rows: list[Row] = []
    with contextlib.ExitStack() as stack:
        try:
            url, where = stack.enter_context(redis_url())
            kinds = [("sqlite", None, "file"), ("redis", url, where)]
        except NoRedis as exc:
            kinds = [("sqlite", None, "file")]
            rows.append(no_redis_row("bot", str(exc)))
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
        from shbot.bench.compare import compare_table

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


@register(
    "bot",
    "updates/s, p50/p99 latency through the Application (SQLite, Redis)",
    _bot_table,
    drives_the_bot=True,
)
def _bot(args: argparse.Namespace) -> list[Row]:
    if args.before:
        from shbot.bench.compare import compare

        rounds = args.rounds or BOT_COMPARE_ROUNDS
        return compare(args.before, args.games or BOT_GAMES, args.seed, rounds)
    return asyncio.run(bench_bot(args.games or BOT_GAMES, args.seed))
