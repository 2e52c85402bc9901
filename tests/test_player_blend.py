"""Fascists who vote the way the table votes once Hitler can win (shbot.players.blend;
issue 32: "from 3F, Nein! on every unconfirmed Chancellor" plus "whoever votes Ja! on one is
suspect" read the Fascists off the ballots)."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from shbot.engine import HITLER, LIBERAL, Event, Kind
from shbot.players.blend import LATE_JA, LateBallots
from shbot.players.counters import rule_agent
from shbot.players.habits import RULES
from shbot.simulate import game_seeds, play

Ballot = tuple[int, bool, bool, bool]
"""One late ballot of a Fascist-team voter: (ballots of that kind seen before in the game,
Ja, tracker at 2, Chancellor is Hitler)."""


def test_a_seat_keeps_its_ja_while_the_table_votes_as_usual() -> None:
    late = LateBallots()
    assert late.keep(7) == 1.0  # nothing seen yet
    late.count([1, 0, 0, 1, 0, 0, 0], skip={1, 2})  # two Ja of five, as the computers do
    assert late.keep(7) == 1.0


def test_a_seat_drops_its_ja_once_the_table_always_refuses() -> None:
    late = LateBallots()
    late.count([0, 0, 0, 0, 0, None, 0], skip={1, 2})  # the government and a dead seat
    assert late.votes == 4 and late.ja == 0
    assert late.keep(7) < 0.25
    late.count([0, 0, 0, 0, 0, None, 0], skip={3, 4})
    assert late.keep(7) < 0.12


def test_only_the_size_whose_liberals_elect_unconfirmed_chancellors_blends() -> None:
    """Elsewhere the computers' Liberals almost never vote Ja on an unconfirmed Chancellor
    from 3F (3-9 %), and the Fascists, who vote as such a Liberal would, neither."""
    late = LateBallots()
    late.count([0] * 8, skip=set())
    assert set(LATE_JA) == {7} and late.keep(8) == 1.0 and late.keep(7) < 1.0


def late_ballots(events: list[Event]) -> Iterator[Ballot]:
    """Fascist-team ballots, outside the government, on an unconfirmed Chancellor once
    three Fascist policies are out (and fewer than five)."""
    over = next(e.data for e in events if e.kind is Kind.GAME_OVER)
    roles = over["roles"]
    hitler = roles.index(HITLER)
    fascist = tracker = seen = 0
    confirmed: set[int] = set()
    p = c = -1
    for kind, data, to in events:
        if to is not None:
            continue
        if kind is Kind.NOMINATED:
            p, c = data["president"], data["chancellor"]
        elif kind is Kind.VOTE_RESULT and 3 <= fascist < 5 and c not in confirmed:
            for v, b in enumerate(data["votes"]):
                if b is not None and v not in (p, c) and roles[v] != LIBERAL:
                    yield seen, b == 1, tracker == 2, c == hitler
            seen += tracker < 2
        elif kind in (Kind.POLICY_ENACTED, Kind.CHAOS):
            fascist, tracker = data["fascist"], 0
        elif kind is Kind.TRACKER_ADVANCED:
            tracker = data["tracker"]
        elif kind is Kind.CONFIRMED_NOT_HITLER:
            confirmed.add(data["seat"])


def ja_share(liberals: str | Callable, keep: Callable[[Ballot], bool]) -> float:
    ja = votes = 0
    for seed in game_seeds(32, 300):
        record: list[Event] = []
        play(7, seed, liberals, "heuristic", record)
        for ballot in filter(keep, late_ballots(record)):
            votes += 1
            ja += ballot[1]
    assert votes >= 50
    return ja / votes


def test_against_a_group_that_refuses_every_unconfirmed_chancellor_the_fascists_ja_fades() -> None:
    """7 players, the same 300 deals: after the first late ballot (the tracker below 2) the
    Fascist team's Ja on an unconfirmed Chancellor is at least halved when the Liberals
    refuse every one, and about as usual against the computers' own Liberals."""
    refusing = rule_agent([RULES["nein-unconfirmed-3F"]])
    later = lambda b: b[0] >= 1 and not b[2]  # noqa: E731
    usual, against = ja_share("heuristic", later), ja_share(refusing, later)
    assert against < usual / 2, (usual, against)
    assert usual > 0.15


def test_with_the_tracker_at_2_the_fascists_vote_hitler_in() -> None:
    """The Liberals must elect someone then; a Fascist's Nein on Hitler would be a gift."""
    on_hitler = lambda b: b[2] and b[3]  # noqa: E731
    assert ja_share("heuristic", on_hitler) == 1.0
