"""``bench bot --before PATH``: the same measurement of an older version, in one run.

The measurement (:mod:`shbot.bench.measure`) is run as a child process (``python -c <its
source>``) with ``PYTHONPATH`` at the old checkout, then at this one, in turn (old, new,
old, new ...), on one Redis, so both are measured by the same code under the same load.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from shbot.bench import measure
from shbot.bench.common import BOT_CONCURRENCY

#: What a comparison reports, side by side (median of the rounds) with the ratio new/old.
FIGURES = (
    "updates_per_second",
    "cpu_ms_per_update",
    "p99_ms",
    "redis_commands_per_update",
    "redis_round_trips_per_press",
    "storage_writes_per_press",
)
#: What makes a folder a checkout with benchmarks (a module before, a package since).
_BENCH = (Path("shbot", "bench.py"), Path("shbot", "bench", "__init__.py"))


def compare(before: str, games: int, seed: int, rounds: int) -> list[dict[str, Any]]:
    """Rounds of (old, new) at each concurrency on one Redis; then one summary row per
    concurrency: the median of each figure over the rounds, and new/old."""
    from shbot.devtools.redis_server import redis_url

    sides = {"before": str(Path(before).resolve()), "after": str(Path(__file__).parents[2])}
    for side, path in sides.items():
        if not any((Path(path) / bench).is_file() for bench in _BENCH):
            raise SystemExit(f"shbot: bench bot --before: no shbot checkout at {path} ({side})")
    source = Path(measure.__file__).read_text(encoding="utf-8")
    rows: list[dict[str, Any]] = []
    with redis_url() as (url, where), tempfile.TemporaryDirectory() as neutral:
        for n in range(1, rounds + 1):
            for concurrency in BOT_CONCURRENCY:
                for side, path in sides.items():
                    args = {"redis": url, "games": games, "concurrency": concurrency, "seed": seed}
                    row = _child(source, path, neutral, args)
                    row.update(
                        bench="bot-compare", side=side, commit=_commit(path), round=n,
                        concurrency=concurrency, games=games, redis=where,
                        load=round(os.getloadavg()[0], 2),
                    )  # fmt: skip
                    rows.append(row)
                    print(_line(row), file=sys.stderr, flush=True)
    return rows + summary(rows)


def _child(source: str, path: str, cwd: str, args: dict[str, Any]) -> dict[str, Any]:
    # PYTHONPATH is the side's checkout alone, and the working directory is neutral (with
    # -c, the current directory comes first on sys.path).
    env = {**os.environ, "PYTHONPATH": path}
    done = subprocess.run(
        [sys.executable, "-c", source, json.dumps(args)],
        env=env, cwd=cwd, capture_output=True, text=True, timeout=1800,
    )  # fmt: skip
    if done.returncode != 0:
        raise RuntimeError(f"bench of {path} failed:\n{done.stderr[-2000:]}")
    row: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    if Path(row["shbot"]).resolve() != (Path(path) / "shbot").resolve():
        raise RuntimeError(f"the child measured {row['shbot']}, not {path}")
    return row


def _commit(path: str) -> str | None:
    """The checkout's commit, "+dirty" when its shbot/ has uncommitted changes."""
    try:
        head, dirty = (
            subprocess.run(
                ["git", "-C", path, *cmd], capture_output=True, text=True, timeout=10
            ).stdout.strip()
            for cmd in (["rev-parse", "--short", "HEAD"], ["status", "--porcelain", "shbot"])
        )
    except OSError:
        return None
    return f"{head}+dirty" if head and dirty else head or None


def summary(rows: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for concurrency in sorted({r["concurrency"] for r in rows}):
        row: dict[str, Any] = {"bench": "bot-compare-summary", "concurrency": concurrency}
        for side in ("before", "after"):
            runs = [r for r in rows if r["concurrency"] == concurrency and r["side"] == side]
            row[f"{side}_commit"] = runs[0]["commit"] if runs else None
            row[f"{side}_rounds"] = len(runs)
            for figure in FIGURES:
                values = [r[figure] for r in runs if figure in r]
                row[f"{side}_{figure}"] = round(statistics.median(values), 2) if values else None
        for figure in FIGURES:
            old, new = row[f"before_{figure}"], row[f"after_{figure}"]
            row[f"ratio_{figure}"] = round(new / old, 2) if old and new is not None else None
        out.append(row)
    return out


def _line(r: dict[str, Any]) -> str:
    return (
        f"round {r['round']} conc {r['concurrency']:>2} {r['side']:>6} ({r['commit']}): "
        f"{r['updates_per_second']:7.1f} upd/s  {r['cpu_ms_per_update']:5.2f} cpu ms/upd  "
        f"p99 {r['p99_ms']:6.2f} ms  "
        f"{r['redis_commands_per_update']:5.2f} cmds/upd  "
        f"{r['redis_round_trips_per_press']:5.2f} trips/press  "
        f"{r['storage_writes_per_press']:5.2f} writes/press  load {r['load']}"
    )


def compare_table(rows: Sequence[dict[str, Any]]) -> str:
    lines = [f"{'conc':>4} {'figure':<28} {'before':>9} {'after':>9} {'after/before':>12}"]
    for r in rows:
        if r["bench"] != "bot-compare-summary":
            continue
        for figure in FIGURES:
            old, new, ratio = (r[f"{k}_{figure}"] for k in ("before", "after", "ratio"))
            lines.append(f"{r['concurrency']:>4} {figure:<28} {old!s:>9} {new!s:>9} {ratio!s:>12}")
    return "\n".join(lines)
