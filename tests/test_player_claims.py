"""Claims of computer players: who is asked, what they say, and what the others make of it."""

from __future__ import annotations

import random
from typing import Any

from shbot.calibration import Talk
from shbot.engine import FASCIST, LIBERAL, Event, Game, Kind
from shbot.engine.claims import Claim, ClaimKind, normalize
from shbot.players import ClaimRequest, HeuristicAgent, RandomAgent, claim_requests
from shbot.players.reader import KNOWN
from shbot.simulate import game_seeds, play


def ev(kind: Kind, to: tuple[int, ...] | None = None, **data: Any) -> Event:
    return Event(kind, data, to)


def test_claim_requests_follow_sessions_investigations_and_peeks() -> None:
    enacted = [ev(Kind.POLICY_ENACTED, policy="F", liberal=0, fascist=3, chaos=False)]
    peek = [*enacted, ev(Kind.PEEKED, president=2), ev(Kind.PEEK_RESULT, (2,), policies=["F"])]
    assert claim_requests(peek, 4, 2, 3) == [
        ClaimRequest(4, 2, ClaimKind.DRAWN),
        ClaimRequest(4, 3, ClaimKind.RECEIVED),
        ClaimRequest(4, 2, ClaimKind.PEEKED),
    ]
    veto = [ev(Kind.VETO_ACCEPTED, president=1, chancellor=0)]
    assert [r.kind for r in claim_requests(veto, 9, 1, 0)] == [ClaimKind.DRAWN, ClaimKind.RECEIVED]
    inv = [ev(Kind.INVESTIGATED, president=5, target=1)]
    assert claim_requests(inv, 6, 5, 2) == [ClaimRequest(6, 5, ClaimKind.INVESTIGATED, 1)]
    chaos = [ev(Kind.POLICY_ENACTED, policy="F", liberal=0, fascist=1, chaos=True)]
    assert claim_requests(chaos, 3, 0, -1) == []
    over = [*enacted, ev(Kind.GAME_OVER, winner="fascist")]
    assert claim_requests(over, 8, 0, 1) == []


def truths(events: list[Event]) -> dict[tuple[int, int, ClaimKind], Any]:
    """What each seat really saw, keyed like the claims about it."""
    rnd = 0
    out: dict[tuple[int, int, ClaimKind], Any] = {}
    for kind, data, to in events:
        if kind is Kind.ROUND_STARTED:
            rnd = data["round"]
        elif to is not None and kind is not Kind.ROLE:
            seat = to[0]
            if kind is Kind.PRESIDENT_HAND:
                out[rnd, seat, ClaimKind.DRAWN] = normalize(
                    ClaimKind.DRAWN, "".join(data["policies"])
                )
            elif kind is Kind.CHANCELLOR_HAND:
                text = "".join(data["policies"])
                out[rnd, seat, ClaimKind.RECEIVED] = normalize(ClaimKind.RECEIVED, text)
            elif kind is Kind.INVESTIGATION_RESULT:
                out[rnd, seat, ClaimKind.INVESTIGATED] = (data["target"], data["party"])
            elif kind is Kind.PEEK_RESULT:
                out[rnd, seat, ClaimKind.PEEKED] = "".join(data["policies"])
    return out


def said(claim: Claim) -> Any:
    if claim.kind is ClaimKind.INVESTIGATED:
        return (claim.target, claim.party)
    return claim.policies


def test_liberals_claim_the_truth_and_fascists_sometimes_lie() -> None:
    """Liberals tell the truth but for the odd slip (people: 6-7 % of their claims), and
    never about an investigation; Fascists lie often, not always."""
    liberal = liberal_slips = fascist_true = fascist_lies = investigations_lied = 0
    quiet: dict[str, int] = {LIBERAL: 0, FASCIST: 0}
    for k, seed in enumerate(game_seeds(11, 150)):
        events: list[Event] = []
        result = play(5 + k % 6, seed, "heuristic", "heuristic", events)
        roles = events[-1].data["roles"]
        seen = truths(events)
        for claim in result.claims:
            if claim.kind is ClaimKind.NONE:  # now and then a seat says nothing
                quiet[LIBERAL if roles[claim.seat] == LIBERAL else FASCIST] += 1
                continue
            truth = seen[claim.round, claim.seat, claim.kind]
            if roles[claim.seat] == LIBERAL:
                liberal += 1
                liberal_slips += said(claim) != truth
                assert claim.kind is not ClaimKind.INVESTIGATED or said(claim) == truth
            elif said(claim) == truth:
                fascist_true += 1
            else:
                fascist_lies += 1
                investigations_lied += claim.kind is ClaimKind.INVESTIGATED
    assert liberal > 300 and 0 < liberal_slips < 0.12 * liberal, (liberal_slips, liberal)
    assert fascist_lies > 30 and fascist_true > fascist_lies  # sometimes, not always
    assert investigations_lied > 0  # framing a Liberal they investigated
    assert quiet[LIBERAL] > 20 and quiet[FASCIST] > 20  # silence is no tell of either side


def test_random_agent_claims_are_well_formed() -> None:
    agent = RandomAgent(random.Random(3))
    game, _ = Game.new(5, 1)
    kinds = {ClaimKind.DRAWN: 3, ClaimKind.RECEIVED: 2, ClaimKind.PEEKED: 3}
    for kind, size in kinds.items():
        claim = agent.claim(game, ClaimRequest(2, 1, kind))
        assert (claim.round, claim.seat, claim.kind) == (2, 1, kind)
        assert len(claim.policies) == size and set(claim.policies) <= {LIBERAL, FASCIST}
    inv = agent.claim(game, ClaimRequest(2, 1, ClaimKind.INVESTIGATED, 4))
    assert inv.target == 4 and inv.party in (LIBERAL, FASCIST)


def seated(role_of_seat0: str = LIBERAL, seed: int = 0) -> HeuristicAgent:
    """A heuristic agent at seat 0 of a 7-player game, roles LFHLLLF rotated as needed."""
    roles = "LFHLLLF" if role_of_seat0 == LIBERAL else "FLHLLLF"
    game, events = Game.new(7, 1, roles=roles, first_president=0)
    agent = HeuristicAgent(random.Random(seed))
    agent.reset(0, game)
    agent.observe([e for e in events if e.to is None or 0 in e.to])
    return agent


def session(agent: HeuristicAgent, rnd: int, p: int, c: int, policy: str, **mine: Any) -> None:
    """Feed ``agent`` a session of round ``rnd`` that enacted ``policy``."""
    agent.observe(
        [
            ev(Kind.ROUND_STARTED, round=rnd, president=p, special=False),
            ev(Kind.NOMINATED, president=p, chancellor=c),
            ev(Kind.SESSION_STARTED, president=p, chancellor=c, veto=False),
        ]
    )
    if "drawn" in mine:
        agent.observe([ev(Kind.PRESIDENT_HAND, (0,), policies=list(mine["drawn"]))])
        agent.passed = list(mine["passed"])
    if "received" in mine:
        agent.observe([ev(Kind.CHANCELLOR_HAND, (0,), policies=list(mine["received"]))])
    agent.observe([ev(Kind.POLICY_ENACTED, policy=policy, liberal=0, fascist=1, chaos=False)])


def test_a_liberal_reads_conflicts_admissions_and_lies_told_to_it() -> None:
    watcher = seated()
    session(watcher, 1, 3, 4, FASCIST)
    watcher.hear([Claim(1, 3, ClaimKind.DRAWN, "FFL"), Claim(1, 4, ClaimKind.RECEIVED, "FF")])
    # "I passed a Liberal" against "I got none": either may lie, both are weighed alike.
    assert watcher.score(3) == watcher.score(4) > 2
    session(watcher, 2, 5, 1, FASCIST)
    watcher.hear([Claim(2, 5, ClaimKind.DRAWN, "FFL"), Claim(2, 1, ClaimKind.RECEIVED, "LL")])
    assert watcher.score(1) > 4  # received two Liberals, enacted a Fascist: impossible
    session(watcher, 3, 6, 2, FASCIST)
    watcher.hear([Claim(3, 6, ClaimKind.DRAWN, "LFF"), Claim(3, 2, ClaimKind.RECEIVED, "FL")])
    assert watcher.score(6) < 1 < watcher.score(2)  # any order of tiles; the Chancellor admits
    # As Chancellor it knows what it received: a President claiming a Liberal tile it never
    # passed is a Fascist.
    chancellor = seated()
    session(chancellor, 1, 3, 0, FASCIST, received="FF")
    chancellor.hear([Claim(1, 3, ClaimKind.DRAWN, "FFL")])
    assert chancellor.score(3) == KNOWN
    # As President it knows what it passed.
    president = seated()
    session(president, 1, 0, 5, LIBERAL, drawn="FFL", passed="FL")
    president.hear([Claim(1, 5, ClaimKind.RECEIVED, "LL")])
    assert president.score(5) == KNOWN
    # Accused by a President: a Liberal knows its own party.
    accused = seated()
    accused.hear([Claim(2, 6, ClaimKind.INVESTIGATED, target=0, party=FASCIST)])
    assert accused.score(6) == KNOWN


def test_a_fascist_covers_a_forced_fascist_policy_with_a_mixed_strategy() -> None:
    """Forced FF on a Liberal Chancellor: mostly the FFF cover, sometimes the truth (a
    dispute) or a frame, now and then silence; an honest session is told as it was."""
    said: dict[str, int] = {}
    honest_told = 0
    for seed in range(200):
        agent = seated(FASCIST, seed)
        assert agent.role == FASCIST and agent.hitler == 2
        session(agent, 1, 0, 3, FASCIST, drawn="FFL", passed="FF")
        claim = agent.claim(Game.new(7, 1)[0], ClaimRequest(1, 0, ClaimKind.DRAWN))
        said[claim.policies] = said.get(claim.policies, 0) + 1
        honest = seated(FASCIST, seed)
        session(honest, 1, 0, 3, LIBERAL, drawn="FLL", passed="LL")
        told = honest.claim(Game.new(7, 1)[0], ClaimRequest(1, 0, ClaimKind.DRAWN))
        assert told.policies in ("FLL", "", "FFL", "LLL")  # the truth, but for a slip
        honest_told += told.policies == "FLL"
    assert set(said) <= {"FFF", "FFL", "FLL", ""} and len(said) >= 3, said
    assert said["FFF"] > 40 and said["FFL"] > 25, said
    assert honest_told > 170


def test_a_burned_liberal_is_covered_by_the_hand_that_would_force_it() -> None:
    """Drew 🔴🔵🔵 and passed 🔴🔵 (a Liberal out of the deck): the cover is 🔴🔴🔵, the
    hand that forced the pass — never 🔴🔴🔴, which the Chancellor's 🔴🔵 would contradict."""
    said: dict[str, int] = {}
    for seed in range(200):
        agent = seated(FASCIST, seed)
        session(agent, 1, 0, 3, LIBERAL, drawn="FLL", passed="FL")
        claim = agent.claim(Game.new(7, 1)[0], ClaimRequest(1, 0, ClaimKind.DRAWN))
        said[claim.policies] = said.get(claim.policies, 0) + 1
    assert "FFF" not in said, said
    assert said.get("FFL", 0) > 100, said


def test_fascists_never_shoot_a_teammate_and_sometimes_clear_one() -> None:
    """Over many heuristic games no ordinary Fascist shoots Hitler or a teammate; about a
    third of their investigations look at a teammate (people: 33 %), to clear them."""
    shots = looks = teammates = 0
    for k, seed in enumerate(game_seeds(21, 300)):
        events: list[Event] = []
        play(5 + k % 6, seed, "heuristic", "heuristic", events)
        roles = events[-1].data["roles"]
        for kind, data, _ in events:
            if roles[data.get("president", 0)] != FASCIST or "target" not in data:
                continue
            if kind is Kind.EXECUTED:
                shots += 1
                assert roles[data["target"]] == LIBERAL
            elif kind is Kind.INVESTIGATED:
                looks += 1
                teammates += roles[data["target"]] != LIBERAL
    assert shots > 4 and looks > 60
    assert 0.15 < teammates / looks < 0.5


def test_claims_the_pile_cannot_hold_share_the_blame() -> None:
    """Three Presidents claim LLL, Liberal policies enacted: nine Liberal tiles from a pile
    of six. No one claim is the lie: each claimant gets the same share of the blame."""
    watcher = seated()
    before: list[float] = []
    for rnd, (p, c) in enumerate(((3, 4), (5, 6), (1, 2)), start=1):
        session(watcher, rnd, p, c, LIBERAL)
        before.append(watcher.score(p))
        watcher.hear(
            [Claim(rnd, p, ClaimKind.DRAWN, "LLL"), Claim(rnd, c, ClaimKind.RECEIVED, "LL")]
        )
    blame = [watcher.score(p) - b for p, b in zip((3, 5, 1), before, strict=True)]
    assert blame[0] == blame[1] == blame[2] > 1.0, blame
    assert watcher.score(4) < 0  # a Chancellor's LL alone over-claims nothing


def test_hitler_odds_follow_who_suspect_seats_push_as_chancellor() -> None:
    """Once Hitler can win, a chancellor nominated by a seat caught in a conflict is more
    likely Hitler than an even guess; a confirmed seat cannot be."""
    watcher = seated()
    session(watcher, 1, 3, 4, FASCIST)
    watcher.hear([Claim(1, 3, ClaimKind.DRAWN, "LLL"), Claim(1, 4, ClaimKind.RECEIVED, "FF")])
    watcher.fascist = 3
    watcher.observe([ev(Kind.ROUND_STARTED, round=2, president=3, special=False)])
    watcher.observe([ev(Kind.NOMINATED, president=3, chancellor=5)])
    watcher.confirmed[6] = True
    odds = watcher.hitler_odds()
    assert odds[5] > 1.2 > odds[1] and odds[6] == 0.0 and odds[0] == 0.0


def test_no_claimed_draw_marks_the_fascist_team() -> None:
    """The old tell: 🔴🔴🔴 claims were 58 % Fascist-team against a 38 % base, 🔴🔴🔵 13 %.
    Now each claimed draw stays near the base rate (the tournament holds it within 5
    points over 6,000 games; here within 8, against the noise of 240)."""
    talk = Talk()
    for k, seed in enumerate(game_seeds(31, 240)):
        events: list[Event] = []
        result = play(5 + k % 6, seed, "heuristic", "heuristic", events)
        talk.add(events, result.claims, result.asked)
    claims = talk.report()["claims"]
    base = claims["any"]["fascist_team"]
    for value in ("FFF", "FFL", "FLL"):
        assert abs(claims[value]["fascist_team"] - base) < 8, (value, claims)
