"""Conflicts among claims, from public facts and claims only (shbot.engine.claims).

Each rule cites the RULES-SPEC numbers it relies on. The facts are built by hand (public
events in their rounds), so every rule is checked on its own.
"""

from __future__ import annotations

import inspect

import pytest

from shbot.engine import Event, Kind
from shbot.engine.claims import (
    CHOICES,
    Claim,
    ClaimKind,
    Code,
    Conflict,
    Fact,
    conflicts,
    normalize,
    valid,
)

D, R, P, INV, NONE = (
    ClaimKind.DRAWN,
    ClaimKind.RECEIVED,
    ClaimKind.PEEKED,
    ClaimKind.INVESTIGATED,
    ClaimKind.NONE,
)


def fact(rnd: int, kind: Kind, **data: object) -> Fact:
    return Fact(rnd, Event(kind, dict(data)))


def start(draw: int = 17, fascist: int = 0) -> Fact:
    return fact(0, Kind.GAME_STARTED, draw=draw, fascist=fascist)


def session(rnd: int, pres: int = 0, chan: int = 1, enacted: str | None = "F") -> list[Fact]:
    out = [fact(rnd, Kind.SESSION_STARTED, president=pres, chancellor=chan, veto=False)]
    if enacted:
        out.append(fact(rnd, Kind.POLICY_ENACTED, policy=enacted, chaos=False))
    else:
        out.append(fact(rnd, Kind.VETO_ACCEPTED, president=pres, chancellor=chan))
    return out


def chaos(rnd: int, policy: str) -> Fact:
    return fact(rnd, Kind.CHAOS, policy=policy, chaos=True)


def codes(found: list[Conflict]) -> list[tuple[int, Code, int]]:
    return [(c.round, c.code, c.seat) for c in found]


# ------------------------------------------------------------------------ the hands


def test_r5_1_the_chancellors_two_are_the_presidents_three_minus_one() -> None:
    facts = [start(), *session(1, 0, 1, "F")]
    assert conflicts(facts, [Claim(1, 0, D, "FFF"), Claim(1, 1, R, "FL")]) == [
        Conflict(1, Code.PAIR, 1)
    ]
    assert conflicts(facts, [Claim(1, 0, D, "FFL"), Claim(1, 1, R, "FL")]) == []
    assert conflicts(facts, [Claim(1, 0, D, "FFL"), Claim(1, 1, R, "FF")]) == []
    assert codes(conflicts(facts, [Claim(1, 0, D, "FLL"), Claim(1, 1, R, "FF")])) == [
        (1, Code.PAIR, 1)
    ]


def test_r5_2_the_enacted_policy_is_in_both_claimed_hands() -> None:
    facts = [start(), *session(1, 0, 1, "L")]
    found = conflicts(facts, [Claim(1, 0, D, "FFF"), Claim(1, 1, R, "FF")])
    assert codes(found) == [(1, Code.ENACTED, 0), (1, Code.ENACTED, 1)]
    assert {c.policy for c in found} == {"L"}
    assert conflicts(facts, [Claim(1, 0, D, "FFL"), Claim(1, 1, R, "FL")]) == []


def test_r7_3_a_vetoed_session_enacts_nothing_to_contradict() -> None:
    facts = [start(), *session(1, 0, 1, None)]
    assert conflicts(facts, [Claim(1, 0, D, "LLL"), Claim(1, 1, R, "LL")]) == []
    assert codes(conflicts(facts, [Claim(1, 0, D, "LLL"), Claim(1, 1, R, "FF")])) == [
        (1, Code.PAIR, 1)
    ]


def test_r5_1_only_the_sessions_own_seats_and_real_claims_count() -> None:
    facts = [start(), *session(1, 0, 1, "F")]
    assert conflicts(facts, [Claim(1, 3, D, "LLL"), Claim(1, 1, R, "FF")]) == []
    assert conflicts(facts, [Claim(1, 0, NONE), Claim(1, 1, NONE)]) == []
    assert conflicts(facts, []) == []


# ------------------------------------------------------------------------ investigations


def test_r1_3_r9_2_one_player_claimed_of_both_parties() -> None:
    facts = [start(), fact(2, Kind.INVESTIGATED, president=0, target=3)]
    first = Claim(2, 0, INV, target=3, party="L")
    assert conflicts(facts, [first, Claim(5, 4, INV, target=3, party="F")]) == [
        Conflict(5, Code.PARTY, 4, other=2)
    ]
    assert conflicts(facts, [first, Claim(5, 4, INV, target=3, party="L")]) == []
    assert conflicts(facts, [first, Claim(5, 4, INV, target=2, party="F")]) == []


# ------------------------------------------------------------------------ the deck


def test_r1_5_claimed_draws_of_one_shuffle_cannot_hold_more_liberals_than_the_deck() -> None:
    facts = [start(), *session(1, 0, 1, "L"), *session(2, 1, 2, "L"), *session(3, 2, 3, "F")]
    claims = [Claim(1, 0, D, "LLL"), Claim(2, 1, D, "LLL")]
    assert conflicts(facts, claims) == []  # six Liberal tiles: possible
    facts_l = [*facts[:-1], fact(3, Kind.POLICY_ENACTED, policy="L", chaos=False)]
    # Every claim of a Liberal since the shuffle shares the blame, not only the last one.
    both = [
        Conflict(1, Code.DECK, 0, policy="L", held=6),
        Conflict(2, Code.DECK, 1, policy="L", held=6),
    ]
    assert conflicts(facts_l, claims) == both
    found = conflicts(facts, [*claims, Claim(3, 2, D, "FLL")])
    assert found == [*both, Conflict(3, Code.DECK, 2, policy="L", held=6)]


def test_r5_4_a_reshuffle_starts_a_new_count_from_the_tiles_not_enacted() -> None:
    facts = [start(), *session(1, 0, 1, "L"), *session(2, 1, 2, "L")]
    facts.append(fact(2, Kind.DECK_RESHUFFLED, draw=15))
    facts += session(3, 2, 3, "L")
    claims = [Claim(1, 0, D, "LLL"), Claim(2, 1, D, "LLL"), Claim(3, 2, D, "LLL")]
    assert conflicts(facts, claims) == []  # 4 Liberal tiles left at the reshuffle
    facts += session(4, 3, 4, "L")
    found = conflicts(facts, [*claims, Claim(4, 4, R, "LL")])
    assert found == [  # the claims before the reshuffle are out of it
        Conflict(3, Code.DECK, 2, policy="L", held=4),
        Conflict(4, Code.DECK, 4, policy="L", held=4),
    ]


def test_r6_1_chaos_tiles_come_from_the_same_pile() -> None:
    facts = [start(), *session(1, 0, 1, "L"), chaos(2, "L"), *session(3, 1, 2, "L")]
    claims = [Claim(1, 0, D, "LLL"), Claim(3, 1, D, "LLL")]
    assert conflicts(facts, claims) == [
        Conflict(1, Code.DECK, 0, policy="L", held=6),
        Conflict(3, Code.DECK, 1, policy="L", held=6),
    ]


def test_r1_5_fascist_tiles_and_the_rebalanced_deck() -> None:
    """The 6-player rebalanced deck starts with one Fascist policy on the board (R1.5 with
    17 tiles): 10 Fascist tiles to draw."""
    facts = [start(draw=16, fascist=1)]
    claims = []
    for rnd in range(1, 5):
        facts += session(rnd, rnd % 6, (rnd + 1) % 6, "F")
        claims.append(Claim(rnd, rnd % 6, D, "FFF" if rnd < 4 else "FFL"))
    found = conflicts(facts, claims)
    assert found == [Conflict(r, Code.DECK, r % 6, policy="F", held=10) for r in range(1, 5)]
    assert conflicts([start(draw=17), *facts[1:]], claims) == []  # 11 Fascist tiles


# ------------------------------------------------------------------------ the peek


def test_r9_4_a_peek_is_the_next_presidents_draw() -> None:
    facts = [start(), *session(3, 0, 1, "F"), fact(3, Kind.PEEKED, president=0)]
    facts += session(4, 1, 2, "F")
    peek = Claim(3, 0, P, "LLF")
    assert conflicts(facts, [peek, Claim(4, 1, D, "FLL")]) == []  # same tiles, sorted
    assert conflicts(facts, [peek, Claim(4, 1, D, "FFF")]) == [Conflict(4, Code.PEEK, 1, other=3)]
    assert conflicts(facts, [peek, Claim(4, 2, R, "FF")]) == [Conflict(4, Code.PEEK, 2, other=3)]
    assert conflicts(facts, [Claim(3, 0, P, "LLL")]) == [
        Conflict(3, Code.PEEK, 0, other=4, policy="F")
    ]


def test_r9_4_r6_1_chaos_takes_the_peeks_top_tile() -> None:
    facts = [start(), *session(3, 0, 1, "F"), fact(3, Kind.PEEKED, president=0)]
    facts += [chaos(6, "L"), *session(7, 1, 2, "F")]
    assert conflicts(facts, [Claim(3, 0, P, "LFF"), Claim(7, 1, D, "FFF")]) == []
    assert conflicts(facts, [Claim(3, 0, P, "FLF")]) == [
        Conflict(3, Code.PEEK, 0, other=6, policy="L")
    ]


def test_r5_4_a_reshuffle_after_the_peek_breaks_the_link() -> None:
    facts = [start(), *session(3, 0, 1, "F"), fact(3, Kind.PEEKED, president=0)]
    facts += [*session(4, 1, 2, None), fact(4, Kind.DECK_RESHUFFLED, draw=16)]
    facts += session(5, 2, 3, "F")
    assert conflicts(facts, [Claim(3, 0, P, "LLL"), Claim(5, 2, D, "FFF")]) == []


# ------------------------------------------------------------------------ public only


def test_r11_conflicts_take_public_facts_and_claims_only() -> None:
    """R11: the hands, peeks and investigation results are private; the API has no way to
    take them (two parameters, both public) and refuses a private event."""
    assert list(inspect.signature(conflicts).parameters) == ["facts", "claims"]
    hand = Fact(1, Event(Kind.PRESIDENT_HAND, {"policies": ["F", "F", "L"]}, (0,)))
    with pytest.raises(ValueError):
        conflicts([start(), hand], [])
    leaked = Fact(1, Event(Kind.INVESTIGATION_RESULT, {"target": 2, "party": "F"}))
    with pytest.raises(ValueError):
        conflicts([start(), leaked], [])


def test_r11_the_offered_claims_are_fixed_and_canonical() -> None:
    """R11: the buttons cannot depend on the hand; every offered hand is in the canonical
    form (Fascist first), a peek in every order."""
    assert CHOICES[D] == ("FFF", "FFL", "FLL", "LLL")
    assert CHOICES[R] == ("FF", "FL", "LL")
    assert len(set(CHOICES[P])) == 8
    for kind in (D, R):
        assert all(normalize(kind, v) == v for v in CHOICES[kind])
    assert valid(INV, "L") and valid(INV, "F") and not valid(INV, "H")
    assert not valid(D, "LFF") and not valid(R, "FFF") and not valid(NONE, "")


def test_r5_4_the_pile_at_a_reshuffle_follows_the_boards_totals() -> None:
    """R1.5/R5.4: the reshuffled pile holds every tile not on the board; the totals the
    enactment events carry count (a game whose earlier facts were not kept)."""
    facts = [start(), fact(4, Kind.POLICY_ENACTED, policy="L", chaos=False, liberal=3, fascist=2)]
    facts += [fact(4, Kind.DECK_RESHUFFLED, draw=12), *session(5, 0, 1, "F")]
    facts += session(6, 1, 2, "F")
    claims = [Claim(5, 0, D, "FLL"), Claim(6, 1, D, "FLL")]
    assert conflicts(facts, claims) == [
        Conflict(5, Code.DECK, 0, policy="L", held=3),
        Conflict(6, Code.DECK, 1, policy="L", held=3),
    ]
