"""Benchmarks: ``python -m shbot bench <name>`` prints one JSON line per measurement and a
short human table on stderr.

Each benchmark module registers itself (:func:`shbot.bench.registry.register`) and returns
its JSON rows; ``all`` runs every registered benchmark in turn: ``engine`` (complete random
games on one core), ``bot`` (updates through the real Application, SQLite and Redis;
``--before`` compares with an older checkout, :mod:`shbot.bench.compare`), ``scale`` (1 to
1,000 games at once), ``messages`` (Bot API calls per game, under the bot's real pacing on
a virtual clock) and ``scaleout`` (two webhook processes on one Redis). docs/benchmarks.md
explains each and records a run.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
from collections.abc import Sequence
from typing import Any

# Each module registers its benchmark on import: this order is the order of ``all``.
# isort: off
from shbot.bench import engine, bot, scale, messages, scaleout, picture, miniapp, capacity  # noqa: F401

# isort: on
from shbot.bench.bot import BOT_COMPARE_ROUNDS
from shbot.bench.engine import bench_engine
from shbot.bench.registry import BENCHES, missing_extra, register

__all__ = ["BENCHES", "add_parser", "bench_engine", "register", "run"]


def add_parser(commands: Any) -> None:
    """Add ``bench`` to the CLI's subcommands (``commands`` from ``add_subparsers``)."""
    parser = commands.add_parser("bench", help="measure throughput (JSON lines on stdout)")
    names = [*BENCHES, "all"]
    parser.add_argument("name", choices=names, help="what to measure; all runs every one")
    parser.add_argument(
        "--games",
        type=_games,
        default=None,
        help="games per row; for capacity, concurrent games, a list such as 100,300",
    )
    parser.add_argument(
        "--minutes", type=_positive_float, default=None, help="capacity: virtual minutes measured"
    )
    parser.add_argument(
        "--sample",
        type=_positive_int,
        default=None,
        help="capacity: groups simulated at most (beyond: on their share of the token)",
    )
    parser.add_argument(
        "--find",
        action="store_true",
        help="capacity: bisect for the largest count that holds (p95 <= 3 s, no late deadline)",
    )
    parser.add_argument(
        "--plot", metavar="PNG", default=None, help="capacity: draw p95 against games (matplotlib)"
    )
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
    if isinstance(args.games, list) and args.name != "capacity":
        print("shbot: a list of --games is for bench capacity", file=sys.stderr)
        return 2
    names: Sequence[str] = (
        [n for n in BENCHES if n != "capacity"] if args.name == "all" else [args.name]
    )
    status = 0
    for name in names:
        bench = BENCHES[name]
        missing = missing_extra() if bench.drives_the_bot else []
        if missing:
            print(
                f"shbot: bench {name} needs the bench extra ({', '.join(missing)} missing): "
                "pip install 'shbot[bench]'",
                file=sys.stderr,
            )
            status = 2
            continue
        rows = bench.run(args)
        for row in rows:
            print(json.dumps(row, ensure_ascii=False), flush=True)
        print(f"bench {name}:\n{bench.table(rows)}", file=sys.stderr)
    return status


def _players(text: str) -> list[int]:
    from shbot.simulate import parse_players

    try:
        return parse_players(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _games(text: str) -> int | list[int]:
    """A count, or a comma-separated list of counts (capacity's concurrent games)."""
    values = [_positive_int(part) for part in text.split(",") if part.strip()]
    if not values:
        raise argparse.ArgumentTypeError("no count given")
    return values[0] if len(values) == 1 else values


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
