"""Deadlines as table transitions, tested without the bot or a clock: the default move at a
deadline, stale deadlines, reminders, /ping, a timer changed mid-game and missed deadlines."""

from __future__ import annotations

import random
import time

import pytest

from shbot.engine import AnswerVeto, Discard, Execute, Kind, Nominate, Phase, ProposeVeto, Vote
from shbot.players import default_action
from shbot.table import GROUP, Outcome, Table
from shbot.table.lobby import cancel
from shbot.table.timers import (
    ABSENT_AFTER,
    describe,
    ping,
    remind,
    set_timer,
    timeout,
    waiting_for,
)

from .table_helpers import (
    elect,
    fascist_round,
    game_of,
    lobby,
    press,
    refused,
    scripted,
    started,
    uid,
)


def timed(first: int = 0) -> Table:
    return scripted(first=first, timer=60)


def fire(table: Table, seed: int = 0, missing_nein: bool = True) -> Outcome:
    return timeout(table, table.gid, table.step, table.deadline, random.Random(seed), missing_nein)


def test_a_scripted_timer_sets_the_deadline() -> None:
    table = timed()
    assert table.deadline == 5060.0 and not table.reminded
    assert waiting_for(table) == [0]


def test_a_missed_nomination_is_the_random_players_move() -> None:
    table = timed(first=1)
    expected = default_action(game_of(table).clone(), 1, random.Random(7))
    assert isinstance(expected, Nominate)
    out = fire(table, seed=7)
    assert out.action == expected and out.step_changed and table.step == 2
    assert game_of(table).phase is Phase.VOTE and game_of(table).chancellor == expected.target
    assert table.owed["timeout:1"][1:] == [
        GROUP,
        {
            "phase": "nominate",
            "late": [1],
            "president": 1,
            "chancellor": -1,
            "target": expected.target,
            "missing_nein": True,
        },
    ]
    assert table.missed == {"101": 1}
    assert table.deadline is not None and table.deadline > time.time()


@pytest.mark.parametrize("missing_nein", [True, False])
def test_a_missed_vote_closes_the_vote(missing_nein: bool) -> None:
    table = timed()
    press(table, 0, Nominate(0, 1))
    press(table, 0, Vote(0, True))
    press(table, 1, Vote(1, True))
    out = fire(table, missing_nein=missing_nein)
    result = next(e for e in out.events if e.kind is Kind.VOTE_RESULT)
    # Two Ja! of five living fails when the three missing count as Nein!; of the two
    # ballots cast it is a majority when they are not counted.
    assert result.data["elected"] is (not missing_nein)
    assert out.action is None and table.missed == {"102": 1, "103": 1, "104": 1}
    assert table.owed["timeout:2"][2]["late"] == [2, 3, 4]
    assert table.owed["timeout:2"][2]["missing_nein"] is missing_nein


def test_a_missed_discard_closes_the_prompt_as_timed_out() -> None:
    table = timed(first=2)
    elect(table, 0)
    step = table.step
    out = fire(table, seed=3)
    assert isinstance(out.action, Discard) and game_of(table).phase is Phase.CHANCELLOR_ENACT
    prompt = table.owed["claim:1:drawn"]  # the closed hand asks the President's claim
    assert prompt[1] == uid(table, 2) and f"prompt:{step}" not in table.owed
    folded = table.talk["folded"]["1:drawn"]
    assert folded["done"][0] == "discard" and folded["timeout"] == "president_discard"
    assert table.owed[f"prompt:{step + 1}"][1:] == [uid(table, 0), {"seat": 0}]
    assert table.owed[f"timeout:{step}"][1] == GROUP
    assert "hand" not in table.owed[f"timeout:{step}"][2]


def test_stale_deadlines_are_refused() -> None:
    table = timed()
    rng = random.Random(0)
    step, deadline = table.step, table.deadline
    refused(lambda: timeout(table, "other", step, deadline, rng, True), table, "stale")
    refused(lambda: timeout(table, "g1", step + 1, deadline, rng, True), table, "stale")
    refused(lambda: timeout(table, "g1", step, 1.0, rng, True), table, "stale")
    fire(table)  # the deadline that fires first wins; the same job again is late
    refused(lambda: timeout(table, "g1", step, deadline, rng, True), table, "stale")
    timeout(table, "g1", table.step, None, rng, True)  # None: whatever the deadline is


def test_no_deadline_without_a_timer_or_after_the_end() -> None:
    table = scripted(timer=0)
    assert table.deadline is None
    refused(lambda: timeout(table, "g1", 1, None, random.Random(), True), table, "stale")
    table = timed()
    cancel(table, None, "P0")
    refused(lambda: timeout(table, "g1", 1, None, random.Random(), True), table, "stale")


def test_remind_names_the_late_once() -> None:
    table = timed()
    press(table, 0, Nominate(0, 1))
    press(table, 3, Vote(3, False))
    table.owed.clear()
    out = remind(table, "g1", table.step, table.deadline, 60)
    assert out.table is table and table.reminded
    assert table.owed["remind:2"][1:] == [GROUP, {"seats": [0, 1, 2, 4], "seconds": 60}]
    for seat in (0, 1, 2, 4):
        assert table.owed[f"nudge:2:{seat}"][1:] == [
            uid(table, seat),
            {"phase": "vote", "seconds": 60},
        ]
    assert len(table.owed) == 5
    refused(lambda: remind(table, "g1", 2, table.deadline, 60), table, "stale")


def test_remind_a_step_already_over_is_stale() -> None:
    table = timed()
    deadline = table.deadline
    press(table, 0, Nominate(0, 1))
    refused(lambda: remind(table, "g1", 1, deadline, 60), table, "stale")
    refused(lambda: remind(table, "g1", 2, deadline, 60), table, "stale")


def test_ping_nudges_whoever_the_game_waits_for() -> None:
    table = scripted(timer=0, first=4)
    table.owed.clear()
    ping(table)
    assert table.owed["remind:1"][2] == {"seats": [4], "seconds": None}
    assert table.owed["nudge:1:4"][1] == uid(table, 4)
    assert not table.reminded
    lobby_table = lobby(3)
    refused(lambda: ping(lobby_table), lobby_table, "no_game")
    cancel(table, None, "P0")
    refused(lambda: ping(table), table, "no_game")


def test_set_timer_gives_the_step_a_new_clock() -> None:
    table = scripted(timer=0)
    table.reminded = True
    before = time.time()
    set_timer(table, 90)
    assert table.options["timer"] == 90 and not table.reminded
    assert table.deadline is not None and before + 90 <= table.deadline <= time.time() + 90
    set_timer(table, 0)
    assert table.deadline is None and describe(table) == {}
    lobby_table = lobby(3)
    refused(lambda: set_timer(lobby_table, 60), lobby_table, "no_game")
    cancel(table, None, "P0")
    refused(lambda: set_timer(table, 60), table, "no_game")


def test_describe_says_when_to_remind_and_when_to_act() -> None:
    table = timed()
    assert describe(table) == {"step": 1, "gid": "g1", "deadline": 5060.0, "remind": 5030.0}
    remind(table, "g1", 1, 5060.0, 60)
    assert describe(table) == {"step": 1, "gid": "g1", "deadline": 5060.0}
    assert describe(scripted(timer=0)) == {} and describe(lobby(3)) == {}
    cancel(table, None, "P0")
    assert describe(table) == {}


def test_a_started_game_with_a_timer_is_described() -> None:
    table, _ = started(5, timer=30)
    info = describe(table)
    assert info["step"] == 1 and info["remind"] == info["deadline"] - 15


def test_missed_deadlines_count_in_a_row_and_a_press_forgets_them() -> None:
    table = timed()
    press(table, 0, Nominate(0, 1))
    for _ in range(ABSENT_AFTER):
        for seat in range(4):
            press(table, seat, Vote(seat, False))
        fire(table)  # seat 4 never votes; the election fails, the next one is nominated
        game = game_of(table)
        if game.phase is Phase.NOMINATE:
            target = next(s for s in game.eligible_chancellors() if s != 4)
            press(table, game.president, Nominate(game.president, target))
    assert table.missed == {"104": ABSENT_AFTER}
    assert ABSENT_AFTER == 2
    press(table, 4, Vote(4, True))
    assert table.missed == {}


def test_an_unanswered_veto_is_refused() -> None:
    table = scripted(timer=60, deck="LFF" * 6)
    for _ in range(5):  # five Fascist policies; the 4th and 5th each execute a Liberal
        fascist_round(table)
        game = game_of(table)
        if game.phase is Phase.EXECUTION:
            victim = next(
                s
                for s in range(5)
                if game.alive[s] and s != game.president and game.roles[s] == "L"
            )
            press(table, game.president, Execute(game.president, victim))
    elect(table)
    game = game_of(table)
    assert game.veto_unlocked and game.alive_count == 3
    press(table, game.president, Discard(game.president, "L"))
    press(table, game.chancellor, ProposeVeto(game.chancellor))
    assert game.phase is Phase.VETO_RESPONSE and waiting_for(table) == [game.president]
    president, step = game.president, table.step
    out = fire(table)
    assert out.action == AnswerVeto(president, False)
    assert game.phase is Phase.CHANCELLOR_ENACT and table.step == step + 1
    assert table.owed[f"prompt:{step}"][2]["done"] == ["veto_answer", False]
    assert table.owed[f"prompt:{step}"][2]["timeout"] == "veto_response"
    assert table.missed == {str(uid(table, president)): 1}
