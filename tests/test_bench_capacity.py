"""``bench capacity`` runs end to end at a tiny size, prints its table (with or without
matplotlib) and takes a list of counts."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("looptime")

KEYS = {
    "games",
    "p50",
    "p95",
    "max",
    "prompt_p95",
    "busiest_second",
    "calls_per_game",
    "calls_per_round",
    "429s",
    "deadlines_fired",
    "breaks",
}


def test_a_tiny_capacity_run_prints_its_rows_and_table(tmp_path: Path) -> None:
    png = tmp_path / "p95.png"
    # fmt: off
    argv = [sys.executable, "-m", "shbot", "bench", "capacity", "--games", "2,3",
            "--minutes", "1", "--plot", str(png)]
    # fmt: on
    done = subprocess.run(argv, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    rows = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    counted = [r for r in rows if r["bench"] == "capacity"]
    assert [r["games"] for r in counted] == [2, 3]
    for row in counted:
        assert set(row) >= KEYS, KEYS - set(row)
        assert row["429s"] == 0 and row["deadlines_fired"] == 0, row
    assert "prompt95" in done.stderr  # the table, on stderr
    (plot,) = [r for r in rows if r["bench"] == "capacity-plot"]
    if plot["path"] == str(png):
        assert png.read_bytes()[:4] == b"\x89PNG"
    else:  # no matplotlib here: said, and the table printed all the same
        assert "skipped" in plot["path"]


def test_the_table_prints_without_matplotlib(monkeypatch: pytest.MonkeyPatch) -> None:
    from shbot.bench import capacity

    row = {
        "bench": "capacity",
        "games": 10,
        "simulated": 10,
        "ramp_minutes": 4.0,
        "minutes": 8.0,
        **dict.fromkeys(("p50", "p95", "max", "prompt_p95", "prompt_max", "progress_p95"), 1.0),
        **dict.fromkeys(("busiest_second", "calls_per_game", "calls_per_round"), 1),
        **dict.fromkeys(("429s", "deadlines_fired", "postponed"), 0),
        "breaks": [],
    }
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import fails
    assert capacity.plot([row], "/nonexistent/p95.png") is None
    assert "10" in capacity.table([row])


def test_a_list_of_counts_is_for_capacity_only() -> None:
    argv = [sys.executable, "-m", "shbot", "bench", "engine", "--games", "1,2"]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "capacity" in done.stderr
