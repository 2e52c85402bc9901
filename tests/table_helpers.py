"""Helpers for the pure table tests: people, lobbies and games built without the bot.

A press goes through :func:`press` exactly as the bot's handler does it (``check_press``
then ``play``); :func:`refused` asserts a transition's Refusal and that it left the table
exactly as it was (the same ``to_dict``).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from shbot.engine import Discard, Enact, Game, Kind, Nominate, Phase, Vote
from shbot.engine.actions import Action
from shbot.table import Outcome, Player, Refusal, Table
from shbot.table.lobby import join, new_lobby, start
from shbot.table.play import check_press, play

FLEXIBLE_DECK = "LFF" * 5 + "LF"  # every hand is L,F,F: a government enacts either party
ROLES = {5: "LLLFH", 6: "LLLLFH", 7: "LLLLFFH", 8: "LLLLLFFH", 9: "LLLLLFFFH", 10: "LLLLLLFFFH"}


def person(i: int, *, ready: bool = True) -> Player:
    """User ``100 + i`` named ``P{i}``."""
    return Player(100 + i, f"P{i}", None, ready)


def lobby(n: int, *, ready: bool = True) -> Table:
    """A lobby opened by P0 with P1..P{n-1} joined in order."""
    table = new_lobby(person(0, ready=ready), created=1000.0)
    for i in range(1, n):
        join(table, person(i, ready=ready))
    return table


def started(n: int, seed: int = 1, **options: Any) -> tuple[Table, Outcome]:
    """A game started by the host through :func:`start` (the engine deals the roles)."""
    table = lobby(n)
    return table, start(table, table.host, False, seed, options)


def scripted(
    n: int = 5, *, first: int = 0, timer: int = 0, seed: int = 0, deck: str = FLEXIBLE_DECK
) -> Table:
    """A running table with fixed roles (Hitler last), the flexible deck and president
    ``first``, built directly (as a stored table would be loaded)."""
    game, _ = Game.new(n, seed, roles=ROLES[n], deck=deck, first_president=first)
    table = Table(
        gid="g1",
        host=100,
        created=1000.0,
        players=[person(i) for i in range(n)],
        game=game,
        step=1,
        options={"timer": timer},
    )
    table.restart_clock(now=5000.0)
    return table


def snapshot(table: Table) -> str:
    """Everything stored of ``table`` (its JSON text, keys sorted)."""
    return json.dumps(table.to_dict(), sort_keys=True)


def refused(change: Callable[[], object], table: Table, code: str) -> Refusal:
    """``change`` raises a Refusal ``code`` and leaves ``table`` exactly as it was."""
    before = snapshot(table)
    with pytest.raises(Refusal) as info:
        change()
    assert info.value.code == code, f"{info.value.code} (params {info.value.params}) != {code}"
    assert snapshot(table) == before, f"refusal {code} changed the table"
    return info.value


def uid(table: Table, seat: int) -> int:
    return table.at(seat).id


def press(table: Table, seat: int, action: Action) -> Outcome:
    """What the bot does for a press on the current step's button by ``seat``'s player."""
    user = uid(table, seat)
    assert check_press(table, table.gid, table.step, user) == seat
    return play(table, seat, action)


def game_of(table: Table) -> Game:
    assert table.game is not None
    return table.game


def chancellor_for(table: Table) -> int:
    """The first eligible chancellor who is not Hitler (so no game ends by accident)."""
    game = game_of(table)
    return next(s for s in game.eligible_chancellors() if game.roles[s] != "H")


def elect(table: Table, chancellor: int | None = None) -> list[Outcome]:
    """Nominate and have every living player vote Ja!, press by press."""
    game = game_of(table)
    target = chancellor_for(table) if chancellor is None else chancellor
    outs = [press(table, game.president, Nominate(game.president, target))]
    for seat in range(game.n):
        if game.alive[seat] and game.phase is Phase.VOTE:
            outs.append(press(table, seat, Vote(seat, True)))
    return outs


def fascist_round(table: Table) -> list[Outcome]:
    """Elect a government that passes and enacts a Fascist policy."""
    outs = elect(table)
    game = game_of(table)
    outs.append(press(table, game.president, Discard(game.president, "L")))
    outs.append(press(table, game.chancellor, Enact(game.chancellor, "F")))
    return outs


def kinds(outcome: Outcome) -> list[Kind]:
    return [e.kind for e in outcome.events]
