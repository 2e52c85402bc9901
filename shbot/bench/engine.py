"""``bench engine``: complete random-agent games per second on one core (no Telegram)."""

from __future__ import annotations

import argparse
import platform
import time

from shbot.bench.registry import Row, register
from shbot.simulate import play_random

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
