"""``python -m shbot bench picture``: render time and size of the board picture.

Boards come from seeded games played by the timers' default player, one picture per step
(the states a group sees), for each player count; every cache is cleared before every
render, so each one is drawn and encoded in full. A second pass ("warm") renders each
game's boards in order with the image cache cleared but the band cache kept, as in a game.
Not a timed test: the numbers go in docs/benchmarks.md. Imported by the CLI to register the
bench; Pillow and the bot's renderer load only when it runs.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Iterator
from typing import Any

from shbot.bench.registry import register
from shbot.engine import Game
from shbot.players import default_action

TARGET_MS, TARGET_KB = 30.0, 100.0


def _p99(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]


def _table(rows: list[dict[str, Any]]) -> str:
    lines = [
        "players  images  median ms  p99 ms  CPU median ms  CPU p99 ms  warm CPU mean ms"
        "  median KB  max KB",
    ]
    for r in rows:
        lines.append(
            f"{r['players']:>7}  {r['images']:>6}  {r['median_ms']:>9.2f}  {r['p99_ms']:>6.2f}"
            f"  {r['cpu_median_ms']:>13.2f}  {r['cpu_p99_ms']:>10.2f}"
            f"  {r['cpu_warm_mean_ms']:>16.2f}"
            f"  {r['median_kb']:>9.1f}  {r['max_kb']:>6.1f}{'' if r['ok'] else '  MISSED'}"
        )
    lines.append("targets: 30 ms (CPU p99) and 100 KB per image")
    return "\n".join(lines)


def board_views(players: int, seed: int) -> Iterator[dict[str, Any]]:
    """The public view after each step of one seeded game (the last one is the end)."""
    game, _ = Game.new(players, seed)
    rng = random.Random(seed)
    yield game.public_view()
    while not game.is_over:
        game.apply(default_action(game, game.to_act()[0], rng))
        yield game.public_view()


def measure(players: int, games: int, seed: int = 0) -> dict[str, Any]:
    """Render every step of ``games`` games of ``players``: ms (median, p99) and KB."""
    from shbot.bot.render import picture  # here: the CLI loads no Telegram module to start

    times, cpu, warm, sizes = [], [], [], []
    for game in range(seed, seed + games):
        boards = [picture.facts(view) for view in board_views(players, game)]
        for board in boards:
            picture.cache_clear()
            start, start_cpu = time.perf_counter(), time.process_time()
            png = picture.render(board)
            cpu.append((time.process_time() - start_cpu) * 1000)
            times.append((time.perf_counter() - start) * 1000)
            sizes.append(len(png) / 1024)
        picture.cache_clear()
        for board in boards:
            picture.render.cache_clear()
            start_cpu = time.process_time()
            picture.render(board)
            warm.append((time.process_time() - start_cpu) * 1000)
    return {
        "images": len(times),
        "median_ms": round(statistics.median(times), 2),
        "p99_ms": round(_p99(times), 2),
        "cpu_median_ms": round(statistics.median(cpu), 2),
        "cpu_p99_ms": round(_p99(cpu), 2),
        "cpu_warm_mean_ms": round(statistics.fmean(warm), 2),
        "median_kb": round(statistics.median(sizes), 1),
        "max_kb": round(max(sizes), 1),
    }


@register("picture", "board picture: render time and PNG size per player count", _table)
def run(args: argparse.Namespace) -> list[dict[str, Any]]:
    """One row per player count (``--players``, default 5-10; ``--games`` per count)."""
    from shbot.bot.render import picture

    games = args.games or 20
    seed = args.seed or 0
    picture.render(picture.facts(next(board_views(5, seed))))  # load the font once
    rows = []
    for players in args.players or range(5, 11):
        row: dict[str, Any] = {"bench": "picture", "players": players, "games": games}
        row.update(measure(players, games, seed))
        # CPU time: on a shared machine the wall clock also counts other processes' turns.
        row["ok"] = row["cpu_p99_ms"] <= TARGET_MS and row["max_kb"] <= TARGET_KB
        rows.append(row)
    return rows
