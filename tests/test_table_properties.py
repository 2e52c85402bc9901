"""Many seeded random games played only through the table's transitions (presses and
deadlines, never the engine directly): every game ends, the step only moves forward one at
a time, a refusal changes nothing, and no group message ever carries a seat's secret."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from shbot.engine import PRIVATE_KINDS, Phase, Vote
from shbot.table import GROUP, PRIVATE_PHASES, Outcome, Refusal, Table, prompt_seat
from shbot.table.play import check_press, play
from shbot.table.timers import timeout

from .table_helpers import game_of, refused, snapshot, started, uid

GAMES = 60
GROUP_SLOTS = {"lobby", "board", "round", "over", "timeout", "remind"}
PRIVATE_SLOTS = {"role", "prompt", "peek", "nudge", "claim"}
SECRET_KEYS = {"role", "roles", "hand", "policies", "party", "fascists", "hitler"}
SECRET_KINDS = {k.value for k in PRIVATE_KINDS}


def secrets_in(payload: Any) -> list[str]:
    """Keys or event kinds anywhere in ``payload`` that only a seat may know."""
    if isinstance(payload, dict):
        found = [k for k in payload if k in SECRET_KEYS]
        return found + [s for v in payload.values() for s in secrets_in(v)]
    if isinstance(payload, list):
        head = payload[0] if payload else None
        found = [head] if isinstance(head, str) and head in SECRET_KINDS else []
        return found + [s for v in payload for s in secrets_in(v)]
    return []


def check_owed(table: Table) -> None:
    ids = {p.id for p in table.players}
    for slot, (seq, chat, payload) in table.owed.items():
        family = slot.split(":")[0]
        assert 0 < seq <= table.seq, slot
        if chat == GROUP:
            assert family in GROUP_SLOTS, f"{slot} goes to the group"
            assert not secrets_in(payload), f"{slot} shows {secrets_in(payload)} to the group"
        else:
            assert family in PRIVATE_SLOTS and chat in ids, f"{slot} goes to {chat}"
            if family == "prompt":
                assert chat == uid(table, payload["seat"]), slot


def refusals(table: Table, rng: random.Random) -> None:
    """Presses the table must refuse without changing anything."""
    game = game_of(table)
    living = [s for s in range(game.n) if game.alive[s]]
    seat = rng.choice(living)
    if table.step > 1:
        late = refused(
            lambda: check_press(table, table.gid, table.step - 1, uid(table, seat)),
            table,
            "step_over",
        )
        assert late.params["phase"] == game.phase.value
    idle = [s for s in living if s not in game.to_act()]
    if game.phase is not Phase.VOTE and idle:
        other = rng.choice(idle)
        action = game.legal_actions(game.to_act()[0])[0]
        stolen = type(action)(other, *action[1:])
        turn = refused(lambda: play(table, other, stolen), table, "not_turn")
        assert turn.params == {"seat": prompt_seat(game)}
    dead = [s for s in range(game.n) if not game.alive[s]]
    if dead:
        refused(lambda: play(table, dead[0], Vote(dead[0], True)), table, "dead")


def move(table: Table, rng: random.Random) -> Outcome:
    """One accepted transition: a press by a seat the game waits for, or its deadline."""
    game = game_of(table)
    if rng.random() < 0.15:
        return timeout(table, table.gid, table.step, table.deadline, rng, rng.random() < 0.5)
    seat = rng.choice(game.to_act())
    if game.phase is Phase.VOTE:
        action: Any = Vote(seat, rng.random() < 0.6)
    else:
        action = rng.choice(list(game.legal_actions(seat)))
    assert check_press(table, table.gid, table.step, uid(table, seat)) == seat
    return play(table, seat, action)


def deliver_some(table: Table, rng: random.Random) -> None:
    """The outbox delivers part of what is owed (as rendered at its seq)."""
    for slot in list(table.owed):
        if rng.random() < 0.5:
            keep = slot.split(":")[0] in ("board", "round", "prompt", "lobby")
            table.delivered(slot, table.owed[slot][0], rng.randrange(1, 10**6), keep=keep)


def play_one(seed: int) -> tuple[Table, int]:
    rng = random.Random(seed)
    n = 5 + seed % 6
    options = {"shuffle_seats": seed % 2 == 0, "rebalanced": seed % 3 == 0, "timer": 60}
    table, out = started(n, seed, **options)
    check_owed(table)
    moves = 0
    while not out.ended:
        moves += 1
        assert moves < 2000, "the game does not end"
        if rng.random() < 0.2:
            refusals(table, rng)
        step, seq, before = table.step, table.seq, snapshot(table)
        try:
            out = move(table, rng)
        except Refusal as refusal:
            assert refusal.code == "same_vote", refusal.code
            assert snapshot(table) == before
            continue
        assert table.step in (step, step + 1) and out.step_changed == (table.step == step + 1)
        assert table.seq > seq and out.table is table
        check_owed(table)
        game = game_of(table)
        if out.step_changed and not game.is_over and game.phase in PRIVATE_PHASES:
            assert table.owed[f"prompt:{table.step}"][1] == uid(table, prompt_seat(game))
        if out.step_changed and not game.is_over:
            assert table.deadline is not None and not table.reminded
        deliver_some(table, rng)
        if rng.random() < 0.1:
            table = Table.from_dict(json.loads(json.dumps(table.to_dict())))
    return table, moves


@pytest.mark.parametrize("chunk", range(4))
def test_random_games_through_the_table_end_and_keep_secrets(chunk: int) -> None:
    ends = set()
    for seed in range(chunk, GAMES, 4):
        table, moves = play_one(seed)
        game = game_of(table)
        assert game.is_over and table.ending == "finished" and table.deadline is None
        assert "over" in table.owed or moves > 0
        result = table.result()
        assert result is not None and len(result["players"]) == game.n
        ends.add(result["condition"])
    assert len(ends) >= 2  # not one degenerate ending


def test_the_secret_finder_finds_secrets() -> None:
    """The check above would catch a role, a hand or a private event in a group payload."""
    assert secrets_in({"log": [["role", {"role": "H"}]]}) == ["role", "role"]
    assert secrets_in({"log": [["president_hand", {"x": 1}]]}) == ["president_hand"]
    assert secrets_in([["nominated", {"president": 0}]]) == []
    with pytest.raises(AssertionError):
        table, _ = started(5)
        table.owe("board", payload={"hand": ["L", "F", "F"]})
        check_owed(table)
