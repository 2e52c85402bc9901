"""Whole games of the table layer, every seat a computer player, for the Mini App tests.

Moves and claims go through the same transitions the bot's jobs call (``seats.act``,
``computer_talk.speak``); each committed state is yielded, so a test can look at every
view the page could show during a game.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

from shbot.players import AGENTS, Agent, deliver
from shbot.table import Player, Table, computer_talk, seats
from shbot.table.lobby import new_lobby, start


def lobby_of_computers(n: int) -> Table:
    """One person (id 1, a computer plays for them: a stand-in) and ``n - 1`` computers."""
    table = new_lobby(Player(1, "Ann <b>&", "en", True), created=0.0)
    for i in range(2, n + 1):
        table.players.append(Player(-i, f"P{i}", "en", True))
    return table


def simulate(n: int, seed: int, *, claims: bool = True) -> Iterator[Table]:
    """A copy of the table after each change, from the start to the end of one game."""
    table = lobby_of_computers(n)
    outcome = start(table, table.host, False, seed, {"shuffle_seats": seed % 2 == 0})
    table.standins.append(table.host)  # every seat acts by itself
    game = table.game
    assert game is not None
    rng = random.Random(seed)
    agents: list[Agent] = []
    for seat in range(n):
        agent = AGENTS["heuristic" if seed % 3 else "random"](random.Random(rng.random()))
        agent.reset(seat, seats.SeatView(game))
        agents.append(agent)
    yield table.copy()
    for _ in range(3000):
        if game.is_over:
            return
        due = computer_talk.due(table) if claims else []
        if due and rng.random() < 0.7:
            k = due[0]
            speaker = int(table.talk["sights"][k][0])
            outcome = computer_talk.speak(table, table.gid, k, agents[speaker])
        else:
            seat = seats.pending(table)[0]
            outcome = seats.act(table, table.gid, table.step, seat, agents[seat])
            game = table.game
            assert game is not None
        for s, agent in enumerate(agents):
            deliver(agent, s, outcome.events)
        yield table.copy()
    raise AssertionError("the game did not end")
