"""Complete games, 5 to 10 players, through button presses only.

Each game is scripted election by election (see ``Plan`` in tests/botplay.py) so that,
across the suite, every power, an accepted and a refused veto, chaos and each of the four
ways to win happen at least once; ``check_game`` then checks what every finished game must
satisfy: the game-over message in the group reveals every role, the store archived the game
and released the players, the group never saw a secret before the end, each private message
reached only the player entitled to it, and every call Telegram got was valid.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pytest

from shbot.storage import Store
from tests.botplay import Bot, check_game, history_tags, play_planned, running_bot
from tests.harness import make_users


@dataclass(frozen=True)
class Scenario:
    players: int
    tokens: Sequence[str]
    targets: Sequence[int | str]
    hitler: int
    condition: str
    tags: dict[str, int]  # engine history entries the game must contain (at least)
    liberal: int
    fascist: int
    absent: frozenset[str] = frozenset()  # history entries the game must not contain


SCENARIOS = {
    # Peek (F3), execution (F4), then the second execution kills Hitler.
    "5p-peek-execute-hitler": Scenario(
        5, ["F", "L", "x", "F", "F", "F"], ["H"], 3, "hitler_executed", {"peek": 1, "x": 1}, 1, 4
    ),
    # Chaos enacts the third Fascist policy (its Policy Peek is ignored), two executions
    # leave four alive, the veto is accepted once and refused once; six Fascist policies.
    "6p-chaos-veto-six-fascist": Scenario(
        6,
        ["F", "F", "x", "x", "cF", "L", "F", "F", "V", "RF"],
        [],
        5,
        "six_fascist",
        {"c": 1, "x": 2, "v": 1, "vr": 1},
        1,
        6,
        absent=frozenset({"peek"}),
    ),
    # Investigate (F2), special election (F3), five Liberal policies.
    "7p-investigate-special-five-liberal": Scenario(
        7,
        ["L", "F", "F", "L", "F", "L", "L", "L"],
        [],
        2,
        "five_liberal",
        {"i": 1, "s": 1},
        5,
        3,
    ),
    # Investigate, special election, a confirmed non-Hitler, then Hitler is elected.
    "8p-hitler-elected": Scenario(
        8, ["L", "F", "x", "F", "F", "L", "H"], [], 6, "hitler_elected", {"i": 1, "s": 1}, 2, 3
    ),
    # Two investigations, special election, two executions: the second one hits Hitler.
    "9p-all-powers-hitler-executed": Scenario(
        9,
        ["F", "F", "F", "F", "L", "F"],
        [1, 2, 3, 4, "H"],
        7,
        "hitler_executed",
        {"i": 2, "s": 1, "x": 2},
        1,
        5,
    ),
    # The longest: every 9-10p power, chaos, an accepted and a refused veto, five Liberal.
    "10p-long-five-liberal": Scenario(
        10,
        ["F", "L", "F", "F", "F", "x", "x", "cL", "L", "F", "V", "RL", "L"],
        [],
        9,
        "five_liberal",
        {"i": 2, "s": 1, "x": 2, "c": 1, "v": 1, "vr": 1},
        5,
        5,
    ),
}


async def play_scenario(bot: Bot, scenario: Scenario, seed: int = 0) -> None:
    users = make_users(scenario.players)
    played = await play_planned(
        bot, users, scenario.tokens, targets=scenario.targets, hitler=scenario.hitler, seed=seed
    )
    game = played.game
    assert game.condition is not None and game.condition.value == scenario.condition
    assert (game.liberal, game.fascist) == (scenario.liberal, scenario.fascist)
    tags = history_tags(game)
    for tag, count in scenario.tags.items():
        assert tags[tag] >= count, f"expected {count} {tag!r} in the history: {game.history}"
    for tag in scenario.absent:
        assert not tags[tag], f"unexpected {tag!r} in the history: {game.history}"
    if scenario.condition == "hitler_elected":
        assert any(game.confirmed), "a Chancellor elected after F3 is confirmed not Hitler"
    await check_game(bot, played)


@pytest.mark.parametrize("name", list(SCENARIOS))
async def test_complete_game(bot: Bot, name: str) -> None:
    await play_scenario(bot, SCENARIOS[name])


async def test_complete_game_on_redis(redis_store: Store) -> None:
    """The same bot on the Redis backend (several bot processes can share one Redis)."""
    async with running_bot(redis_store) as bot:
        await play_scenario(bot, SCENARIOS["8p-hitler-elected"], seed=3)


def test_scenarios_cover_every_power_veto_chaos_and_ending() -> None:
    tags: set[str] = set()
    for scenario in SCENARIOS.values():
        tags |= {t for t, n in scenario.tags.items() if n}
    assert {"i", "s", "peek", "x", "v", "vr", "c"} <= tags
    assert {s.condition for s in SCENARIOS.values()} == {
        "five_liberal",
        "hitler_executed",
        "six_fascist",
        "hitler_elected",
    }
    assert sorted(s.players for s in SCENARIOS.values()) == [5, 6, 7, 8, 9, 10]
