"""No amnesia: a computer player built mid-game (a take-over, a restart, another process)
recalls what its seat was shown and the public record, and then decides exactly as one
that watched the game from the start with the same seed."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from shbot.engine import Event
from shbot.players import AGENTS, Agent, HeuristicAgent
from shbot.simulate import game_seeds, play
from shbot.table import computer_talk, seats
from shbot.table.lobby import new_lobby, start
from shbot.table.model import Player, Table


def replayed(
    players: int, seed: int, rebuild: Callable[[int, int], bool] | None
) -> tuple[list[Event], list[Any], str]:
    events: list[Event] = []
    result = play(players, seed, "heuristic", "heuristic", events, rebuild=rebuild)
    return events, result.claims, result.winner


def test_a_take_over_or_a_restart_changes_no_decision() -> None:
    """The same seeds played straight, with one seat taken over mid-game, and with every
    seat restarted mid-game: the same games, move for move and claim for claim."""
    for k, seed in enumerate(game_seeds(21, 120)):
        n = 5 + k % 6
        straight = replayed(n, seed, None)
        at, who, again = 8 + k % 30, k % n, (5 + k % 20, 40 + k % 15)
        taken = replayed(n, seed, lambda step, s: step == at and s == who)  # noqa: B023
        restarted = replayed(n, seed, lambda step, s: step in again)  # noqa: B023
        assert taken == straight, (n, seed)
        assert restarted == straight, (n, seed)


def test_an_agent_rebuilt_from_the_views_alone_would_play_differently() -> None:
    """The check above can fail: without the record (the old reset) games change."""

    def amnesic(self: HeuristicAgent, seat: int, game: Any, past: Any) -> None:
        self.reset(seat, game)

    changed = 0
    original = HeuristicAgent.recall
    HeuristicAgent.recall = amnesic  # type: ignore[method-assign,assignment]
    try:
        for k, seed in enumerate(game_seeds(21, 40)):
            n = 5 + k % 6
            changed += replayed(n, seed, lambda step, s: step == 12) != replayed(n, seed, None)
    finally:
        HeuristicAgent.recall = original  # type: ignore[method-assign]
    assert changed >= 5


def mind(agent: Agent) -> dict[str, Any]:
    """Everything an agent remembers (its dice aside: they are rolled afresh per decision)."""
    return {k: v for k, v in vars(agent).items() if k != "rng"}


def test_at_the_table_an_agent_built_from_the_record_equals_one_that_kept_up() -> None:
    """A table with a person (a computer stands in) and six computers: each seat has an
    agent that kept up with the table's record step by step; before every move, an agent
    built from the whole record remembers the same and makes the same move."""
    for seed in range(4):
        table_kept_up(seed)


def table_kept_up(seed: int) -> None:
    table = new_lobby(Player(1, "Host", "en", ready=True), created=1.0)
    seats.add_computers(table, 1, True, 6, "en")
    start(table, 1, False, seed, {})
    table.standins.append(1)
    game = table.game
    assert game is not None
    kept: dict[int, tuple[Agent, int, set[str]]] = {}
    for s in range(game.n):
        agent = AGENTS["heuristic"](random.Random(f"{table.gid}:{s}"))
        past, lines, keys = computer_talk.record(table, s)
        agent.recall(s, seats.SeatView(game), past)
        kept[s] = (agent, lines, set(keys))

    def up_to_date(seat: int) -> Agent:
        agent, lines, heard = kept[seat]
        past, lines, keys = computer_talk.record(table, seat, lines, heard)
        agent.remember(past)
        kept[seat] = (agent, lines, heard | set(keys))
        fresh = AGENTS["heuristic"](random.Random(f"{table.gid}:{seat}"))
        fresh.recall(seat, seats.SeatView(game), computer_talk.record(table, seat)[0])
        assert mind(fresh) == mind(agent), (seed, table.step, seat)
        return fresh

    moves = claimed = 0
    while not game.is_over and moves < 400:
        for k in computer_talk.due(table):
            seat = int(table.talk["sights"][k][0])
            computer_talk.speak(table, table.gid, k, up_to_date(seat))
            claimed += 1
        pending = seats.pending(table)
        if not pending:
            break
        seat = pending[0]
        fresh = up_to_date(seat)
        mirror = Table.from_dict(table.to_dict())  # the agent that kept up moves there
        assert mirror.game is not None
        seats.act(mirror, mirror.gid, mirror.step, seat, kept[seat][0])
        seats.act(table, table.gid, table.step, seat, fresh)
        assert mirror.game.to_dict() == game.to_dict()
        moves += 1
    assert game.is_over and claimed > 5


def test_table_record_puts_each_claim_where_it_was_made() -> None:
    table = Table("g", 1, 1.0)
    table.log = "\n".join(['["tracker_advanced",[1]]', '["tracker_advanced",[2]]'])
    table.talk = {
        "claims": {"1:drawn": [1, 0, "drawn", "FFL", None, None]},
        "at": {"1:drawn": 1},
    }
    past, lines, keys = computer_talk.record(table, 0)
    assert [type(m).__name__ for m in past] == ["Event", "Claim", "Event"]
    assert (lines, keys) == (2, ["1:drawn"])
    assert computer_talk.record(table, 0, 2, {"1:drawn"}) == ([], 2, [])
