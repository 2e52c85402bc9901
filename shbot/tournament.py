"""The players' benchmark: how balanced and how strong the heuristic is, per table size,
and how its play compares with people's (``shbot.calibration``).

For each player count these match-ups play the same game seeds:

* heuristic Liberals vs heuristic Fascists (H-H) — the balance (the Fascist share should
  sit within 5 points of secrethitler.io's rate for that size), the time of every
  computer decision (p99 < 5 ms), and the talk: lies and silences per situation, the
  Fascist-team share of each claimed draw, who Liberal executions hit;
* random Liberals vs heuristic Fascists — what the Liberal heuristic adds ("Liberal
  edge": its Liberal share in H-H minus this one's, target >= 20 points);
* heuristic Liberals vs random Fascists — the same for the Fascist heuristic;
* the counter (Liberals who distrust any President claiming 🔴🔴🔴) vs heuristic
  Fascists — what that simple rule gains over H-H (target < 5 points: no cheap tell);
* H-H with one seat taken over early and every seat restarted later (agents rebuilt from
  their record) — what a take-over and a restart cost (target < 1 point; by
  construction nothing changes).

``python -m shbot simulate --tournament`` (1,000 games per match-up, seed 0) prints the tables
that docs/players.md records.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Sequence
from typing import Any

from shbot.calibration import HUMAN_ENDINGS, HUMAN_FASCIST, Talk
from shbot.engine import Event
from shbot.likeness import Likeness, summary
from shbot.simulate import game_seeds, play

__all__ = ["BALANCE", "EDGE", "P99_MS", "tournament", "tournament_table"]

BALANCE = 5.0
"""Points the H-H Fascist share may differ from people's at the same table size."""
EDGE = 20.0
"""Points a heuristic side must win above a random side in its place."""
COUNTER_GAIN = 5.0
"""Points the 🔴🔴🔴 counter may gain the Liberals, at most."""
RESTART_COST = 1.0
"""Points a take-over and a restart may change the Liberal share, at most."""
ENDINGS = 5.0
"""Points each 7-player ending may differ from people's."""
CLAIMS = 5.0
"""Points the Fascist-team share of each claimed draw may differ from the base rate."""
P99_MS = 5.0
"""Time per computer decision, 99th percentile."""
TAKEOVER_STEP, RESTART_STEP = 15, 30
"""The decisions before which the rebuild match-up rebuilds seat 0's agent (a take-over),
then every agent (a restart)."""


def _share(results: Sequence[Any], side: str) -> float:
    return sum(r.winner == side for r in results) / (len(results) or 1)


def _percentile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    values.sort()
    return values[min(len(values) - 1, int(q * len(values)))]


def tournament(games: int, players: Sequence[int], seed: int) -> dict[str, Any]:
    """Play the match-ups, ``games`` games each per player count; JSON-ready."""
    seeds = game_seeds(seed, games)
    rows = []
    start = time.perf_counter()
    talk, talk7 = Talk(), Talk()
    likeness = Likeness()
    endings7: Counter[str] = Counter()
    for count in players:
        timings: list[float] = []
        both = []
        for s in seeds:
            record: list[Event] = []
            game = play(count, s, "heuristic", "heuristic", record, timings=timings)
            both.append(game)
            for into in (talk, talk7) if count == 7 else (talk,):
                into.add(record, game.claims, game.asked)
            if count == 7:
                endings7[game.condition] += 1
                likeness.add(record, game.claims, game.asked)
        rand_lib = [play(count, s, "random", "heuristic") for s in seeds]
        rand_fas = [play(count, s, "heuristic", "random") for s in seeds]
        counter = [play(count, s, "counter", "heuristic") for s in seeds]
        restarted = [play(count, s, "heuristic", "heuristic", rebuild=_restart) for s in seeds]
        fascist = _share(both, "fascist")
        liberal = 1.0 - fascist
        rows.append(
            {
                "players": count,
                "games": games,
                "liberal": round(liberal, 4),
                "fascist": round(fascist, 4),
                "human_fascist": HUMAN_FASCIST.get(count),
                "hitler_elected": round(_share_condition(both, "hitler_elected"), 4),
                "random_liberals_liberal": round(_share(rand_lib, "liberal"), 4),
                "random_fascists_fascist": round(_share(rand_fas, "fascist"), 4),
                "liberal_edge": round(100 * (liberal - _share(rand_lib, "liberal")), 1),
                "fascist_edge": round(100 * (fascist - _share(rand_fas, "fascist")), 1),
                "counter_gain": round(100 * (_share(counter, "liberal") - liberal), 1),
                "restart_cost": round(100 * (liberal - _share(restarted, "liberal")), 1),
                "restart_changed": sum(
                    a.winner != b.winner or a.rounds != b.rounds
                    for a, b in zip(both, restarted, strict=True)
                ),
                "decisions": len(timings),
                "p50_ms": round(1000 * _percentile(timings, 0.5), 6),
                "p99_ms": round(1000 * _percentile(timings, 0.99), 6),
                "max_ms": round(1000 * max(timings, default=0.0), 3),
            }
        )
    n7 = sum(endings7.values())
    endings = {
        k: {"share": round(100 * endings7[k] / n7, 1) if n7 else None, "human": v}
        for k, v in HUMAN_ENDINGS.items()
    }
    result: dict[str, Any] = {
        "games_per_matchup": games,
        "seed": seed,
        "seconds": round(time.perf_counter() - start, 2),
        "rows": rows,
        "endings_7": endings if n7 else {},
        "talk_7": talk7.report() if n7 else {},
        "talk": talk.report(),
        "likeness_7": summary(likeness.rows()) if n7 else {},
    }
    result["missed"] = _missed(result)
    return result


def _restart(step: int, seat: int) -> bool:
    return step == RESTART_STEP or (step == TAKEOVER_STEP and seat == 0)


def _share_condition(results: Sequence[Any], condition: str) -> float:
    return sum(r.condition == condition for r in results) / (len(results) or 1)


def _missed(result: dict[str, Any]) -> list[str]:
    """Every target the tournament misses, named with its value."""
    out = []
    for row in result["rows"]:
        p = row["players"]
        human = row["human_fascist"]
        if human is not None and abs(100 * row["fascist"] - human) > BALANCE:
            out.append(f"{p} players: Fascist share {row['fascist']:.1%}, people {human:g} %")
        for side in ("liberal", "fascist"):
            if row[f"{side}_edge"] < EDGE:
                out.append(f"{p} players: {side} edge {row[f'{side}_edge']} < {EDGE:g} points")
        if row["counter_gain"] >= COUNTER_GAIN:
            out.append(f"{p} players: the FFF counter gains {row['counter_gain']:+.1f} points")
        if abs(row["restart_cost"]) >= RESTART_COST:
            out.append(f"{p} players: a rebuild costs {row['restart_cost']:+.1f} points")
        if row["p99_ms"] >= P99_MS:
            out.append(f"{p} players: decision p99 {row['p99_ms']} ms >= {P99_MS:g} ms")
    for name, e in result["endings_7"].items():
        if abs(e["share"] - e["human"]) > ENDINGS:
            out.append(f"7 players: {name} {e['share']} %, people {e['human']} %")
    claims = result["talk"]["claims"]
    base = claims["any"]["fascist_team"]
    for value, c in claims.items():
        if value != "any" and c["n"] >= 30 and abs(c["fascist_team"] - base) > CLAIMS:
            out.append(f"claim {value}: Fascist team {c['fascist_team']} % vs {base} % base")
    return out


def tournament_table(result: dict[str, Any]) -> str:
    """The tournament as the Markdown tables docs/players.md shows."""
    lines = [
        f"{result['games_per_matchup']} games per match-up and player count, seed "
        f"{result['seed']}, {result['seconds']} s",
        "",
        "| players | H-H Liberal | H-H Fascist | people: Fascist | H elected | "
        "random L: Liberal | random F: Fascist | Liberal edge | Fascist edge | "
        "FFF counter gain | take-over + restart cost | decision p50 | p99 | max |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in result["rows"]:
        human = r["human_fascist"]
        lines.append(
            f"| {r['players']} | {r['liberal']:.1%} | {r['fascist']:.1%} | "
            f"{'-' if human is None else f'{human:g}%'} | "
            f"{r['hitler_elected']:.1%} | {r['random_liberals_liberal']:.1%} | "
            f"{r['random_fascists_fascist']:.1%} | {r['liberal_edge']:+.1f} | "
            f"{r['fascist_edge']:+.1f} | {r['counter_gain']:+.1f} | "
            f"{r['restart_cost']:+.1f} ({r['restart_changed']} games changed) | "
            f"{1000 * r['p50_ms']:.1f} µs | {1000 * r['p99_ms']:.1f} µs | {r['max_ms']:.2f} ms |"
        )
    lines += _talk_tables(result)
    if result["likeness_7"]:
        lines += ["", "Every 7-player figure of the people's reference (H-H):", ""]
        lines.append(result["likeness_7"]["table"])
    lines.append("")
    missed = result["missed"]
    lines.append("missed: " + ("; ".join(missed) if missed else "none"))
    return "\n".join(lines)


def _talk_tables(result: dict[str, Any]) -> list[str]:
    lines: list[str] = []
    if result["endings_7"]:
        lines += ["", "Endings at 7 players (H-H) beside people's:", ""]
        lines += ["| ending | computers | people |", "|---|---:|---:|"]
        for name, e in result["endings_7"].items():
            lines.append(f"| {name} | {e['share']} % | {e['human']} % |")
    talk7 = result["talk_7"]
    if talk7:
        lines += ["", "Claims at 7 players (H-H): lie % of claims made, silent % of sights:", ""]
        lines += [
            "| who, what they saw | n | lie | people | silent | people |",
            "|---|---:|---:|---:|---:|---:|",
        ]
        for name, s in talk7["situations"].items():
            lines.append(
                f"| {name} | {s['n']} | {s['lie']} % | {s['human_lie']} % | "
                f"{s['silent']} % | {s['human_silent']} % |"
            )
    talk = result["talk"]
    lines += ["", "A President's claimed draw: share made by the Fascist team (all sizes):", ""]
    lines += ["| claim | n | computers | people (7 players) |", "|---|---:|---:|---:|"]
    for value, c in talk["claims"].items():
        lines.append(f"| {value} | {c['n']} | {c['fascist_team']} % | {c['human']} % |")
    for label, t in (("all sizes", talk), ("7 players", talk7)):
        if t:
            lines.append(
                f"\nLiberal executions ({label}): {t['liberal_shots']}, Hitler hit "
                f"{t['hitler_hits']} % (people 23.3 %), Fascist team hit "
                f"{t['fascist_team_hits']} % (people 65.4 %); Fascist investigations of a "
                f"teammate: {t['teammate_investigations']} % of {t['fascist_investigations']}"
                " (people 33 %)"
            )
    return lines
