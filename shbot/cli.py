"""The ``shbot`` command line: ``simulate``, ``bench``, ``run`` (the Telegram bot), ``health``.

Bad arguments end with a single ``shbot: error: …`` line and exit status 2, so scripts and
people see at once what was wrong without a usage screen to scroll past. ``python -m shbot``
and the ``shbot`` script both land in :func:`main`; ``--version`` says which copy of the
package runs (a checkout's or an installed one), since ``python -m`` prefers the current
directory's.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import platform
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

import shbot
from shbot import bench
from shbot.bot.config import environment_help
from shbot.engine import Event
from shbot.i18n import LANGUAGES, CatalogError, check_catalogs
from shbot.players import AGENTS
from shbot.simulate import game_seeds, parse_players, play_one, simulate, summary_table
from shbot.transcript import get_translator, render

__all__ = ["build_parser", "main"]


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors (subcommand parsers inherit the class)."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"shbot: error: {message}\n")


def version() -> str:
    """``shbot 0.2.0 (/path/to/shbot, Python 3.11.7)``: the version and the copy that runs."""
    where = Path(shbot.__file__).resolve().parent
    return f"shbot {shbot.__version__} ({where}, Python {platform.python_version()})"


class _Version(argparse.Action):
    """``--version`` on one line (argparse's own wraps it to the terminal's width)."""

    def __call__(self, parser: argparse.ArgumentParser, *args: Any, **kwargs: Any) -> None:
        print(version())
        parser.exit(0)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="shbot", description="Secret Hitler for Telegram group chats.")
    parser.add_argument(
        "--version", action=_Version, nargs=0, help="print the version and where it runs from"
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    _add_simulate(commands)
    bench.add_parser(commands)
    run = commands.add_parser(
        "run",
        help="run the Telegram bot (configured from the environment)",
        description="Run the Telegram bot: long polling, or a webhook listener when "
        "SHBOT_WEBHOOK_URL is set. Refuses to start, with one line naming the setting, "
        "when the configuration, the catalogs, the store or the token is wrong.",
        epilog=environment_help(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    run.set_defaults(handler=_run_bot)
    health = commands.add_parser(
        "health",
        help="exit 0 if the bot is configured, its catalogs load, its store answers and it runs",
        description="The container health check. Exit 0 when the configuration loads, the "
        "catalogs of every language load, the store answers a ping and the bot runs: in "
        "polling mode, a `shbot run` on this machine touched its heartbeat file less than a "
        "minute ago; in webhook mode, the listener accepts connections. Otherwise print one "
        "line saying what failed and exit 1.",
        epilog=environment_help(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    health.set_defaults(handler=_health)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Console-script entry point; returns the exit status."""
    args = build_parser().parse_args(argv)
    try:
        status: int = args.handler(args)
    except BrokenPipeError:
        # The reader went away (``| head``): stop quietly, and keep Python's exit-time
        # flush of stdout from raising again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    return status


# --------------------------------------------------------------------------- simulate


def _players(text: str) -> list[int]:
    try:
        return parse_players(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _games(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def _add_simulate(commands: Any) -> None:
    p = commands.add_parser("simulate", help="play many games between computer players")
    names = sorted(AGENTS)
    p.add_argument("--games", type=_games, default=1000, help="number of games (1000)")
    p.add_argument(
        "--players", type=_players, default=parse_players("5-10"), help="N or N-M (5-10)"
    )
    p.add_argument("--seed", type=int, default=0, help="run seed (0); same seed, same games")
    p.add_argument("--agents", choices=names, default="random", help="agent for every seat")
    p.add_argument("--liberals", choices=names, help="agent for Liberal seats (overrides)")
    p.add_argument("--fascists", choices=names, help="agent for Fascists and Hitler (overrides)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument(
        "--tournament",
        action="store_true",
        help="heuristic vs heuristic, random Liberals, random Fascists: --games games each "
        "per player count, one table (docs/players.md)",
    )
    p.add_argument(
        "--exploits",
        action="store_true",
        help="the exploit search: what each simple counter-rule gains the Liberals, paired "
        "on --games deals per player count, and the 7-player human-likeness report",
    )
    p.add_argument("--rules", help="with --exploits: comma-separated rule names (default: all)")
    p.add_argument(
        "--transcript", action="store_true", help="also print the first game move by move"
    )
    p.add_argument(
        "--lang", choices=LANGUAGES, default="en", help="transcript language (en, ja, fr)"
    )
    p.set_defaults(handler=_simulate)


def _simulate(args: argparse.Namespace) -> int:
    if args.tournament:
        from shbot.tournament import tournament, tournament_table

        result = tournament(args.games, args.players, args.seed)
        print(json.dumps(result) if args.json else tournament_table(result))
        return 0
    if args.exploits:
        from shbot.exploits import exploit_table, exploits
        from shbot.likeness import likeness_report

        rules = args.rules.split(",") if args.rules else None
        found = exploits(args.games, args.players, args.seed, rules)
        report = likeness_report(args.games, args.seed)
        if args.json:
            print(json.dumps({"exploits": found, "likeness": report}))
        else:
            print(exploit_table(found))
            print()
            print(report["table"])
        return 0
    liberals = args.liberals or args.agents
    fascists = args.fascists or args.agents
    players: list[int] = args.players
    if args.transcript:
        try:
            check_catalogs([args.lang])  # never an English transcript when ja was asked for
        except CatalogError as exc:
            print(f"shbot: error: {exc}", file=sys.stderr)
            return 2
        # Game 0 of the run, replayed with its events recorded (same seed, same game).
        events: list[Event] = []
        play_one(players[0], game_seeds(args.seed, 1)[0], liberals, fascists, events)
        lines = render(events, get_translator(args.lang), seed=args.seed)
        out = sys.stderr if args.json else sys.stdout
        print("\n".join(lines), file=out)
        print(file=out)
    summary = simulate(args.games, players, args.seed, liberals, fascists)
    if args.json:
        print(json.dumps(summary, ensure_ascii=False))
    else:
        print(summary_table(summary))
    return 0


# --------------------------------------------------------------------------- run


def _bot_main() -> Any:
    """The bot's entry module, imported only now so simulate and bench never load Telegram."""
    try:
        return importlib.import_module("shbot.bot.main")
    except ModuleNotFoundError as exc:
        if exc.name not in ("shbot.bot", "shbot.bot.main"):
            raise
        print("shbot: error: the bot is not available (shbot.bot.main is missing)", file=sys.stderr)
        return None


def _run_bot(args: argparse.Namespace) -> int:
    module = _bot_main()
    if module is None:
        return 1
    result = module.run_from_env()
    return result if isinstance(result, int) else 0


def _health(args: argparse.Namespace) -> int:
    """The container health check: 0 healthy, 1 not (Docker reserves other codes)."""
    module = _bot_main()
    if module is None:
        return 1
    return int(module.check_health())
