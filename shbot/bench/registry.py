"""The benchmarks by name: each module of :mod:`shbot.bench` adds its own with
:func:`register`; ``all`` runs them in the order they were added."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any, NamedTuple

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
