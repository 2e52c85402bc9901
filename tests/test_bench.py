"""The benchmarks run end to end at tiny sizes and print the figures they promise.

Benchmarks are not timed tests: this only proves that ``python -m shbot bench all`` works
from the installed package (Redis included) and that every JSON row carries its keys.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.redis_server import RedisServer

KEYS = {
    "engine": {"players", "games", "games_per_second", "us_per_action"},
    "bot": {"store", "concurrency", "updates", "updates_per_second", "p50_ms", "p99_ms"},
    "scale": {
        "concurrent_games",
        "updates_per_second",
        "p50_ms",
        "p99_ms",
        "bytes_per_game",
        "game_bytes_per_game",
        "peak_rss_mb",
        "p50_vs_1_game",
        "meets_target",
    },
    "messages": {
        "players",
        "group_sends",
        "group_edits",
        "private_sends",
        "callback_answers",
        "max_group_calls_60s",
        "meets_target",
    },
    "messages-paced": {
        "pace",
        "players",
        "p50",
        "p95",
        "max",
        "silence",
        "group_calls",
        "private_calls",
        "group_per_round",
        "max_group_60s",
        "max_overall_1s",
        "429s",
        "meets_target",
    },
    "picture": {
        "players",
        "images",
        "median_ms",
        "p99_ms",
        "cpu_median_ms",
        "cpu_p99_ms",
        "cpu_warm_mean_ms",
        "median_kb",
        "max_kb",
        "ok",
    },
    "miniapp": {"games", "presses", "p50_ms", "p95_ms", "kb_per_stream", "ok"},
    "scaleout": {
        "processes",
        "updates_per_process",
        "presses",
        "callback_answers",
        "lost_updates",
        "games_lost",
        "exactly_once",
    },
}


@pytest.fixture(scope="module")
def rows(redis_server: RedisServer) -> list[dict[str, object]]:
    """One tiny run of every benchmark, on the test session's Redis."""
    # fmt: off
    argv = [sys.executable, "-m", "shbot", "bench", "all",
            "--games", "1", "--seconds", "0.05", "--players", "7"]
    # fmt: on

    env = {**os.environ, "REDIS_URL": redis_server.url}
    done = subprocess.run(argv, capture_output=True, text=True, timeout=300, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    return [json.loads(line) for line in done.stdout.splitlines() if line.strip()]


def test_every_bench_prints_its_figures(rows: list[dict[str, object]]) -> None:
    by_bench: dict[str, list[dict[str, object]]] = {}
    for row in rows:
        by_bench.setdefault(str(row["bench"]), []).append(row)
    assert set(by_bench) == set(KEYS)
    for name, keys in KEYS.items():
        for row in by_bench[name]:
            assert "skipped" not in row, row
            assert keys <= set(row), f"{name} lacks {keys - set(row)}: {row}"
    assert {r["store"] for r in by_bench["bot"]} == {"sqlite", "redis"}


def test_tiny_runs_are_sound(rows: list[dict[str, object]]) -> None:
    """What holds at any size: games are played through, once, within the group limit."""
    for row in rows:
        if row["bench"] == "bot":
            assert row["updates"] > 50  # a 7-player game needs more than its lobby
        if row["bench"] == "messages-paced":
            assert row["max_group_60s"] <= 20 and row["429s"] == 0
            assert row["incomplete"] == 0  # every tap's change reached the group
        if row["bench"] == "messages":
            assert row["max_group_calls_60s"] <= 20
            assert row["callback_answers"] == row["updates"] - 8  # /start x7 and /newgame
        if row["bench"] == "picture":  # one 7-player game, every step drawn
            assert row["images"] > 10 and row["max_kb"] < 100  # type: ignore[operator]
        if row["bench"] == "scaleout":
            assert row["exactly_once"] is True
            assert row["games_lost"] == 0
            assert min(row["updates_per_process"]) > 0  # type: ignore[type-var]


def test_a_full_table_plays_through_both_message_benches() -> None:
    """Ten players start by themselves at the last join (no Start button): the drivers of
    both message benches must not wait for one (they hung until killed)."""
    from shbot.bench import paced
    from shbot.bench.messages import bench_messages

    (row,) = bench_messages(1, 0, [10])
    assert row["players"] == 10 and row["group_sends"] > 0 and row["max_group_calls_60s"] <= 20
    played = paced.run(1, 10, "fast", 0)
    assert played["taps"] > 0 and played["incomplete"] == 0


def test_a_bench_seed_plays_the_same_games() -> None:
    """Before and after are compared game for game: the bench seed fixes the decks and
    seats (the bot draws them from ``secrets``), so two runs of one seed agree, and another
    seed plays another game."""
    from shbot.bench.messages import bench_messages

    def played(seed: int) -> tuple[object, ...]:
        """The game itself (its presses and the messages sent; an edit more or less at the
        end may follow the order in which the outbox's workers finish)."""
        (row,) = bench_messages(1, seed, [5])
        return row["updates"], row["private_sends"], row["group_sends"]

    assert played(3) == played(3)
    assert len({played(3), played(4), played(5)}) > 1
