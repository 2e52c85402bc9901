"""Computer seats as pure table logic (no bot): filling a lobby, playing, standing in."""

from __future__ import annotations

import random

import pytest

from shbot.engine import Phase
from shbot.engine.claims import Claim, ClaimKind
from shbot.players import AGENTS, Agent, deliver
from shbot.table import Refusal, claims, computer_talk, seats
from shbot.table import timers as table_timers
from shbot.table.lobby import check_start, leave, new_lobby, start
from shbot.table.model import Player, Table


def lobby(people: int = 1) -> Table:
    table = new_lobby(Player(1, "Host", "en", ready=True), created=1.0)
    for i in range(2, people + 1):
        table.players.append(Player(i, f"P{i}", "en", ready=True))
    return table


def test_computer_players_fill_a_lobby_with_names_of_its_language() -> None:
    table = lobby()
    seats.add_computers(table, 1, True, 3, "ja")
    robots = table.players[1:]
    assert [p.name for p in robots] == ["🤖 さくら", "🤖 はると", "🤖 ゆい"]
    assert all(p.id < 0 and p.ready for p in robots)
    assert len({p.id for p in table.players}) == 4
    seats.add_computers(table, 1, True, 99, "fr")  # as many as fit
    assert len(table.players) == seats.MAX_SEATS
    assert table.players[4].name == "🤖 Camille"
    with pytest.raises(Refusal) as full:
        seats.add_computers(table, 1, True, 1, "en")
    assert full.value.code == "full"
    check_start(table, 1)  # computers count toward the minimum and need no private chat


def test_only_the_host_or_an_admin_changes_computer_seats_in_the_lobby_only() -> None:
    table = lobby(2)
    with pytest.raises(Refusal) as refused:
        seats.add_computers(table, 2, False, 1, "en")
    assert refused.value.code == "not_host_bots"
    with pytest.raises(Refusal) as none:
        seats.remove_computer(table, 1, True)
    assert none.value.code == "no_bots"
    seats.add_computers(table, 1, True, 3, "en")
    seats.remove_computer(table, 1, True)
    assert [p.name for p in table.players] == ["Host", "P2", "🤖 Alice", "🤖 Ben"]
    seats.add_computers(table, 1, True, 1, "en")
    start(table, 1, False, 3, {})
    with pytest.raises(Refusal) as started:
        seats.add_computers(table, 1, True, 1, "en")
    assert started.value.code == "started"


def test_no_game_of_computers_alone() -> None:
    table = lobby()
    seats.add_computers(table, 1, True, 5, "en")
    table.players.pop(0)  # as if the person were gone
    with pytest.raises(Refusal) as refused:
        check_start(table, -1)
    assert refused.value.code == "no_humans"
    table = lobby()
    seats.add_computers(table, 1, True, 5, "en")
    outcome = leave(table, 1)
    assert outcome.ended and table.ending == "cancelled"


def started(people: int, computers: int, seed: int = 11) -> Table:
    table = lobby(people)
    seats.add_computers(table, 1, True, computers, "en")
    start(table, 1, False, seed, {"timer": 60})
    return table


def test_nothing_private_is_owed_to_a_computer_seat() -> None:
    table = started(1, 4)
    assert table.game is not None
    private = [v[1] for v in table.owed.values() if v[1] != 0]
    assert private == [1], table.owed  # only the person's role


def play_out(table: Table, agents: dict[int, Agent]) -> int:
    """Every seat is a computer here: act until the game ends."""
    game = table.game
    assert game is not None
    moves = 0
    while not game.is_over:
        due = seats.pending(table)
        assert due, f"nobody to act at step {table.step}"
        seat = due[0]
        outcome = seats.act(table, table.gid, table.step, seat, agents[seat])
        for s, agent in agents.items():
            deliver(agent, s, outcome.events)
        moves += 1
        assert moves < 1000
    return moves


@pytest.mark.parametrize("players", [5, 7, 10])
def test_computer_seats_play_a_whole_game_through_the_table(players: int) -> None:
    table = lobby()
    seats.add_computers(table, 1, True, players - 1, "en")
    start(table, 1, False, players, {})
    table.standins.append(1)  # the person too is played by a computer
    assert table.game is not None
    agents: dict[int, Agent] = {}
    for seat in range(players):
        agents[seat] = AGENTS["heuristic"](random.Random(seat))
        agents[seat].reset(seat, seats.SeatView(table.game))
    assert play_out(table, agents) > players
    assert table.ending == "finished" and table.result() is not None
    result = seats.human_result(table.result())
    assert result is not None and [p["user_id"] for p in result["players"]] == [1]


def test_late_or_duplicate_computer_moves_are_refused() -> None:
    table = started(1, 4)
    game = table.game
    assert game is not None
    seat = next(s for s in range(5) if seats.computer_seat(table, s))
    agent = AGENTS["heuristic"](random.Random(1))
    agent.reset(seat, seats.SeatView(game))
    for gid, step in ((table.gid, table.step + 1), ("other", table.step)):
        with pytest.raises(Refusal):
            seats.act(table, gid, step, seat, agent)
    human = table.seat_of(1)
    assert human is not None
    with pytest.raises(Refusal):  # a person's seat is not the computer's to play
        seats.act(table, table.gid, table.step, human, agent)
    while game.phase is not Phase.VOTE:
        due = seats.pending(table)
        if not due:  # the person nominates
            table.game.apply(game.legal_actions(human)[0])
            continue
        seats.act(table, table.gid, table.step, due[0], agent)
    step = table.step
    voter = seats.pending(table)[0]
    seats.act(table, table.gid, step, voter, agent)
    with pytest.raises(Refusal):  # it voted already
        seats.act(table, table.gid, step, voter, agent)


def test_think_seconds_are_short_varied_and_stable() -> None:
    table = started(1, 9)
    pauses = {seats.think_seconds(table, s) for s in range(10)}
    assert len(pauses) > 3 and all(1.0 <= p <= 6.0 for p in pauses)
    assert seats.think_seconds(table, 3) == seats.think_seconds(table, 3)


def test_two_missed_deadlines_bring_a_stand_in_and_the_person_takes_the_seat_back() -> None:
    table = started(5, 0, seed=4)
    game = table.game
    assert game is not None
    president = table.at(game.president).id
    rng = random.Random(0)
    for _ in range(2):
        assert table.deadline is not None
        outcome = table_timers.timeout(table, table.gid, table.step, table.deadline, rng, True)
        seats.absent_after_timeout(outcome, True)
    # Everybody missed the vote too: every living person is now played by a computer.
    assert president in table.standins
    slot = f"standin:{table.seat_of(president)}"
    assert table.owed[slot][2]["why"] == "absent"
    assert any(k.startswith("seatback:") and v[1] == president for k, v in table.owed.items())
    with pytest.raises(Refusal):
        seats.take_back(table, "nope", president)
    seats.take_back(table, table.gid, president)
    assert president not in table.standins and table.owed[slot][2]["back"]
    with pytest.raises(Refusal) as again:
        seats.take_back(table, table.gid, president)
    assert again.value.code == "not_standin"


def test_stand_in_is_a_group_choice_and_leaving_a_running_game_brings_one() -> None:
    table = started(5, 0, seed=4)
    with pytest.raises(Refusal) as off:
        seats.leave_running(table, 3, False)
    assert off.value.code == "started_leave"
    seats.leave_running(table, 3, True)
    assert table.standins == [3]
    assert table.owed[f"standin:{table.seat_of(3)}"][2]["why"] == "left"
    outcome = table_timers.timeout(
        table, table.gid, table.step, table.deadline, random.Random(), True
    )
    seats.absent_after_timeout(outcome, False)
    assert table.standins == [3]


class Broken:
    """A computer player that fails: raises, or answers with a move that is not legal."""

    observes = False

    def __init__(self, raises: bool) -> None:
        self.raises = raises

    def reset(self, seat: int, game: object) -> None: ...

    def observe(self, events: object) -> None: ...

    def act(self, game: object, seat: int) -> object:
        if self.raises:
            raise RuntimeError("bug")
        return "not a move"

    def ballot(self, game: object, seat: int) -> bool:
        raise RuntimeError("bug")


@pytest.mark.parametrize("raises", [True, False])
def test_a_failing_computer_player_never_stalls_the_game(raises: bool) -> None:
    table = lobby()
    seats.add_computers(table, 1, True, 4, "en")
    start(table, 1, False, 2, {})
    table.standins.append(1)
    agents: dict[int, Agent] = {s: Broken(raises) for s in range(5)}  # type: ignore[misc]
    assert play_out(table, agents) > 5
    assert table.ending == "finished"


def test_a_person_a_computer_plays_for_gets_no_prompt() -> None:
    table = started(5, 0, seed=4)
    game = table.game
    assert game is not None
    president = table.at(game.president).id
    seats.stand_in(table, president, "left")
    table.owe(f"prompt:{table.step}", president, {"seat": game.president})
    table.owe(f"nudge:{table.step}:{game.president}", president, {})
    assert f"prompt:{table.step}" not in table.owed
    assert not any(k.startswith("nudge:") for k in table.owed)
    table.owe(f"peek:{table.step}", president, {"policies": []})  # what the seat saw stays
    assert f"peek:{table.step}" in table.owed


def test_computer_players_claim_through_the_claims_transition_once() -> None:
    """After each session a computer's sight is due; it speaks once, through the same
    transition as a person's button, and a late or repeated call is refused unchanged."""
    table = lobby()
    seats.add_computers(table, 1, True, 6, "en")
    start(table, 1, False, 3, {})
    table.standins.append(1)
    assert table.game is not None
    agents = {s: AGENTS["heuristic"](random.Random(s)) for s in range(7)}
    for seat, agent in agents.items():
        agent.reset(seat, seats.SeatView(table.game))
    spoken: list[Claim] = []
    while not table.game.is_over and len(spoken) < 6:
        for k in computer_talk.due(table):
            seat = int(table.talk["sights"][k][0])
            computer_talk.speak(table, table.gid, k, agents[seat])
            said = Claim.from_list(table.talk["claims"][k])
            assert said.seat == seat and said.round == claims.parse_key(k)[0]
            spoken.append(said)
            before = table.to_dict()
            with pytest.raises(Refusal):
                computer_talk.speak(table, table.gid, k, agents[seat])
            assert table.to_dict() == before
        pending = seats.pending(table)
        if not pending:
            break
        outcome = seats.act(table, table.gid, table.step, pending[0], agents[pending[0]])
        for s, agent in agents.items():
            deliver(agent, s, outcome.events)
    assert spoken, "no computer claimed after its sessions"
    assert {c.kind for c in spoken} >= {ClaimKind.DRAWN, ClaimKind.RECEIVED}
    # A computer standing in for the person (user 1) claims for the seat like the others,
    # and the absent person is never asked for a claim.
    assert all(seats.computer_seat(table, c.seat) for c in spoken)
    assert not [k for k, entry in table.owed.items() if k.startswith("claim:") and entry[1] == 1]
