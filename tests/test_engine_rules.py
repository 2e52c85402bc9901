"""One or more tests per numbered rule of RULES-SPEC (R1.1 … R11), on exact scenarios:
fixed roles, stacked decks (top tile first) and a fixed first president.

Default roles put the Liberals first, then the ordinary Fascists, and Hitler in the last
seat (5 players: ``LLLFH``). The default deck ``FLEXIBLE_DECK`` gives L,F,F hands so a
government can enact either party for the first five sessions.
"""

from __future__ import annotations

import json
from collections import Counter

import pytest

from shbot.engine import (
    FASCIST,
    HITLER,
    LIBERAL,
    ROLE_COUNTS,
    AnswerVeto,
    BadSetup,
    Condition,
    Discard,
    Enact,
    Execute,
    Game,
    Investigate,
    Kind,
    Nominate,
    Phase,
    Power,
    ProposeVeto,
    Reason,
    SpecialElection,
    Vote,
    Winner,
    party_of,
    step,
)

from .engine_helpers import (
    FLEXIBLE_DECK,
    POWERS_TABLE,
    chaos,
    check_role_events,
    elect,
    govern,
    kinds,
    legislate,
    make,
    nominate,
    refused,
    reject,
    the,
    vote_all,
)

L, F = LIBERAL, FASCIST

# ============================================================================ R1 set-up


@pytest.mark.parametrize("players", [-1, 0, 3, 4, 11, 12])
def test_r1_1_fewer_than_five_or_more_than_ten_players_are_refused(players: int) -> None:
    with pytest.raises(BadSetup) as info:
        Game.new(players, 1)
    assert info.value.reason is Reason.BAD_SETUP
    assert info.value.players == players
    assert "5 to 10" in str(info.value)


@pytest.mark.parametrize("players", range(5, 11))
def test_r1_1_five_to_ten_players_are_accepted(players: int) -> None:
    g, _ = Game.new(players, 1)
    assert g.n == players and g.phase is Phase.NOMINATE


def test_r1_1_a_non_integer_player_count_is_refused() -> None:
    with pytest.raises(BadSetup):
        Game.new("5", 1)  # type: ignore[arg-type]


EXPECTED_ROLES = {
    5: (3, 1, 1),
    6: (4, 1, 1),
    7: (4, 2, 1),
    8: (5, 2, 1),
    9: (5, 3, 1),
    10: (6, 3, 1),
}


@pytest.mark.parametrize("players", range(5, 11))
def test_r1_2_role_counts_by_player_count(players: int) -> None:
    assert ROLE_COUNTS[players] == EXPECTED_ROLES[players]
    for seed in range(40):
        g, _ = Game.new(players, seed)
        counts = Counter(g.roles)
        assert (counts[L], counts[F], counts[HITLER]) == EXPECTED_ROLES[players]


def test_r1_2_fixed_roles_must_fit_the_player_count() -> None:
    for bad in ("LLLLF", "LLFFH", "LLLFHH", "LLFHX"):
        with pytest.raises(BadSetup):
            Game.new(5, 1, roles=bad)


def test_r1_3_hitler_is_a_member_of_the_fascist_party() -> None:
    assert party_of(HITLER) == F and party_of(F) == F and party_of(L) == L
    _, events = make(5)
    parties = [e.data["party"] for e in events if e.kind is Kind.ROLE]
    assert parties == [L, L, L, F, F]


def test_r1_4_roles_and_first_president_are_dealt_uniformly_from_the_seed() -> None:
    hitler, first = Counter[int](), Counter[int]()
    games = 1800
    for seed in range(games):
        g, _ = Game.new(6, seed)
        hitler[g.roles.index(HITLER)] += 1
        first[g.president] += 1
    for counts in (hitler, first):
        assert set(counts) == set(range(6))
        assert all(games / 6 * 0.75 < c < games / 6 * 1.25 for c in counts.values()), counts
    a, b = Game.new(6, 42)[0], Game.new(6, 42)[0]
    assert a == b, "the same seed deals the same game"


def test_r1_4_seats_follow_the_join_order_unless_shuffled() -> None:
    assert Game.new(7, 3)[0].seating == list(range(7))
    shuffled = {tuple(Game.new(7, seed, shuffle_seats=True)[0].seating) for seed in range(30)}
    assert all(sorted(s) == list(range(7)) for s in shuffled)
    assert len(shuffled) > 20
    g, events = Game.new(7, 3, shuffle_seats=True)
    assert the(events, Kind.GAME_STARTED).data["seating"] == g.seating


def test_r1_5_the_deck_holds_6_liberal_and_11_fascist_tiles() -> None:
    for seed in range(20):
        g, events = Game.new(5 + seed % 6, seed)
        assert Counter(g.draw) == {L: 6, F: 11}
        assert g.tiles_total() == 17 and not g.discard and not g.hand
        assert the(events, Kind.GAME_STARTED).data["draw"] == 17
    shuffled = {"".join(Game.new(5, seed)[0].draw) for seed in range(20)}
    assert len(shuffled) == 20


def test_r1_5_tiles_are_conserved_through_a_session() -> None:
    g, _ = make(5)
    assert g.tiles_total() == 17
    elect(g, 1)
    assert (len(g.draw), len(g.hand)) == (14, 3) and g.tiles_total() == 17
    g.apply(Discard(0, L))
    assert (len(g.hand), len(g.discard)) == (2, 1) and g.tiles_total() == 17
    g.apply(Enact(1, F))
    assert (len(g.hand), len(g.discard), g.fascist) == (0, 2, 1) and g.tiles_total() == 17


@pytest.mark.parametrize(
    ("players", "draw", "fascist"),
    [
        (5, (6, 11), 0),
        (6, (6, 10), 1),
        (7, (6, 10), 0),
        (8, (6, 11), 0),
        (9, (6, 9), 0),
        (10, (6, 11), 0),
    ],
)
def test_r1_5_rebalanced_variants(players: int, draw: tuple[int, int], fascist: int) -> None:
    """The opt-in secrethitler.io variants: 6p starts with a Fascist policy enacted (taken
    from the deck), 7p plays without one Fascist tile, 9p without two."""
    g, events = Game.new(players, 5, rebalanced=True)
    assert (g.draw.count(L), g.draw.count(F)) == draw
    assert g.fascist == fascist
    assert the(events, Kind.GAME_STARTED).data["fascist"] == fascist
    assert g.tiles_total() == sum(draw) + fascist


# ============================================================================ R2 knowledge


@pytest.mark.parametrize("players", range(5, 11))
def test_r2_knowledge_at_the_start_by_player_count(players: int) -> None:
    """R2.1 own role and party; R2.2 Fascists see the team and Hitler; R2.3 Hitler sees the
    Fascists with 5–6 players; R2.4 not with 7–10; R2.5 Liberals see nobody."""
    for seed in range(5):
        g, events = Game.new(players, seed)
        check_role_events(events, players, g.roles)


def test_r2_1_every_player_learns_own_role_and_party_privately() -> None:
    _, events = make(5)
    roles = [e for e in events if e.kind is Kind.ROLE]
    assert [(e.to, e.data["role"], e.data["party"]) for e in roles] == [
        ((0,), L, L),
        ((1,), L, L),
        ((2,), L, L),
        ((3,), F, F),
        ((4,), HITLER, F),
    ]


def test_r2_2_ordinary_fascists_learn_the_other_fascists_and_hitler() -> None:
    _, events = make(10, roles="FLLFLLHLFL")
    fascist0 = next(e for e in events if e.kind is Kind.ROLE).data
    assert sorted(fascist0["fascists"]) == [3, 8] and fascist0["hitler"] == 6


def test_r2_3_hitler_knows_the_fascist_with_five_or_six_players() -> None:
    for players in (5, 6):
        _, events = make(players)
        hitler = [e for e in events if e.kind is Kind.ROLE][-1].data
        assert hitler["role"] == HITLER and hitler["fascists"] == [players - 2]


def test_r2_4_hitler_knows_nobody_with_seven_or_more() -> None:
    for players in range(7, 11):
        _, events = make(players)
        hitler = [e for e in events if e.kind is Kind.ROLE][-1].data
        assert hitler == {"role": HITLER, "party": F, "seat": players - 1}


def test_r2_5_liberals_know_nobody() -> None:
    for players in range(5, 11):
        _, events = make(players)
        for e in events:
            if e.kind is Kind.ROLE and e.data["role"] == L:
                assert set(e.data) == {"role", "party", "seat"}


# ============================================================================ R3 rounds


def test_r3_round_is_election_session_action_and_the_game_stops_at_once() -> None:
    """Five Liberal governments in a row: the fifth Liberal policy ends the game at once —
    no reshuffle, no new round, nothing accepted afterwards (R3, R10.1)."""
    g, _ = make(5)
    for pres, chan in [(0, 1), (1, 2), (2, 3), (3, 4)]:
        assert (g.phase, g.president) == (Phase.NOMINATE, pres)
        events = govern(g, chan, L)
        assert kinds(events)[-1] is Kind.ROUND_STARTED
    events = govern(g, 0, L)
    assert kinds(events)[-2:] == [Kind.POLICY_ENACTED, Kind.GAME_OVER]
    assert len(g.draw) == 2, "no reshuffle after the end"
    assert g.phase is Phase.GAME_OVER and g.to_act() == []
    for seat in range(5):
        assert not g.legal_actions(seat)
    refused(g, Nominate(g.president, 1), Reason.GAME_OVER)
    refused(g, Vote(0, True), Reason.GAME_OVER)
    with pytest.raises(Exception) as info:
        g.apply_ballots([True] * 5)
    assert getattr(info.value, "reason", None) is Reason.GAME_OVER


def test_r3_phases_follow_election_session_then_action() -> None:
    g, _ = make(7)
    assert g.phase is Phase.NOMINATE and g.to_act() == [0]
    nominate(g, 1)
    assert g.phase is Phase.VOTE and g.to_act() == list(range(7))
    vote_all(g, True)
    assert g.phase is Phase.PRESIDENT_DISCARD and g.to_act() == [0]
    g.apply(Discard(0, L))
    assert g.phase is Phase.CHANCELLOR_ENACT and g.to_act() == [1]
    g.apply(Enact(1, F))
    assert g.phase is Phase.NOMINATE and g.president == 1  # F1 grants nothing with 7
    govern(g, 2, F)
    assert g.phase is Phase.INVESTIGATE and g.to_act() == [1]  # F2: the action


# ============================================================================ R4 election


def test_r4_1_candidacy_passes_clockwise_after_failed_and_elected_rounds() -> None:
    """R4.1 and R8.1: the next living seat clockwise, whatever happened to the last one."""
    g, _ = make(5, first=3)
    seen = [g.president]
    reject(g)
    seen.append(g.president)
    govern(g, 0, L)
    seen.append(g.president)
    reject(g)
    seen.append(g.president)
    assert seen == [3, 4, 0, 1]


def test_r4_2_last_elected_president_and_chancellor_are_term_limited() -> None:
    g, _ = make(7)
    govern(g, 2, L)
    assert g.president == 1
    assert sorted(g.term_limited()) == [0, 2]
    assert [a.target for a in g.legal_actions(1)] == [3, 4, 5, 6]
    refused(g, Nominate(1, 0), Reason.NOT_ELIGIBLE)
    refused(g, Nominate(1, 2), Reason.NOT_ELIGIBLE)
    nominate(g, 3)


def test_r4_2_with_five_players_alive_only_the_last_chancellor_is_term_limited() -> None:
    g, _ = make(5)
    govern(g, 2, L)
    assert g.term_limited() == [2]
    assert [a.target for a in g.legal_actions(1)] == [0, 3, 4]
    refused(g, Nominate(1, 2), Reason.NOT_ELIGIBLE)
    nominate(g, 0)  # the last president is eligible


def test_r4_2_failed_nominations_never_term_limit() -> None:
    g, _ = make(7)
    reject(g, 2)
    assert g.term_limited() == []
    assert [a.target for a in g.legal_actions(1)] == [0, 2, 3, 4, 5, 6]
    govern(g, 2, L)  # president 1, chancellor 2
    reject(g, 3)  # president 2's government fails: limits stay with (1, 2)
    assert sorted(g.term_limited()) == [1, 2]


def _six_players_to_first_execution(g: Game) -> None:
    """6 players: three Fascist governments (the third peeks), then president 3 with
    chancellor 1 enacts the fourth, which grants an execution."""
    govern(g, 1, F)
    govern(g, 2, F)
    govern(g, 3, F)  # F3: peek, nothing to choose
    assert g.president == 3
    assert sorted(g.term_limited()) == [2, 3], "6 alive: last president and chancellor"
    govern(g, 1, F)
    assert g.phase is Phase.EXECUTION and g.president == 3


def test_r4_2_an_execution_that_leaves_five_alive_lifts_the_presidents_limit() -> None:
    """R4.2 with R9.5: the count of the living, not of the players, decides."""
    g, _ = make(6)
    _six_players_to_first_execution(g)
    g.apply(Execute(3, 0))
    assert sum(g.alive) == 5 and g.president == 4
    assert g.term_limited() == [1], "only the last chancellor once 5 are alive"
    assert [a.target for a in g.legal_actions(4)] == [2, 3, 5]
    nominate(g, 3)  # the last president


def test_r4_2_a_dead_term_limited_player_is_simply_gone() -> None:
    g, _ = make(6)
    _six_players_to_first_execution(g)
    g.apply(Execute(3, 1))  # the last chancellor dies
    assert g.term_limited() == []
    assert [a.target for a in g.legal_actions(4)] == [0, 2, 3, 5]
    refused(g, Nominate(4, 1), Reason.DEAD_PLAYER)


def test_r4_2_the_candidate_cannot_nominate_themself_or_a_dead_player() -> None:
    g, _ = make(5)
    refused(g, Nominate(0, 0), Reason.SELF_TARGET)
    assert 0 not in [a.target for a in g.legal_actions(0)]


def test_r4_3_ballots_are_secret_until_all_living_players_voted() -> None:
    g, _ = make(5)
    nominate(g, 1)
    cast = g.apply(Vote(0, True))
    assert kinds(cast) == [Kind.VOTE_CAST]
    assert cast[0].data == {"seat": 0, "voted": 1, "needed": 5, "changed": False}
    assert g.public_view()["voted"] == [True, False, False, False, False]
    for seat, ja in [(1, True), (2, False), (3, True)]:
        assert kinds(g.apply(Vote(seat, ja))) == [Kind.VOTE_CAST]
    assert g.to_act() == [4]
    events = g.apply(Vote(4, False))
    result = the(events, Kind.VOTE_RESULT).data
    assert result == {"votes": [1, 1, 0, 1, 0], "ja": 3, "nein": 2, "elected": True}


def test_r4_3_votes_may_be_changed_until_the_last_one() -> None:
    g, _ = make(5)
    nominate(g, 1)
    g.apply(Vote(0, True))
    changed = g.apply(Vote(0, False))
    assert changed[0].data == {"seat": 0, "voted": 1, "needed": 5, "changed": True}
    assert g.legal_actions(0) == (Vote(0, True), Vote(0, False)), "a voter may still change"
    g.apply_ballots([None, True, True, None, None])
    g.apply_ballots([True, None, None, None, None])  # changed again, in a batch
    g.apply(Vote(3, False))
    events = g.apply(Vote(4, False))  # the last ballot: everything is tallied
    assert the(events, Kind.VOTE_RESULT).data["votes"] == [1, 1, 1, 0, 0]
    assert g.phase is Phase.PRESIDENT_DISCARD
    refused(g, Vote(0, False), Reason.WRONG_PHASE)


def test_r4_3_apply_ballots_records_every_living_ballot_at_once() -> None:
    g, _ = make(5)
    nominate(g, 1)
    events = g.apply_ballots([True, False, None, True, None])
    assert events[0].data == {"seat": None, "voted": 3, "needed": 5, "changed": False}
    assert g.to_act() == [2, 4]
    events = g.apply_ballots([None, None, False, None, True])
    assert the(events, Kind.VOTE_RESULT).data["votes"] == [1, 0, 0, 1, 1]


def test_r4_3_invalid_ballots_are_all_refused_before_any_is_recorded() -> None:
    g, _ = make(5)
    nominate(g, 1)
    with pytest.raises(Exception) as info:
        g.apply_ballots([True, True, 1, True, True])  # type: ignore[list-item]
    assert getattr(info.value, "reason", None) is Reason.BAD_ACTION
    assert g.votes == [-1] * 5
    with pytest.raises(Exception) as info:
        g.apply_ballots([True] * 4)
    assert getattr(info.value, "reason", None) is Reason.BAD_ACTION
    refused(g, Vote(0, 1), Reason.BAD_ACTION)  # type: ignore[arg-type]


def test_r4_4_a_tie_fails() -> None:
    g, _ = make(6)
    nominate(g, 1)
    events = vote_all(g, [True, True, True, False, False, False])
    result = the(events, Kind.VOTE_RESULT).data
    assert (result["ja"], result["nein"], result["elected"]) == (3, 3, False)
    assert g.tracker == 1 and g.president == 1
    nominate(g, 2)
    events = vote_all(g, [True, True, True, True, False, False])
    assert the(events, Kind.VOTE_RESULT).data["elected"] is True


def test_r4_4_a_strict_majority_of_the_living_is_needed() -> None:
    g, _ = make(10)
    nominate(g, 1)
    events = vote_all(g, [True] * 5 + [False] * 5)
    assert the(events, Kind.VOTE_RESULT).data["elected"] is False
    nominate(g, 2)
    events = vote_all(g, [True] * 6 + [False] * 4)
    assert the(events, Kind.VOTE_RESULT).data["elected"] is True


def test_r4_5_a_failed_vote_advances_the_tracker_and_passes_the_candidacy() -> None:
    g, _ = make(5)
    events = reject(g, 1)
    assert kinds(events)[-3:] == [Kind.VOTE_RESULT, Kind.TRACKER_ADVANCED, Kind.ROUND_STARTED]
    assert the(events, Kind.TRACKER_ADVANCED).data == {"tracker": 1}
    assert g.tracker == 1 and g.president == 1 and g.phase is Phase.NOMINATE
    assert not g.hand and len(g.draw) == 17


def test_r4_6_the_elected_government_is_recorded_and_announced() -> None:
    g, _ = make(7)
    events = elect(g, 3)
    assert the(events, Kind.GOVERNMENT_ELECTED).data == {"president": 0, "chancellor": 3}
    assert (g.last_president, g.last_chancellor) == (0, 3)
    assert (g.president, g.chancellor) == (0, 3)
    assert Kind.CONFIRMED_NOT_HITLER not in kinds(events), "not before 3 Fascist policies"


def _five_players_three_fascist(g: Game) -> None:
    govern(g, 1, F)
    govern(g, 2, F)
    govern(g, 3, F)  # peek
    assert g.fascist == 3 and g.president == 3


def test_r4_6_r10_4_hitler_elected_chancellor_after_three_fascist_policies_wins() -> None:
    g, _ = make(5)
    _five_players_three_fascist(g)
    events = elect(g, 4)
    over = the(events, Kind.GAME_OVER).data
    assert over["winner"] is Winner.FASCIST and over["condition"] is Condition.HITLER_ELECTED
    assert over["roles"] == list("LLLFH")
    assert kinds(events)[-2:] == [Kind.GOVERNMENT_ELECTED, Kind.GAME_OVER]
    assert not g.hand and len(g.draw) == 8, "no session after the end"


def test_r4_6_hitler_elected_chancellor_before_three_fascist_policies_does_not_win() -> None:
    g, _ = make(5)
    govern(g, 1, F)
    govern(g, 2, F)
    events = elect(g, 4)  # president 2, Hitler chancellor, 2 Fascist policies
    assert Kind.GAME_OVER not in kinds(events)
    assert Kind.CONFIRMED_NOT_HITLER not in kinds(events)
    assert g.phase is Phase.PRESIDENT_DISCARD


def test_r4_6_a_chancellor_elected_after_three_fascist_policies_is_confirmed_not_hitler() -> None:
    g, _ = make(5)
    _five_players_three_fascist(g)
    events = elect(g, 0)
    assert the(events, Kind.CONFIRMED_NOT_HITLER).data == {"seat": 0}
    assert the(events, Kind.CONFIRMED_NOT_HITLER).to is None
    assert g.public_view()["confirmed"] == [True, False, False, False, False]


def test_r4_7_a_successful_election_does_not_reset_the_tracker() -> None:
    """R4.7 with R5.5: only the enacted policy resets it."""
    g, _ = make(5)
    reject(g)
    reject(g)
    assert g.tracker == 2
    events = elect(g, 0)
    assert Kind.TRACKER_ADVANCED not in kinds(events)
    assert g.tracker == 2 and g.public_view()["tracker"] == 2
    g.apply(Discard(g.president, F))
    assert g.tracker == 2
    g.apply(Enact(g.chancellor, L))
    assert g.tracker == 0


# ============================================================================ R5 legislative


def test_r5_1_the_president_draws_the_top_three_tiles_in_order() -> None:
    g, _ = make(5, deck="FLF" + "LLF" * 4 + "FF")
    events = elect(g, 1)
    hand = the(events, Kind.PRESIDENT_HAND)
    assert hand.to == (0,) and hand.data == {"policies": [F, L, F]}
    assert g.hand == [F, L, F] and len(g.draw) == 14
    assert the(events, Kind.SESSION_STARTED).data == {
        "president": 0,
        "chancellor": 1,
        "veto": False,
    }
    assert [a.policy for a in g.legal_actions(0)] == [F, L]  # type: ignore[union-attr]
    refused(g, Discard(1, F), Reason.NOT_YOUR_TURN)


def test_r5_1_the_president_can_only_discard_a_tile_of_the_hand() -> None:
    g, _ = make(5, deck="FFF" + "LLF" * 4 + "LL")
    elect(g, 1)
    assert g.legal_actions(0) == [Discard(0, F)]
    refused(g, Discard(0, L), Reason.NOT_IN_HAND)
    refused(g, Discard(0, "X"), Reason.NOT_IN_HAND)


def test_r5_2_the_chancellor_gets_the_other_two_and_enacts_one() -> None:
    g, _ = make(5, deck="FLF" + "LLF" * 4 + "FF")
    elect(g, 1)
    events = g.apply(Discard(0, F))
    assert kinds(events) == [Kind.PRESIDENT_DISCARDED, Kind.CHANCELLOR_HAND]
    assert the(events, Kind.PRESIDENT_DISCARDED).data == {"president": 0, "chancellor": 1}
    assert the(events, Kind.CHANCELLOR_HAND).to == (1,)
    assert the(events, Kind.CHANCELLOR_HAND).data == {"policies": [L, F], "veto": False}
    assert g.legal_actions(1) == [Enact(1, F), Enact(1, L)]
    refused(g, Enact(0, L), Reason.NOT_YOUR_TURN)
    events = g.apply(Enact(1, L))
    assert the(events, Kind.POLICY_ENACTED).data == {
        "policy": L,
        "liberal": 1,
        "fascist": 0,
        "chaos": False,
    }
    assert sorted(g.discard) == [F, F] and not g.hand


def test_r5_2_the_chancellor_can_only_enact_a_tile_of_the_hand() -> None:
    g, _ = make(5, deck="LFF" + "LLF" * 4 + "LF")
    elect(g, 1)
    g.apply(Discard(0, L))
    assert g.legal_actions(1) == [Enact(1, F)]
    refused(g, Enact(1, L), Reason.NOT_IN_HAND)


def test_r5_3_discarded_tiles_are_never_revealed() -> None:
    g, _ = make(5, deck="FLF" + "LLF" * 4 + "FF")
    events = elect(g, 1)
    events += g.apply(Discard(0, F))
    events += g.apply(Enact(1, L))
    for ev in events:
        if ev.to is None and ev.kind is not Kind.POLICY_ENACTED:
            assert not {"policies", "policy", "discarded"} & set(ev.data), ev
    view = g.public_view()
    assert view["discard"] == 2 and "discards" not in view


def test_r5_4_the_piles_are_reshuffled_when_fewer_than_three_remain() -> None:
    """Two chaos policies and four sessions leave exactly 3 tiles: no reshuffle. The fifth
    session takes them; the reshuffle then happens before the Policy Peek it grants."""
    g, _ = make(5, deck="LL" + "LFF" * 4 + "FFF")
    chaos(g)
    chaos(g)
    assert (g.liberal, len(g.draw), g.president) == (2, 15, 1)
    for chancellor, policy in [(2, L), (3, F), (4, F), (0, L)]:
        events = govern(g, chancellor, policy)
        assert Kind.DECK_RESHUFFLED not in kinds(events)
    assert g.draw == [F, F, F] and len(g.discard) == 8
    president = g.president
    events = govern(g, 1, F)  # the third Fascist policy: Policy Peek
    assert kinds(events).index(Kind.DECK_RESHUFFLED) < kinds(events).index(Kind.PEEKED)
    assert the(events, Kind.DECK_RESHUFFLED).data == {"draw": 10}
    assert len(g.draw) == 10 and not g.discard and g.tiles_total() == 17
    assert the(events, Kind.PEEK_RESULT).data["policies"] == g.draw[-3:][::-1]
    assert the(events, Kind.PEEK_RESULT).to == (president,)


def test_r5_4_after_five_sessions_the_two_left_are_shuffled_with_the_discards() -> None:
    g, _ = make(5)
    for chancellor, policy in [(1, L), (2, L), (3, F), (4, L), (0, L)]:
        events = govern(g, chancellor, policy)
    assert the(events, Kind.DECK_RESHUFFLED).data == {"draw": 12}
    assert Counter(g.draw) == {L: 2, F: 10} and not g.discard
    assert kinds(events)[-2:] == [Kind.DECK_RESHUFFLED, Kind.ROUND_STARTED]


def test_r5_5_an_enacted_policy_resets_the_tracker() -> None:
    g, _ = make(5)
    reject(g)
    reject(g)
    events = govern(g, 0, F)
    assert g.tracker == 0 and Kind.TRACKER_ADVANCED not in kinds(events)


def test_r5_6_a_fascist_policy_on_a_power_slot_grants_the_power_to_the_president() -> None:
    g, _ = make(7)
    events = govern(g, 1, F)  # F1: nothing with 7 players
    assert Kind.POWER_GRANTED not in kinds(events) and g.phase is Phase.NOMINATE
    events = govern(g, 2, F)  # F2: investigate
    assert the(events, Kind.POWER_GRANTED).data == {"power": Power.INVESTIGATE, "president": 1}
    assert kinds(events)[-1] is Kind.POWER_GRANTED, "the next round waits for the power"
    assert g.phase is Phase.INVESTIGATE and g.to_act() == [1]
    g.apply(Investigate(1, 5))
    events = govern(g, 3, L)
    assert Kind.POWER_GRANTED not in kinds(events), "a Liberal policy grants nothing"


# ============================================================================ R6 chaos


def test_r6_1_the_third_failed_election_enacts_the_top_tile() -> None:
    g, _ = make(5, deck="F" + "LFF" * 5 + "L")
    events = chaos(g)
    assert [e.data["tracker"] for e in events if e.kind is Kind.TRACKER_ADVANCED] == [1, 2, 3]
    assert the(events, Kind.CHAOS).data == {"policy": F, "liberal": 0, "fascist": 1, "chaos": True}
    assert the(events, Kind.CHAOS).to is None
    assert len(g.draw) == 16 and g.fascist == 1 and g.phase is Phase.NOMINATE
    assert kinds(events)[-1] is Kind.ROUND_STARTED


def test_r6_2_chaos_ignores_the_power_of_its_slot() -> None:
    g, _ = make(10, deck="F" + FLEXIBLE_DECK[1:])
    events = chaos(g)  # F1 investigates with 10 players — but not after chaos
    assert g.fascist == 1 and Kind.POWER_GRANTED not in kinds(events)
    assert g.phase is Phase.NOMINATE


def test_r6_2_r6_5_chaos_skips_peek_yet_counts_toward_the_next_slot() -> None:
    g, _ = make(5, deck="FFF" + "LFF" * 4 + "LL")
    for _ in range(3):
        events = chaos(g)
        assert Kind.POWER_GRANTED not in kinds(events) and Kind.PEEKED not in kinds(events)
    assert g.fascist == 3
    president = g.president
    events = govern(g, (president + 1) % 5 if (president + 1) % 5 != 4 else 0, F)
    assert the(events, Kind.POWER_GRANTED).data["power"] is Power.EXECUTION  # slot 4
    assert g.phase is Phase.EXECUTION


def test_r6_3_chaos_resets_the_tracker_and_forgets_term_limits() -> None:
    g, _ = make(7)
    govern(g, 2, L)  # last elected: president 0, chancellor 2
    events = chaos(g)
    assert g.tracker == 0 and (g.last_president, g.last_chancellor) == (-1, -1)
    assert kinds(events)[-4:] == [
        Kind.VOTE_RESULT,
        Kind.TRACKER_ADVANCED,
        Kind.CHAOS,
        Kind.ROUND_STARTED,
    ]
    assert g.president == 4 and g.term_limited() == []
    assert [a.target for a in g.legal_actions(4)] == [0, 1, 2, 3, 5, 6]
    nominate(g, 2)


def test_r6_4_chaos_that_leaves_fewer_than_three_tiles_reshuffles() -> None:
    g, _ = make(5, deck="LFF" * 4 + "LFL" + "FF")
    for chancellor, policy in [(1, L), (2, L), (3, F), (4, F)]:
        govern(g, chancellor, policy)
    assert len(g.draw) == 5
    assert Kind.DECK_RESHUFFLED not in kinds(chaos(g))  # L: 4 left
    assert Kind.DECK_RESHUFFLED not in kinds(chaos(g))  # F3, peek ignored: 3 left
    events = chaos(g)  # L: 2 left
    assert the(events, Kind.CHAOS).data["policy"] == L
    assert kinds(events)[-3:] == [Kind.CHAOS, Kind.DECK_RESHUFFLED, Kind.ROUND_STARTED]
    assert the(events, Kind.DECK_RESHUFFLED).data == {"draw": 10}
    assert (g.liberal, g.fascist, len(g.draw), len(g.discard)) == (4, 3, 10, 0)


def test_r6_5_a_chaos_fifth_fascist_policy_unlocks_the_veto() -> None:
    g, _ = make(5, deck="FFFFF" + "LFF" * 3 + "LLL")
    for _ in range(4):
        assert Kind.VETO_UNLOCKED not in kinds(chaos(g))
    events = chaos(g)
    assert Kind.VETO_UNLOCKED in kinds(events) and g.fascist == 5
    assert Kind.POWER_GRANTED not in kinds(events)
    events = elect(g, first_non_hitler(g))
    assert the(events, Kind.SESSION_STARTED).data["veto"] is True
    g.apply(Discard(g.president, L))
    assert ProposeVeto(g.chancellor) in g.legal_actions(g.chancellor)


def test_r6_5_r10_3_a_chaos_sixth_fascist_policy_wins() -> None:
    g, _ = make(5, deck="FFFFFF" + "LFLFLFLFLFL")
    for _ in range(5):
        chaos(g)
    events = chaos(g)
    over = the(events, Kind.GAME_OVER).data
    assert (over["winner"], over["condition"]) == (Winner.FASCIST, Condition.SIX_FASCIST)
    assert kinds(events)[-2:] == [Kind.CHAOS, Kind.GAME_OVER]
    assert g.fascist == 6 and g.phase is Phase.GAME_OVER


def test_r6_5_r10_1_a_chaos_fifth_liberal_policy_wins() -> None:
    g, _ = make(5, deck="LLLLL" + "LFF" + "F" * 9)
    for _ in range(4):
        chaos(g)
    events = chaos(g)
    over = the(events, Kind.GAME_OVER).data
    assert (over["winner"], over["condition"]) == (Winner.LIBERAL, Condition.FIVE_LIBERAL)
    assert kinds(events)[-2:] == [Kind.CHAOS, Kind.GAME_OVER]


def test_r6_5_r4_6_after_a_chaos_third_fascist_policy_electing_hitler_wins() -> None:
    g, _ = make(5, roles="LLHLF", deck="FFF" + "LFF" * 4 + "LL")
    for _ in range(3):
        chaos(g)
    assert g.fascist == 3 and g.president == 4
    events = elect(g, 2)
    over = the(events, Kind.GAME_OVER).data
    assert (over["winner"], over["condition"]) == (Winner.FASCIST, Condition.HITLER_ELECTED)


def first_non_hitler(g: Game) -> int:
    targets = [a.target for a in g.legal_actions(g.president)]  # type: ignore[union-attr]
    return next(t for t in targets if g.roles[t] != HITLER)


# ============================================================================ R7 veto

VETO_DECK = "FFFFF" + "LLF" * 3 + "FFF"
"""Five chaos Fascist policies unlock the veto with 12 tiles left: three L,L,F hands
and then F,F,F, after which the draw pile is empty."""


def _veto_era(deck: str = VETO_DECK) -> Game:
    g, _ = make(5, deck=deck)
    for _ in range(5):
        chaos(g)
    assert g.fascist == 5 and g.president == 0 and len(g.draw) == 12
    return g


def test_r7_1_the_veto_needs_five_fascist_policies_at_the_start_of_the_session() -> None:
    g, _ = make(5, deck="FFFF" + "LFF" * 3 + "LLL" + "F")
    for _ in range(4):
        chaos(g)
    assert g.fascist == 4 and g.president == 2
    events = elect(g, 3)
    assert the(events, Kind.SESSION_STARTED).data["veto"] is False
    events = g.apply(Discard(2, L))
    assert the(events, Kind.CHANCELLOR_HAND).data["veto"] is False
    assert ProposeVeto(3) not in g.legal_actions(3)
    refused(g, ProposeVeto(3), Reason.VETO_LOCKED)
    events = g.apply(Enact(3, F))  # the fifth: unlocks the veto for the next sessions
    assert Kind.VETO_UNLOCKED in kinds(events)
    assert the(events, Kind.POWER_GRANTED).data["power"] is Power.EXECUTION
    assert g.public_view()["veto_unlocked"] is True
    g.apply(Execute(2, 0))
    events = elect(g, 1)  # president 3
    assert the(events, Kind.SESSION_STARTED).data["veto"] is True
    g.apply(Discard(3, L))
    assert g.legal_actions(1)[-1] == ProposeVeto(1)


def test_r7_2_r7_3_an_accepted_veto_discards_both_and_advances_the_tracker() -> None:
    g = _veto_era()
    elect(g, 1)
    g.apply(Discard(0, F))
    events = g.apply(ProposeVeto(1))
    assert kinds(events) == [Kind.VETO_PROPOSED]
    assert events[0].data == {"president": 0, "chancellor": 1} and events[0].to is None
    assert g.phase is Phase.VETO_RESPONSE and g.to_act() == [0]
    assert g.legal_actions(0) == [AnswerVeto(0, True), AnswerVeto(0, False)]
    refused(g, Enact(1, L), Reason.WRONG_PHASE)
    refused(g, AnswerVeto(1, True), Reason.NOT_YOUR_TURN)
    discard = len(g.discard)
    events = g.apply(AnswerVeto(0, True))
    assert kinds(events) == [Kind.VETO_ACCEPTED, Kind.TRACKER_ADVANCED, Kind.ROUND_STARTED]
    assert (g.liberal, g.fascist, g.tracker) == (0, 5, 1)
    assert len(g.discard) == discard + 2 and not g.hand
    assert g.president == 1 and g.phase is Phase.NOMINATE
    assert (g.last_president, g.last_chancellor) == (0, 1), "it was still elected (R4.6)"


def test_r7_3_an_accepted_veto_can_trigger_chaos() -> None:
    g = _veto_era()
    reject(g)
    reject(g)
    assert g.tracker == 2 and g.president == 2
    elect(g, 3)
    g.apply(Discard(2, L))
    g.apply(ProposeVeto(3))
    top = g.draw[-1]
    events = g.apply(AnswerVeto(2, True))
    ks = kinds(events)
    assert ks[:3] == [Kind.VETO_ACCEPTED, Kind.TRACKER_ADVANCED, Kind.CHAOS]
    assert the(events, Kind.CHAOS).data["policy"] == top
    assert g.tracker == 0 and (g.last_president, g.last_chancellor) == (-1, -1)


def test_r7_4_a_refused_veto_cannot_be_proposed_again_and_a_tile_must_be_enacted() -> None:
    g = _veto_era()
    elect(g, 1)
    g.apply(Discard(0, F))
    g.apply(ProposeVeto(1))
    events = g.apply(AnswerVeto(0, False))
    assert kinds(events) == [Kind.VETO_REFUSED]
    assert events[0].data == {"president": 0, "chancellor": 1}
    assert g.phase is Phase.CHANCELLOR_ENACT and g.veto_refused
    assert g.legal_actions(1) == [Enact(1, L)]
    refused(g, ProposeVeto(1), Reason.VETO_ALREADY_REFUSED)
    g.apply(Enact(1, L))
    assert g.liberal == 1 and g.tracker == 0
    elect(g, 2)  # a new session: the veto may be proposed again
    g.apply(Discard(1, F))
    assert ProposeVeto(2) in g.legal_actions(2)


def test_r7_5_a_vetoed_session_that_empties_the_pile_reshuffles() -> None:
    g = _veto_era()
    for chancellor in (1, 2, 3):
        govern(g, chancellor, L)
    assert g.draw == [F, F, F] and g.president == 3 and len(g.discard) == 6
    elect(g, 0)
    g.apply(Discard(3, F))
    g.apply(ProposeVeto(0))
    events = g.apply(AnswerVeto(3, True))
    ks = kinds(events)
    assert ks.index(Kind.VETO_ACCEPTED) < ks.index(Kind.DECK_RESHUFFLED)
    assert the(events, Kind.DECK_RESHUFFLED).data == {"draw": 9}
    assert len(g.draw) == 9 and not g.discard and g.tiles_total() == 17


# ============================================================================ R8 rotation


def test_r8_1_the_next_candidate_follows_the_previous_candidate() -> None:
    g, _ = make(6, first=5)
    order = []
    for _ in range(4):
        order.append(g.president)
        reject(g) if len(order) % 2 else govern(g, (g.president + 2) % 6, L)
    assert order == [5, 0, 1, 2]


def _seven_players_to_special_election() -> Game:
    g, _ = make(7)  # Fascists 4 and 5, Hitler 6
    govern(g, 1, F)
    govern(g, 2, F)  # F2: investigate
    g.apply(Investigate(1, 3))
    govern(g, 3, F)  # F3: special election, called by president 2
    assert g.phase is Phase.SPECIAL_ELECTION and g.president == 2
    return g


def test_r8_2_r9_3_the_left_neighbour_may_be_candidate_twice_when_elected() -> None:
    g = _seven_players_to_special_election()
    events = g.apply(SpecialElection(2, 3))  # 3 is also the last chancellor: allowed
    assert the(events, Kind.SPECIAL_ELECTION).data == {"president": 2, "target": 3}
    assert the(events, Kind.ROUND_STARTED).data == {"round": 4, "president": 3, "special": True}
    events = govern(g, 0, L)
    assert the(events, Kind.ROUND_STARTED).data == {"round": 5, "president": 3, "special": False}


def test_r8_2_rotation_resumes_after_the_caller_when_the_special_government_fails() -> None:
    g = _seven_players_to_special_election()
    g.apply(SpecialElection(2, 3))
    events = reject(g, 0)
    assert the(events, Kind.ROUND_STARTED).data["president"] == 3


def test_r8_2_a_special_president_far_away_does_not_move_the_rotation() -> None:
    g = _seven_players_to_special_election()
    g.apply(SpecialElection(2, 5))
    assert g.president == 5
    reject(g, 0)
    assert g.president == 3
    reject(g)
    assert g.president == 4


def test_r8_2_the_special_president_may_be_last_president_or_term_limited() -> None:
    g = _seven_players_to_special_election()
    assert [a.target for a in g.legal_actions(2)] == [0, 1, 3, 4, 5, 6]
    refused(g, SpecialElection(2, 2), Reason.SELF_TARGET)
    g.apply(SpecialElection(2, 1))
    assert g.president == 1


@pytest.mark.parametrize(("victim", "next_president"), [(2, 3), (3, 4)])
def test_r8_2_r9_5_rotation_after_the_special_president_executes(
    victim: int, next_president: int
) -> None:
    """Executing the caller, or the caller's left neighbour, shifts the resumption to the
    next *living* player after the caller."""
    g = _seven_players_to_special_election()
    g.apply(SpecialElection(2, 5))
    govern(g, 0, F)  # F4: execution, by the special president
    assert g.phase is Phase.EXECUTION and g.president == 5
    g.apply(Execute(5, victim))
    assert g.president == next_president


# ============================================================================ R9 powers


@pytest.mark.parametrize("players", range(5, 11))
def test_r9_powers_by_player_count(players: int) -> None:
    """The table of R9, slot by slot, as granted in play."""
    g, _ = make(players)
    assert g.powers == POWERS_TABLE[players]
    seen: list[Power | None] = []
    for slot in range(5):
        events = elect(g, first_non_hitler(g))
        events += legislate(g, L if L in g.hand else F, F)
        assert g.fascist == slot + 1
        grants = [e.data["power"] for e in events if e.kind is Kind.POWER_GRANTED]
        seen.append(grants[0] if grants else None)
        pres = g.president
        targets = [a.target for a in g.legal_actions(pres) if hasattr(a, "target")]
        if g.phase is Phase.INVESTIGATE:
            g.apply(Investigate(pres, targets[0]))
        elif g.phase is Phase.SPECIAL_ELECTION:
            g.apply(SpecialElection(pres, targets[0]))
        elif g.phase is Phase.EXECUTION:
            g.apply(Execute(pres, next(t for t in targets if g.roles[t] != HITLER)))
        assert g.phase is Phase.NOMINATE
    assert tuple(seen) == POWERS_TABLE[players][:5]


def test_r9_the_rebalanced_six_player_game_starts_on_the_second_slot() -> None:
    g, _ = make(6, rebalanced=True)
    assert g.fascist == 1
    govern(g, 1, F)
    assert g.phase is Phase.NOMINATE  # slot 2: nothing
    events = govern(g, 2, F)
    assert the(events, Kind.POWER_GRANTED).data["power"] is Power.PEEK  # slot 3


def test_r9_1_a_power_is_used_once_by_the_sitting_president_before_the_next_round() -> None:
    g, _ = make(9)
    events = govern(g, 1, F)  # F1: investigate, president 0
    assert kinds(events)[-1] is Kind.POWER_GRANTED and g.to_act() == [0]
    refused(g, Nominate(0, 2), Reason.WRONG_PHASE)
    refused(g, Investigate(1, 2), Reason.NOT_YOUR_TURN)
    refused(g, Execute(0, 2), Reason.WRONG_PHASE)
    events = g.apply(Investigate(0, 5))
    assert kinds(events)[-1] is Kind.ROUND_STARTED and g.president == 1
    refused(g, Investigate(0, 6), Reason.WRONG_PHASE)
    events = govern(g, 2, L)
    assert Kind.POWER_GRANTED not in kinds(events), "powers never carry over"


def test_r9_2_investigation_shows_the_party_to_the_president_alone() -> None:
    g, _ = make(10)  # Fascists 6–8, Hitler 9
    govern(g, 1, F)
    events = g.apply(Investigate(0, 9))
    assert the(events, Kind.INVESTIGATED).data == {"president": 0, "target": 9}
    assert the(events, Kind.INVESTIGATED).to is None
    result = the(events, Kind.INVESTIGATION_RESULT)
    assert result.to == (0,) and result.data == {"target": 9, "party": F}, "Hitler shows F"
    assert g.private_view(0)["investigations"] == {9: F}
    assert g.private_view(1)["investigations"] == {}
    assert g.public_view()["investigated"][9] is True


def test_r9_2_a_player_can_be_investigated_only_once() -> None:
    g, _ = make(10)
    govern(g, 1, F)
    g.apply(Investigate(0, 9))
    govern(g, 2, F)  # F2: investigate again, president 1
    targets = [a.target for a in g.legal_actions(1)]  # type: ignore[union-attr]
    assert targets == [0, 2, 3, 4, 5, 6, 7, 8], "not 9 (done), not 1 (self)"
    refused(g, Investigate(1, 9), Reason.ALREADY_INVESTIGATED)
    refused(g, Investigate(1, 1), Reason.SELF_TARGET)
    refused(g, Investigate(1, 10), Reason.NO_SUCH_SEAT)
    events = g.apply(Investigate(1, 0))  # the investigator may be investigated
    assert the(events, Kind.INVESTIGATION_RESULT).data == {"target": 0, "party": L}


def test_r9_4_policy_peek_shows_the_top_three_in_order_and_leaves_the_pile() -> None:
    g, _ = make(5, deck="LFF" * 3 + "FLL" + "LFF" + "FF")
    govern(g, 1, F)
    govern(g, 2, F)
    draw = list(g.draw)
    events = govern(g, 3, F)  # president 2
    assert the(events, Kind.POWER_GRANTED).data == {"power": Power.PEEK, "president": 2}
    assert the(events, Kind.PEEKED).data == {"president": 2}
    peek = the(events, Kind.PEEK_RESULT)
    assert peek.to == (2,) and peek.data == {"policies": [F, L, L]}
    assert g.draw == draw[:-3], "the pile is unchanged by the peek"
    assert g.phase is Phase.NOMINATE and g.president == 3
    events = elect(g, 0)
    assert the(events, Kind.PRESIDENT_HAND).data["policies"] == [F, L, L]


def _five_players_to_execution() -> Game:
    g, _ = make(5)
    _five_players_three_fascist(g)
    govern(g, 0, F)  # F4: execution, president 3
    assert g.phase is Phase.EXECUTION and g.president == 3
    return g


def test_r9_5_an_executed_player_is_dead_and_their_role_stays_secret() -> None:
    g = _five_players_to_execution()
    refused(g, Execute(3, 3), Reason.SELF_TARGET)
    events = g.apply(Execute(3, 1))
    executed = the(events, Kind.EXECUTED)
    assert executed.data == {"president": 3, "target": 1} and executed.to is None
    assert Kind.GAME_OVER not in kinds(events)
    assert g.alive == [True, False, True, True, True]
    view = g.public_view()
    assert "roles" not in view and view["alive"][1] is False


def test_r9_5_the_dead_cannot_vote_be_nominated_or_targeted_and_are_skipped() -> None:
    g = _five_players_to_execution()
    g.apply(Execute(3, 0))
    assert g.president == 4
    assert 0 not in [a.target for a in g.legal_actions(4)]  # type: ignore[union-attr]
    refused(g, Nominate(4, 0), Reason.DEAD_PLAYER)
    nominate(g, 1)
    assert g.to_act() == [1, 2, 3, 4] and g.legal_actions(0) == ()
    refused(g, Vote(0, True), Reason.DEAD_PLAYER)
    with pytest.raises(Exception) as info:
        g.apply_ballots([True] * 5)
    assert getattr(info.value, "reason", None) is Reason.DEAD_PLAYER
    events = vote_all(g, True)
    assert the(events, Kind.VOTE_RESULT).data["votes"] == [None, 1, 1, 1, 1]
    assert the(events, Kind.VOTE_CAST).data["needed"] == 4
    legislate(g, L if L in g.hand else F, F)  # F5: execution again, president 4
    refused(g, Execute(4, 0), Reason.DEAD_PLAYER)
    g.apply(Execute(4, 2))
    assert g.president == 1, "4 → (0 dead) → 1"
    reject(g)
    assert g.president == 3, "1 → (2 dead) → 3"


def test_r9_5_r10_2_executing_hitler_wins_for_the_liberals() -> None:
    g = _five_players_to_execution()
    events = g.apply(Execute(3, 4))
    over = the(events, Kind.GAME_OVER)
    assert over.to is None
    assert over.data == {
        "winner": Winner.LIBERAL,
        "condition": Condition.HITLER_EXECUTED,
        "roles": list("LLLFH"),
    }
    assert kinds(events) == [Kind.EXECUTED, Kind.GAME_OVER]
    assert g.public_view()["roles"] == list("LLLFH")


# ============================================================================ R10 the end


def test_r10_1_five_liberal_policies_win() -> None:
    g, _ = make(5)
    for chancellor in (1, 2, 3, 4):
        govern(g, chancellor, L)
    events = govern(g, 0, L)
    over = the(events, Kind.GAME_OVER).data
    assert (over["winner"], over["condition"]) == (Winner.LIBERAL, Condition.FIVE_LIBERAL)
    assert (g.winner, g.condition, g.liberal) == (Winner.LIBERAL, Condition.FIVE_LIBERAL, 5)


def test_r10_3_six_fascist_policies_win() -> None:
    g, _ = make(10)
    for _ in range(5):
        elect(g, first_non_hitler(g))
        legislate(g, L if L in g.hand else F, F)
        pres = g.president
        targets = [a.target for a in g.legal_actions(pres) if hasattr(a, "target")]
        if g.phase is Phase.INVESTIGATE:
            g.apply(Investigate(pres, targets[0]))
        elif g.phase is Phase.SPECIAL_ELECTION:
            g.apply(SpecialElection(pres, targets[0]))
        elif g.phase is Phase.EXECUTION:
            g.apply(Execute(pres, next(t for t in targets if g.roles[t] != HITLER)))
    assert g.fascist == 5
    while True:
        elect(g, first_non_hitler(g))
        if F in g.hand:
            break
        g.apply(Discard(g.president, L))
        g.apply(Enact(g.chancellor, L))
    g.apply(Discard(g.president, L if L in g.hand else F))
    events = g.apply(Enact(g.chancellor, F))
    over = the(events, Kind.GAME_OVER).data
    assert (over["winner"], over["condition"]) == (Winner.FASCIST, Condition.SIX_FASCIST)
    assert Kind.POWER_GRANTED not in kinds(events)


def test_r10_every_role_is_revealed_at_the_end_and_not_before() -> None:
    g, _ = make(5)
    assert "roles" not in g.public_view()
    for chancellor in (1, 2, 3, 4):
        govern(g, chancellor, L)
        assert "roles" not in g.public_view()
    events = govern(g, 0, L)
    assert the(events, Kind.GAME_OVER).data["roles"] == list("LLLFH")
    assert g.public_view()["roles"] == list("LLLFH")
    assert g.public_view()["winner"] == "liberal"


# ============================================================================ R11 audiences


def test_r11_private_information_goes_to_the_entitled_seat_only() -> None:
    """R11 table, along a scripted 5-player game: roles, hands, peek and the end."""
    g, events = make(5)
    log = list(events)
    log += elect(g, 1)
    log += legislate(g, L, F)
    log += elect(g, 2)
    log += legislate(g, L, F)
    log += elect(g, 3)
    log += legislate(g, L, F)  # peek by president 2
    log += reject(g)
    audiences = [(e.kind, e.to) for e in log if e.to is not None]
    assert audiences == [
        (Kind.ROLE, (0,)),
        (Kind.ROLE, (1,)),
        (Kind.ROLE, (2,)),
        (Kind.ROLE, (3,)),
        (Kind.ROLE, (4,)),
        (Kind.PRESIDENT_HAND, (0,)),
        (Kind.CHANCELLOR_HAND, (1,)),
        (Kind.PRESIDENT_HAND, (1,)),
        (Kind.CHANCELLOR_HAND, (2,)),
        (Kind.PRESIDENT_HAND, (2,)),
        (Kind.CHANCELLOR_HAND, (3,)),
        (Kind.PEEK_RESULT, (2,)),
    ]
    public = [e for e in log if e.to is None]
    for e in public:
        assert not {"role", "party", "policies", "roles"} & set(e.data), e


def test_r11_private_view_holds_own_knowledge_only() -> None:
    g, _ = make(7)  # Fascists 4, 5; Hitler 6
    assert g.private_view(0) == {"role": L, "party": L, "seat": 0, "investigations": {}}
    assert g.private_view(4)["fascists"] == [5] and g.private_view(4)["hitler"] == 6
    assert "fascists" not in g.private_view(6)
    elect(g, 1)
    assert g.private_view(0)["hand"] == g.hand and "hand" not in g.private_view(1)
    g.apply(Discard(0, L))
    assert g.private_view(1)["hand"] == [F, F] and "hand" not in g.private_view(0)
    with pytest.raises(Exception) as info:
        g.private_view(7)
    assert getattr(info.value, "reason", None) is Reason.NO_SUCH_SEAT


def test_r11_votes_are_public_once_revealed_and_the_view_shows_the_board() -> None:
    g, _ = make(5)
    events = reject(g, 1)
    result = the(events, Kind.VOTE_RESULT)
    assert result.to is None and result.data["votes"] == [0, 0, 0, 0, 0]
    view = g.public_view()
    assert (view["tracker"], view["draw"], view["discard"]) == (1, 17, 0)
    assert view["liberal"] == 0 and view["fascist"] == 0


# ============================================================================ illegal actions


def test_illegal_actions_in_the_nomination_phase() -> None:
    g, _ = make(5)
    refused(g, Nominate(1, 2), Reason.NOT_YOUR_TURN)
    refused(g, Nominate(0, 5), Reason.NO_SUCH_SEAT)
    refused(g, Nominate(0, -1), Reason.NO_SUCH_SEAT)
    refused(g, Nominate(5, 1), Reason.NO_SUCH_SEAT)
    refused(g, Nominate(0, True), Reason.NO_SUCH_SEAT)  # a bool is not a seat
    refused(g, Nominate("0", 1), Reason.NO_SUCH_SEAT)  # type: ignore[arg-type]
    refused(g, Vote(0, True), Reason.WRONG_PHASE)
    refused(g, Discard(0, L), Reason.WRONG_PHASE)
    refused(g, Enact(0, L), Reason.WRONG_PHASE)
    refused(g, ProposeVeto(0), Reason.WRONG_PHASE)
    refused(g, AnswerVeto(0, True), Reason.WRONG_PHASE)
    refused(g, Investigate(0, 1), Reason.WRONG_PHASE)
    refused(g, SpecialElection(0, 1), Reason.WRONG_PHASE)
    refused(g, Execute(0, 1), Reason.WRONG_PHASE)
    refused(g, ("Nominate", 0, 1), Reason.BAD_ACTION)  # type: ignore[arg-type]
    with pytest.raises(Exception) as info:
        g.apply_ballots([True] * 5)
    assert getattr(info.value, "reason", None) is Reason.WRONG_PHASE


def test_illegal_actions_in_the_legislative_session() -> None:
    g, _ = make(5)
    elect(g, 1)
    refused(g, Enact(1, F), Reason.WRONG_PHASE)
    refused(g, Nominate(0, 2), Reason.WRONG_PHASE)
    refused(g, AnswerVeto(0, True), Reason.WRONG_PHASE)
    g.apply(Discard(0, L))
    refused(g, Discard(0, F), Reason.WRONG_PHASE)
    refused(g, Enact(0, F), Reason.NOT_YOUR_TURN)
    refused(g, ProposeVeto(0), Reason.NOT_YOUR_TURN)
    refused(g, AnswerVeto(1, True), Reason.WRONG_PHASE)
    refused(g, AnswerVeto(0, 1), Reason.WRONG_PHASE)  # type: ignore[arg-type]


def test_a_non_bool_veto_answer_is_refused() -> None:
    g = _veto_era()
    elect(g, 1)
    g.apply(Discard(0, F))
    g.apply(ProposeVeto(1))
    refused(g, AnswerVeto(0, 1), Reason.BAD_ACTION)  # type: ignore[arg-type]
    refused(g, AnswerVeto(0, None), Reason.BAD_ACTION)  # type: ignore[arg-type]


def test_illegal_actions_do_not_change_the_game_and_step_is_pure() -> None:
    g, _ = make(5)
    nominate(g, 1)
    before = g.to_json()
    nxt, events = step(g, Vote(0, True))
    assert g.to_json() == before and nxt.votes[0] == 1 and kinds(events) == [Kind.VOTE_CAST]


def _refusal_scenarios() -> dict[Reason, tuple[Game, object]]:
    """One exact scenario per reason code: the game and the action it must refuse."""
    out: dict[Reason, tuple[Game, object]] = {}
    g, _ = make(5)  # candidate 0
    out[Reason.NOT_YOUR_TURN] = (g, Nominate(1, 2))
    out[Reason.WRONG_PHASE] = (g, Vote(0, True))
    out[Reason.NO_SUCH_SEAT] = (g, Nominate(0, 5))
    out[Reason.SELF_TARGET] = (g, Nominate(0, 0))
    out[Reason.BAD_ACTION] = (g, ("Nominate", 0, 1))  # not an action object
    g, _ = make(5)
    govern(g, 2, L)
    out[Reason.NOT_ELIGIBLE] = (g, Nominate(1, 2))
    g, _ = make(5, deck="FFF" + "LLLLLL" + "F" * 8)
    elect(g, 2)
    out[Reason.NOT_IN_HAND] = (g, Discard(0, L))
    g, _ = make(5)
    elect(g, 2)
    g.apply(Discard(0, F))
    out[Reason.VETO_LOCKED] = (g, ProposeVeto(2))
    g = _veto_era()
    elect(g, 1)
    g.apply(Discard(0, F))
    g.apply(ProposeVeto(1))
    g.apply(AnswerVeto(0, False))
    out[Reason.VETO_ALREADY_REFUSED] = (g, ProposeVeto(1))
    g, _ = make(10)
    govern(g, 1, F)  # F1 with 10 players: investigate
    g.apply(Investigate(0, 3))
    govern(g, 2, F)  # F2: investigate again
    out[Reason.ALREADY_INVESTIGATED] = (g, Investigate(1, 3))
    g, _ = make(5, deck="FFF" + "FFF" + "FFF" + "FFLLLLLL")
    govern(g, 1, F)
    govern(g, 2, F)
    govern(g, 3, F)  # F3: peek, done at once
    govern(g, 0, F)  # F4: execution by President 3
    g.apply(Execute(3, 1))
    out[Reason.DEAD_PLAYER] = (g, Nominate(g.president, 1))
    g, _ = make(5)
    for chancellor in (1, 2, 3, 4, 0):
        govern(g, chancellor, L)
    assert g.winner is Winner.LIBERAL
    out[Reason.GAME_OVER] = (g, Nominate(g.president, 1))
    return out


def test_every_reason_code_is_a_typed_refusal_that_changes_nothing() -> None:
    """Each machine-readable reason the bot translates comes with an IllegalAction (or,
    for a bad set-up, BadSetup) and leaves the game exactly as it was."""
    scenarios = _refusal_scenarios()
    assert set(scenarios) | {Reason.BAD_SETUP} == set(Reason), "a reason code lacks a test"
    for reason, (g, action) in scenarios.items():
        error = refused(g, action, reason)  # type: ignore[arg-type]
        assert str(error).startswith(reason.value)
    with pytest.raises(BadSetup) as info:
        Game.new(4, 1)
    assert info.value.reason is Reason.BAD_SETUP and info.value.players == 4


def test_to_dict_is_a_snapshot_not_a_view() -> None:
    """A saved dict must not change when the game goes on (storage keeps it)."""
    g, _ = make(5)
    d = g.to_dict()
    saved = json.loads(json.dumps(d))
    govern(g, 1, F)
    assert d == saved
    assert Game.from_dict(d).to_dict() == saved


def test_from_dict_refuses_a_foreign_schema() -> None:
    g, _ = make(5)
    d = g.to_dict()
    d["schema"] = 99
    with pytest.raises(ValueError):
        Game.from_dict(d)


# ============================================================================ sections
# One scenario per section that has numbered rules, played end to end, so each section
# is checked as a whole and not only rule by rule (tests/test_engine_spec_coverage.py
# reads the spec and requires a test citing every section and every numbered rule).


def test_r1_a_new_game_deals_roles_seats_a_shuffled_deck_and_a_first_candidate() -> None:
    """R1: set-up as a whole — 8 players: 5/2/1 roles, seats in join order, 17 tiles
    (6 L + 11 F) in the draw pile, nothing else on the table, a living first candidate."""
    g, events = Game.new(8, 2024)
    assert Counter(g.roles) == {L: 5, F: 2, HITLER: 1}
    assert g.seating == list(range(8))
    assert Counter(g.draw) == {L: 6, F: 11} and not g.discard and not g.hand
    assert (g.liberal, g.fascist, g.tracker, g.round) == (0, 0, 0, 1)
    assert the(events, Kind.GAME_STARTED).data == {
        "players": 8,
        "seating": list(range(8)),
        "rebalanced": False,
        "fascist": 0,
        "draw": 17,
    }
    assert kinds(events) == [Kind.GAME_STARTED] + [Kind.ROLE] * 8 + [Kind.ROUND_STARTED]
    assert g.phase is Phase.NOMINATE and g.to_act() == [g.president] and g.alive[g.president]
    assert the(events, Kind.ROUND_STARTED).data == {
        "round": 1,
        "president": g.president,
        "special": False,
    }


def test_r4_an_election_runs_nomination_then_a_secret_vote_then_the_result() -> None:
    """R4: one whole election — candidacy, nomination, ballots hidden while they come in
    one by one, then every ballot revealed at once and the government recorded."""
    g, events = make(5, first=0)
    assert the(events, Kind.ROUND_STARTED).data["president"] == 0
    events = nominate(g, 2)
    assert [e.data for e in events] == [{"president": 0, "chancellor": 2}]
    assert g.phase is Phase.VOTE and g.to_act() == [0, 1, 2, 3, 4]
    for voted, (seat, ja) in enumerate([(0, True), (1, False), (2, True), (3, False)], 1):
        events = g.apply(Vote(seat, ja))
        assert kinds(events) == [Kind.VOTE_CAST]
        assert events[0].data == {"seat": seat, "voted": voted, "needed": 5, "changed": False}
        assert g.to_act() == list(range(voted, 5))
    events = g.apply(Vote(4, True))
    assert kinds(events)[:3] == [Kind.VOTE_CAST, Kind.VOTE_RESULT, Kind.GOVERNMENT_ELECTED]
    result = the(events, Kind.VOTE_RESULT)
    assert result.data == {"votes": [1, 0, 1, 0, 1], "ja": 3, "nein": 2, "elected": True}
    assert result.to is None
    assert (g.last_president, g.last_chancellor, g.tracker) == (0, 2, 0)
    assert g.phase is Phase.PRESIDENT_DISCARD and g.to_act() == [0]


def test_r5_a_whole_session_draws_three_passes_two_enacts_one_and_resets_the_tracker() -> None:
    """R5: after a failed vote (tracker 1) a government draws L,F,F; the President discards
    F and passes L,F; the Chancellor enacts L; the tracker is back at 0, 17 tiles kept."""
    g, _ = make(5, first=0)
    reject(g)
    assert g.tracker == 1 and g.president == 1
    events = elect(g, 3)
    assert the(events, Kind.PRESIDENT_HAND).data == {"policies": [L, F, F]}
    assert the(events, Kind.PRESIDENT_HAND).to == (1,)
    assert len(g.draw) == 14 and g.hand == [L, F, F]
    events = g.apply(Discard(1, F))
    assert kinds(events) == [Kind.PRESIDENT_DISCARDED, Kind.CHANCELLOR_HAND]
    assert events[1].data == {"policies": [L, F], "veto": False} and events[1].to == (3,)
    events = g.apply(Enact(3, L))
    assert kinds(events) == [Kind.POLICY_ENACTED, Kind.ROUND_STARTED]
    assert events[0].data == {"policy": L, "liberal": 1, "fascist": 0, "chaos": False}
    assert (g.tracker, g.discard, g.hand, g.president) == (0, [F, F], [], 2)
    assert g.tiles_total() == 17


def test_r6_only_three_failed_governments_in_a_row_bring_chaos() -> None:
    """R6: two failures, then an enacted policy resets the count; two more failures do
    nothing; the third in a row enacts the top tile (L here) with the tracker back at 0."""
    g, _ = make(5, first=0)
    reject(g)
    reject(g)
    assert g.tracker == 2
    events = govern(g, 3, L)
    assert g.tracker == 0 and Kind.CHAOS not in kinds(events)
    events = reject(g) + reject(g)
    assert g.tracker == 2 and Kind.CHAOS not in kinds(events)
    assert g.draw[-1] == L
    events = reject(g)
    assert the(events, Kind.CHAOS).data == {"policy": L, "liberal": 2, "fascist": 0, "chaos": True}
    assert g.tracker == 0 and g.term_limited() == [] and g.phase is Phase.NOMINATE


def test_r7_the_veto_unlocks_with_the_fifth_fascist_policy_and_is_offered_each_session() -> None:
    """R7: locked while the fifth Fascist policy is being enacted, announced when it is,
    then accepted in one session (nothing enacted, tracker +1) and refused in the next
    (the Chancellor must enact)."""
    g, _ = make(5, deck="FFFF" + "FFL" + "LLF" + "LLF" + "FLF" + "F")
    for _ in range(4):
        chaos(g)
    assert g.fascist == 4 and g.president == 2
    elect(g, 3)
    g.apply(Discard(2, L))
    assert g.legal_actions(3) == [Enact(3, F)], "no veto in a session started at 4"
    events = g.apply(Enact(3, F))
    assert Kind.VETO_UNLOCKED in kinds(events) and g.fascist == 5
    assert g.phase is Phase.EXECUTION
    g.apply(Execute(2, 0))
    assert g.president == 3
    elect(g, 1)
    g.apply(Discard(3, F))
    assert g.legal_actions(1) == [Enact(1, L), ProposeVeto(1)]
    g.apply(ProposeVeto(1))
    events = g.apply(AnswerVeto(3, True))
    assert (g.liberal, g.fascist, g.tracker, g.president) == (0, 5, 1, 4)
    assert Kind.POLICY_ENACTED not in kinds(events)
    elect(g, 2)
    g.apply(Discard(4, F))
    g.apply(ProposeVeto(2))
    g.apply(AnswerVeto(4, False))
    assert g.legal_actions(2) == [Enact(2, L)]
    g.apply(Enact(2, L))
    assert (g.liberal, g.fascist, g.tracker) == (1, 5, 0)


def test_r8_presidents_over_a_whole_cycle_with_a_special_election() -> None:
    """R8: with 7 players the candidacy goes 0, 1, 2; President 2 calls a Special
    Election of 5; then it resumes at 3, 4, and 5 presides again in turn, then 6, 0."""
    g = _seven_players_to_special_election()
    presidents = [0, 1, 2]
    g.apply(SpecialElection(2, 5))
    for _ in range(6):
        presidents.append(g.president)
        reject(g)
    assert presidents == [0, 1, 2, 5, 3, 4, 5, 6, 0]
    assert g.president == 1
