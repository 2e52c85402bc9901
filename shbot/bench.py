"""Benchmarks: ``python -m shbot bench <name>`` prints one JSON line per measurement and a
short human table on stderr.

Each benchmark registers itself with :func:`register` and returns its JSON rows; ``all``
runs every registered benchmark in turn. Today there is ``engine`` (complete random games
on one core); the bot, scale and message benchmarks register here the same way.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from collections.abc import Callable, Sequence
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
    return [bench_engine(p, args.games, args.seconds, args.seed) for p in ENGINE_PLAYERS]


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
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Run the chosen benchmark(s): JSON lines on stdout, tables on stderr."""
    names: Sequence[str] = list(BENCHES) if args.name == "all" else [args.name]
    for name in names:
        bench = BENCHES[name]
        rows = bench.run(args)
        for row in rows:
            print(json.dumps(row, ensure_ascii=False), flush=True)
        print(f"bench {name}:\n{bench.table(rows)}", file=sys.stderr)
    return 0


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
