"""The simulator: honest counts, reproducible runs, readable transcripts."""

from __future__ import annotations

import json
from typing import Any

import pytest

from shbot.engine import Event
from shbot.simulate import game_seeds, parse_players, play, play_random, simulate
from shbot.transcript import _English, get_translator, render

CONDITIONS = {"five_liberal", "hitler_executed", "six_fascist", "hitler_elected"}


def test_parse_players() -> None:
    assert parse_players("7") == [7]
    assert parse_players("5-10") == [5, 6, 7, 8, 9, 10]
    for bad in ("4", "5-11", "8-6", "x", "", "11"):
        with pytest.raises(ValueError):
            parse_players(bad)


def test_game_seeds_are_distinct_across_neighbouring_runs() -> None:
    a, b = game_seeds(1, 50), game_seeds(2, 50)
    assert len(set(a) | set(b)) == 100
    assert game_seeds(1, 50) == a


def check_part(part: dict[str, Any]) -> None:
    assert sum(part["wins"].values()) == part["games"]
    assert set(part["conditions"]) == CONDITIONS
    assert sum(part["conditions"].values()) == part["games"]
    assert part["wins"]["liberal"] == (
        part["conditions"]["five_liberal"] + part["conditions"]["hitler_executed"]
    )
    if part["games"]:
        assert 1 <= part["mean_rounds"] < 60
        assert part["actions_per_game"] > 10


@pytest.mark.parametrize("agents", [("random", "random"), ("heuristic", "heuristic")])
def test_summary_keys_and_sums(agents: tuple[str, str]) -> None:
    s = simulate(60, list(range(5, 11)), 4, *agents)
    for key in ("games", "seconds", "games_per_second", "wins", "conditions", "mean_rounds"):
        assert key in s
    assert s["games"] == 60 and s["seconds"] > 0 and s["games_per_second"] > 0
    check_part(s)
    assert set(s["by_players"]) == {str(p) for p in range(5, 11)}
    assert sum(p["games"] for p in s["by_players"].values()) == 60
    for part in s["by_players"].values():
        assert part["games"] == 10
        check_part(part)


def test_reproducible() -> None:
    def strip(s: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in s.items() if k not in ("seconds", "games_per_second")}

    for agents in (("random", "random"), ("heuristic", "random")):
        a = simulate(40, [5, 8, 10], 123, *agents)
        assert strip(a) == strip(simulate(40, [5, 8, 10], 123, *agents))
        assert strip(a) != strip(simulate(40, [5, 8, 10], 124, *agents))


def count_decisions(history: list[list[Any]]) -> int:
    """Decisions recomputed from the engine's history (see GameResult.actions)."""
    n = 0
    for h in history:
        if h[0] == "e":  # a nomination and every living ballot
            n += 1 + sum(c in "jn" for c in h[4])
        elif h[0] == "p":  # president discard + chancellor enactment
            n += 2
        elif h[0] == "v":  # discard + veto proposal + accepted answer
            n += 3
        elif h[0] == "vr":  # veto proposal + refusal (the enactment follows as "p")
            n += 2
        elif h[0] in ("i", "s", "x"):
            n += 1
    return n


def test_actions_counted_honestly(monkeypatch: pytest.MonkeyPatch) -> None:
    """The decision count of both loops matches the engine's own record of the game."""
    from shbot import simulate as sim

    games: list[Any] = []
    original = sim._result

    def grab(game: Any, *args: Any) -> Any:
        games.append(game)
        return original(game, *args)

    monkeypatch.setattr(sim, "_result", grab)
    for seed in game_seeds(9, 40):
        assert play_random(10, seed).actions == count_decisions(games[-1].history)
        assert play(7, seed, "heuristic", "random").actions == count_decisions(games[-1].history)


@pytest.mark.parametrize("agents", [("random", "random"), ("heuristic", "heuristic")])
def test_transcript_mentions_every_round_and_the_end(agents: tuple[str, str]) -> None:
    for k, seed in enumerate(game_seeds(5, 12)):
        events: list[Event] = []
        players = 5 + k % 6
        result = (
            play_random(players, seed, events)
            if agents[0] == "random"
            else play(players, seed, *agents, events)
        )
        text = "\n".join(render(events, get_translator("en")))
        for n in range(1, result.rounds + 1):
            assert f"\nRound {n}: " in text
        assert f"Round {result.rounds + 1}:" not in text
        assert "win:" in text
        assert text.count("[private]") >= 1
        assert f"The game lasted {result.rounds} round" in text
        assert f"Player {players}:" in text and f"Player {players + 1}" not in text


def test_transcript_stub_translator_matches_english() -> None:
    events: list[Event] = []
    play_random(8, 77, events)
    assert render(events, _English()) == render(events, get_translator("en"))
    names = [f"P{s}" for s in range(8)]
    assert "P0" in "\n".join(render(events, names=names))


def test_cli_simulate_json_is_one_object_with_the_documented_keys(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``python -m shbot simulate --json``: exactly one JSON object on stdout with the keys
    the issue fixes (games, seconds, games_per_second, wins, conditions, mean_rounds)."""
    from shbot.cli import main

    argv = ["simulate", "--games", "12", "--players", "5-10", "--seed", "1", "--json"]
    assert main([*argv, "--agents", "heuristic"]) == 0
    out, _ = capsys.readouterr()
    assert out.count("\n") == 1
    data = json.loads(out)
    keys = {"games", "seconds", "games_per_second", "wins", "conditions", "mean_rounds"}
    assert keys <= set(data)
    assert data["games"] == 12 and data["seconds"] > 0 and data["games_per_second"] > 0
    assert set(data["wins"]) == {"liberal", "fascist"} and sum(data["wins"].values()) == 12
    assert set(data["conditions"]) == CONDITIONS and sum(data["conditions"].values()) == 12
    assert isinstance(data["mean_rounds"], float) and 1 <= data["mean_rounds"] < 60


def test_transcript_is_plain_prose_for_a_person() -> None:
    """A transcript reads as sentences: no internal names, dicts, enums or raw seat
    numbers leak into it, and every round is a blank-line-separated block."""
    for seed in game_seeds(11, 6):
        events: list[Event] = []
        result = play(9, seed, "heuristic", "random", events)
        lines = render(events, get_translator("en"), seed=seed)
        text = "\n".join(lines)
        for leak in ("{", "}", "['", "Kind.", "Phase.", "None", "seat", "_", "<"):
            assert leak not in text, (leak, text)
        assert text.count("\n\nRound ") == result.rounds
        assert all(line == line.rstrip() for line in lines)
        assert "Player 0" not in text, "seats are numbered from 1 for people"


def test_tournament_rows_edges_and_timings() -> None:
    from shbot.tournament import tournament, tournament_table

    result = tournament(12, [5, 9], 2)
    assert [r["players"] for r in result["rows"]] == [5, 9]
    for row in result["rows"]:
        assert row["liberal"] + row["fascist"] == pytest.approx(1.0)
        assert row["liberal_edge"] == pytest.approx(
            100 * (row["liberal"] - row["random_liberals_liberal"]), abs=0.06
        )
        assert row["fascist_edge"] == pytest.approx(
            100 * (row["fascist"] - row["random_fascists_fascist"]), abs=0.06
        )
        assert row["decisions"] > 12 * 40 and 0 < row["p50_ms"] <= row["p99_ms"] <= row["max_ms"]
    table = tournament_table(result)
    assert table.count("\n| 5 |") == 1 and table.count("\n| 9 |") == 1 and "missed:" in table


def test_tournament_names_every_missed_target() -> None:
    from shbot.tournament import _missed

    row = {
        "players": 7,
        "fascist": 0.3,
        "human_fascist": 52.0,
        "liberal_edge": 25.0,
        "fascist_edge": 12.5,
        "counter_gain": 7.5,
        "restart_cost": 0.0,
        "p99_ms": 6.0,
    }
    claims = {"any": {"n": 100, "fascist_team": 40.0}, "FFF": {"n": 50, "fascist_team": 50.0}}
    endings = {"six_fascist": {"share": 5.0, "human": 15.9}}
    missed = _missed({"rows": [row], "endings_7": endings, "talk": {"claims": claims}})
    assert len(missed) == 6, missed
    assert "30.0%" in missed[0] and "fascist edge 12.5" in missed[1]
    assert "+7.5" in missed[2] and "6.0 ms" in missed[3]
    assert "six_fascist" in missed[4] and "FFF" in missed[5]


def test_cli_tournament_prints_the_table(capsys: pytest.CaptureFixture[str]) -> None:
    from shbot.cli import main

    assert main(["simulate", "--tournament", "--games", "4", "--players", "6", "--seed", "5"]) == 0
    out, _ = capsys.readouterr()
    assert "| 6 |" in out and "Fascist edge" in out and "4 games per match-up" in out
