"""``bench bot --before PATH``: the same measurement of two checkouts, interleaved.

Compared here with itself (this checkout as "before"), at the smallest size: the rows come
in the promised order, each from the checkout it names, and the summary gives medians and
ratios. Figures are not asserted (benchmarks are not timed tests), only their soundness.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from shbot.bench.compare import FIGURES
from tests.redis_server import RedisServer

ROOT = Path(__file__).resolve().parents[1]


def test_before_and_after_are_measured_in_turn_with_medians_and_ratios(
    redis_server: RedisServer, tmp_path: Path
) -> None:
    # fmt: off
    argv = [sys.executable, "-m", "shbot", "bench", "bot", "--games", "1",
            "--before", str(ROOT), "--rounds", "1"]
    # fmt: on
    env = {**os.environ, "REDIS_URL": redis_server.url, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(argv, capture_output=True, text=True, timeout=600, env=env, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    rows = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    runs = [r for r in rows if r["bench"] == "bot-compare"]
    assert [(r["concurrency"], r["side"]) for r in runs] == [
        (1, "before"),
        (1, "after"),
        (16, "before"),
        (16, "after"),
    ]
    for r in runs:
        assert Path(r["shbot"]) == ROOT / "shbot"
        assert r["updates"] > 50 and r["presses"] > 0
        assert r["redis_round_trips_per_press"] > 0 and r["storage_writes_per_press"] > 0
    summaries = [r for r in rows if r["bench"] == "bot-compare-summary"]
    assert [s["concurrency"] for s in summaries] == [1, 16]
    for s in summaries:
        for figure in FIGURES:
            assert s[f"before_{figure}"] is not None and s[f"ratio_{figure}"] is not None
    assert "after/before" in done.stderr


def test_a_before_path_without_shbot_is_refused(tmp_path: Path) -> None:
    argv = [sys.executable, "-m", "shbot", "bench", "bot", "--before", str(tmp_path)]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(argv, capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode != 0
    assert "no shbot checkout at" in done.stderr
