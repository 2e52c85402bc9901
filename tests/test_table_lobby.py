"""The lobby transitions of shbot.table, tested without the bot: who may join, leave and
start, what a start deals, and what each change owes the players."""

from __future__ import annotations

import pytest

from shbot.engine import ROLE_COUNTS, Game, Kind, Phase
from shbot.table import GROUP, MAX_PLAYERS, MIN_PLAYERS, Player, Table
from shbot.table.lobby import (
    cancel,
    check_start,
    join,
    leave,
    lost_access,
    new_lobby,
    ready,
    redraw,
    start,
)

from .table_helpers import lobby, person, refused, started


def test_new_lobby_seats_the_host_and_owes_the_lobby_message() -> None:
    host = person(0)
    table = new_lobby(host, created=1234.5)
    assert table.host == 100 and table.players == [host] and table.created == 1234.5
    assert table.game is None and table.step == 0 and table.ending is None
    assert table.owed == {"lobby": [1, GROUP, None]}
    assert len(table.gid) == 8 and new_lobby(host).gid != table.gid


def test_join_appends_the_player_and_owes_the_lobby_again() -> None:
    table = new_lobby(person(0))
    out = join(table, person(1), table.gid)
    assert out.answer == "joined" and out.table is table and not out.started
    assert [p.id for p in table.players] == [100, 101]
    assert table.owed["lobby"] == [2, GROUP, None]


def test_join_is_full_at_ten() -> None:
    table = lobby(MAX_PLAYERS)
    assert MAX_PLAYERS == 10 and len(table.players) == 10
    refused(lambda: join(table, person(10)), table, "full")


def test_join_twice_is_refused_as_already_joined() -> None:
    table = lobby(3)
    refused(lambda: join(table, person(1)), table, "joined")
    refused(lambda: join(table, person(1, ready=False)), table, "joined")


def test_join_again_once_reachable_marks_the_player_ready() -> None:
    table = lobby(3, ready=False)
    out = join(table, person(2, ready=True))
    assert out.answer is None and table.players[2].ready and len(table.players) == 3
    assert "lobby" in table.owed


def test_join_an_other_lobby_or_after_the_start_is_refused() -> None:
    table = lobby(3)
    refused(lambda: join(table, person(5), "someother"), table, "over")
    game, _ = started(5)
    refused(lambda: join(game, person(7)), game, "started")
    refused(lambda: join(game, person(1)), game, "started")
    cancel(table, None, "P0")
    refused(lambda: join(table, person(8)), table, "started")


def test_leave_frees_the_player_and_passes_the_host_on() -> None:
    table = lobby(3)
    out = leave(table, 100)
    assert out.answer == "left" and out.release == [100] and not out.ended
    assert table.host == 101 and [p.id for p in table.players] == [101, 102]
    assert table.owed["lobby"][2] is None
    out = leave(table, 102)
    assert table.host == 101 and out.release == [102]


def test_the_last_one_leaving_cancels_the_lobby() -> None:
    table = lobby(1)
    out = leave(table, 100)
    assert out.ended and table.ending == "cancelled" and table.players == []
    assert table.owed["lobby"][2] == {"closed": "everybody_left"}


def test_leave_is_refused_for_strangers_and_after_the_start() -> None:
    table = lobby(3)
    refused(lambda: leave(table, 999), table, "not_in_game")
    game, _ = started(5)
    refused(lambda: leave(game, 101), game, "started_leave")


def test_ready_marks_a_lobby_player_reachable_once() -> None:
    table = lobby(2, ready=False)
    out = ready(table, 101)
    assert table.players[1].ready and not table.players[0].ready and out.table is table
    assert "lobby" in table.owed
    refused(lambda: ready(table, 101), table, "nothing")
    refused(lambda: ready(table, 999), table, "nothing")
    game, _ = started(5)
    game.players[1].ready = False
    refused(lambda: ready(game, 101), game, "nothing")


@pytest.mark.parametrize("n", [1, 2, MIN_PLAYERS - 1])
def test_check_start_needs_five_players(n: int) -> None:
    table = lobby(n)
    refusal = refused(lambda: check_start(table, 100), table, "too_few")
    assert refusal.params == {"n": n}
    refused(lambda: start(table, 100, True, 1, {}), table, "too_few")


def test_check_start_names_the_unready_players() -> None:
    table = lobby(6)
    table.players[2].ready = False
    table.players[4].ready = False
    refusal = refused(lambda: check_start(table, 100), table, "unready")
    assert refusal.params == {"names": ["P2", "P4"]} and refusal.alert


def test_only_the_host_or_an_admin_starts() -> None:
    table = lobby(5)
    check_start(table, 103)  # the checks that need no Telegram pass for anyone
    refused(lambda: start(table, 103, False, 1, {}), table, "not_host_start")
    assert start(table, 103, True, 1, {}).started


def test_start_is_refused_once_started_or_cancelled() -> None:
    table, _ = started(5)
    refused(lambda: start(table, 100, True, 2, {}), table, "started")
    refused(lambda: check_start(table, 100), table, "started")
    other = lobby(5)
    cancel(other, other.gid, "P0")
    refused(lambda: start(other, 100, True, 2, {}), other, "started")


@pytest.mark.parametrize("n", range(MIN_PLAYERS, MAX_PLAYERS + 1))
def test_start_deals_roles_and_owes_every_player_a_role(n: int) -> None:
    table, out = started(n, seed=n, shuffle_seats=True, timer=0)
    game = table.game
    assert game is not None and out.started and out.step_changed and not out.ended
    assert table.step == 1 and game.phase is Phase.NOMINATE and game.round == 1
    assert table.options == {"shuffle_seats": True, "timer": 0} and table.deadline is None
    # Seats: a permutation of the joined players, each reachable by seat_of.
    assert sorted(game.seating) == list(range(n))
    assert {table.seat_of(p.id) for p in table.players} == set(range(n))
    for seat in range(n):
        assert table.seat_of(table.at(seat).id) == seat
    libs, fascists, _ = ROLE_COUNTS[n]
    assert sorted(game.roles) == sorted("L" * libs + "F" * fascists + "H")
    roles = [e for e in out.events if e.kind is Kind.ROLE]
    assert len(roles) == n
    for e in roles:
        seat = e.to[0] if e.to else -1
        assert table.owed[f"role:{seat}"][1:] == [table.at(seat).id, e.data]
        assert e.data["role"] == game.roles[seat]
    assert table.owed["lobby"][1:] == [GROUP, {"closed": "started"}]
    assert table.owed["board"][1:] == [GROUP, None]
    assert table.owed["round:1"][1:] == [GROUP, None]
    assert set(table.owed) == {"lobby", "board", "round:1"} | {f"role:{s}" for s in range(n)}
    assert table.round_log == [
        ["round_started", e.data] for e in out.events if e.kind is Kind.ROUND_STARTED
    ]


def test_start_is_seeded_and_arms_the_timer() -> None:
    a, _ = started(7, seed=42, timer=60)
    b, _ = started(7, seed=42, timer=60)
    assert a.game is not None and b.game is not None
    assert a.game.roles == b.game.roles and a.game.president == b.game.president
    dealt_by_engine, _ = Game.new(7, 42)
    assert a.game == dealt_by_engine  # the table deals exactly what the engine deals
    assert a.deadline is not None and not a.reminded
    dealt = {tuple(started(7, seed=s)[0].game.roles) for s in range(8)}  # type: ignore[union-attr]
    assert len(dealt) > 1


def test_cancel_a_lobby_closes_it_and_frees_everyone() -> None:
    table = lobby(3)
    out = cancel(table, table.gid, "Eve")
    assert out.ended and out.release == [100, 101, 102] and table.ending == "cancelled"
    assert table.owed["lobby"][2] == {"closed": "cancelled", "by": "Eve"}
    refused(lambda: cancel(table, None, "Eve"), table, "over")


def test_cancel_a_game_edits_board_and_round_and_drops_the_deadline() -> None:
    table, _ = started(5, timer=60)
    table.owed.clear()
    out = cancel(table, None, "P0")
    assert out.ended and table.deadline is None and table.ending == "cancelled"
    assert set(table.owed) == {"board", "round:1"}
    assert out.release == [p.id for p in table.players]


def test_cancel_an_other_game_is_refused() -> None:
    table, _ = started(5)
    refused(lambda: cancel(table, "nothere", "P0"), table, "over")


def test_lost_access_forgets_what_is_owed() -> None:
    table, _ = started(5, timer=60)
    out = lost_access(table)
    assert out.ended and table.owed == {} and table.deadline is None
    assert table.ending == "cancelled" and out.release == [p.id for p in table.players]
    refused(lambda: lost_access(table), table, "over")


def test_redraw_owes_the_lobby_or_the_board() -> None:
    table = lobby(3)
    table.owed.clear()
    redraw(table)
    assert table.owed == {"lobby": [table.seq, GROUP, None]}
    redraw(table, new=True)
    assert table.owed["lobby"][2] == {"new": True}
    game, _ = started(5)
    game.owed.clear()
    redraw(game)
    assert set(game.owed) == {"board", "round:1"} and game.owed["board"][2] is None
    game.owed.clear()
    redraw(game, new=True)
    assert game.owed == {"board": [game.seq, GROUP, {"new": True}]}
    cancel(game, None, "P0")
    refused(lambda: redraw(game), game, "over")


def test_a_refused_lobby_change_leaves_player_objects_alone() -> None:
    table = Table(gid="x", host=1, created=0.0, players=[Player(1, "A")])
    refused(lambda: leave(table, 2), table, "not_in_game")
    assert table.players == [Player(1, "A")]


def test_ready_on_a_cancelled_lobby_is_refused() -> None:
    table = lobby(3, ready=False)
    cancel(table, None, "P0")
    refused(lambda: ready(table, 101), table, "nothing")
