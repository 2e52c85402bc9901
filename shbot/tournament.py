"""The players' benchmark: how balanced and how strong the heuristic is, per table size.

For each player count three match-ups play the same game seeds:

* heuristic Liberals vs heuristic Fascists — the balance (Fascist share should sit
  within 35-65 %), and the time of every computer decision (p99 should stay < 5 ms);
* random Liberals vs heuristic Fascists — what the Liberal heuristic adds ("Liberal
  edge": its Liberal share in the first match-up minus this one's, target >= 20 points);
* heuristic Liberals vs random Fascists — the same for the Fascist heuristic.

``python -m shbot simulate --tournament --games 2000 --seed 1`` prints the table that
docs/players.md records.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from shbot.simulate import game_seeds, play

__all__ = ["BALANCE", "EDGE", "P99_MS", "tournament", "tournament_table"]

BALANCE = (0.35, 0.65)
"""Heuristic-vs-heuristic Fascist win share the issue asks for."""
EDGE = 20.0
"""Points a heuristic side must win above a random side in its place."""
P99_MS = 5.0
"""Time per computer decision, 99th percentile."""


def _share(results: Sequence[Any], side: str) -> float:
    return sum(r.winner == side for r in results) / (len(results) or 1)


def _percentile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    values.sort()
    return values[min(len(values) - 1, int(q * len(values)))]


def tournament(games: int, players: Sequence[int], seed: int) -> dict[str, Any]:
    """Play the three match-ups, ``games`` games each per player count; JSON-ready."""
    seeds = game_seeds(seed, games)
    rows = []
    start = time.perf_counter()
    for count in players:
        timings: list[float] = []
        both = [play(count, s, "heuristic", "heuristic", timings=timings) for s in seeds]
        rand_lib = [play(count, s, "random", "heuristic") for s in seeds]
        rand_fas = [play(count, s, "heuristic", "random") for s in seeds]
        fascist = _share(both, "fascist")
        liberal = 1.0 - fascist
        rows.append(
            {
                "players": count,
                "games": games,
                "liberal": round(liberal, 4),
                "fascist": round(fascist, 4),
                "hitler_elected": round(_share_condition(both, "hitler_elected"), 4),
                "random_liberals_liberal": round(_share(rand_lib, "liberal"), 4),
                "random_fascists_fascist": round(_share(rand_fas, "fascist"), 4),
                "liberal_edge": round(100 * (liberal - _share(rand_lib, "liberal")), 1),
                "fascist_edge": round(100 * (fascist - _share(rand_fas, "fascist")), 1),
                "decisions": len(timings),
                "p50_ms": round(1000 * _percentile(timings, 0.5), 6),
                "p99_ms": round(1000 * _percentile(timings, 0.99), 6),
                "max_ms": round(1000 * max(timings, default=0.0), 3),
            }
        )
    return {
        "games_per_matchup": games,
        "seed": seed,
        "seconds": round(time.perf_counter() - start, 2),
        "rows": rows,
        "missed": _missed(rows),
    }


def _share_condition(results: Sequence[Any], condition: str) -> float:
    return sum(r.condition == condition for r in results) / (len(results) or 1)


def _missed(rows: Sequence[dict[str, Any]]) -> list[str]:
    """Every target a row misses, named with its value."""
    out = []
    lo, hi = BALANCE
    for row in rows:
        p = row["players"]
        if not lo <= row["fascist"] <= hi:
            out.append(f"{p} players: Fascist share {row['fascist']:.1%} outside 35-65 %")
        for side in ("liberal", "fascist"):
            if row[f"{side}_edge"] < EDGE:
                out.append(f"{p} players: {side} edge {row[f'{side}_edge']} < {EDGE:g} points")
        if row["p99_ms"] >= P99_MS:
            out.append(f"{p} players: decision p99 {row['p99_ms']} ms >= {P99_MS:g} ms")
    return out


def tournament_table(result: dict[str, Any]) -> str:
    """The tournament as the Markdown table docs/players.md shows."""
    lines = [
        f"{result['games_per_matchup']} games per match-up and player count, seed "
        f"{result['seed']}, {result['seconds']} s",
        "",
        "| players | H-H Liberal | H-H Fascist | H elected | random L: Liberal | "
        "random F: Fascist | Liberal edge | Fascist edge | decision p50 | p99 | max |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in result["rows"]:
        lines.append(
            f"| {r['players']} | {r['liberal']:.1%} | {r['fascist']:.1%} | "
            f"{r['hitler_elected']:.1%} | {r['random_liberals_liberal']:.1%} | "
            f"{r['random_fascists_fascist']:.1%} | {r['liberal_edge']:+.1f} | "
            f"{r['fascist_edge']:+.1f} | {1000 * r['p50_ms']:.1f} µs | "
            f"{1000 * r['p99_ms']:.1f} µs | {r['max_ms']:.2f} ms |"
        )
    lines.append("")
    missed = result["missed"]
    lines.append("missed: " + ("; ".join(missed) if missed else "none"))
    return "\n".join(lines)
