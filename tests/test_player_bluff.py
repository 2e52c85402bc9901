"""Mixed strategies: Hitler covers a teammate he found, and no computer tells a lie the
public record flags at once (the pile counts since the last shuffle, the claims so far)."""

from __future__ import annotations

import random

from shbot.engine import FASCIST, LIBERAL, Event, Game, Kind
from shbot.engine.claims import Claim, ClaimKind, Fact, conflicts
from shbot.players import ClaimRequest, HeuristicAgent
from shbot.players.bluff import drawn_claim


def seat0(roles: str, seed: int = 0) -> HeuristicAgent:
    game, events = Game.new(7, 1, roles=roles, first_president=0)
    agent = HeuristicAgent(random.Random(seed))
    agent.reset(0, game)
    agent.observe([e for e in events if e.to is None or 0 in e.to])
    return agent


def test_hitler_who_investigates_a_fascist_counts_them_as_a_teammate_and_covers() -> None:
    hitler = seat0("HFLLLLF")
    assert hitler.team == {0}  # from 7 players Hitler knows nobody (R2.4)
    hitler.observe([Event(Kind.INVESTIGATION_RESULT, {"target": 1, "party": FASCIST}, (0,))])
    assert hitler.team == {0, 1} and 1 in hitler.partners
    request = ClaimRequest(4, 0, ClaimKind.INVESTIGATED, 1)
    for seed in range(20):
        hitler.seed = seed
        assert hitler.claim(Game.new(7, 1)[0], request).party == LIBERAL


def session(rnd: int, p: int, c: int, fascist: int) -> list[Fact]:
    return [
        Fact(rnd, Event(Kind.SESSION_STARTED, {"president": p, "chancellor": c, "veto": False})),
        Fact(
            rnd,
            Event(
                Kind.POLICY_ENACTED,
                {"policy": FASCIST, "liberal": 0, "fascist": fascist, "chaos": False},
            ),
        ),
    ]


def forced(agent: HeuristicAgent, spent: int) -> list[str]:
    """The Fascist at seat 0 drew FFL, passed FF to a Liberal (seat 3) who enacted it;
    ``spent`` earlier sessions each claimed FFF. Its claims over many dice."""
    start = Fact(0, Event(Kind.GAME_STARTED, {"draw": 17, "fascist": 0}))
    facts = [start]
    said = []
    for r in range(1, spent + 1):
        facts += session(r, r, r + 1, r)
        said.append(Claim(r, r, ClaimKind.DRAWN, "FFF"))
    rnd = spent + 1
    facts += session(rnd, 0, 3, rnd)
    out = []
    for seed in range(200):
        agent.facts, agent.said = list(facts), list(said)
        agent.drawn, agent.passed, agent.enacted = ["F", "F", "L"], ["F", "F"], FASCIST
        agent.gov, agent.seed = (0, 3), seed
        agent.rng = agent.rng.__class__(seed)
        claim = drawn_claim(agent, ClaimRequest(rnd, 0, ClaimKind.DRAWN))
        fresh = [c for c in conflicts(facts, [*said, claim]) if c not in conflicts(facts, said)]
        assert not [c for c in fresh if c.seat == 0 and claim.policies != "FFL"], claim
        out.append(claim.policies)
    return out


def test_a_lie_the_pile_counts_would_flag_is_not_told() -> None:
    fascist = seat0("FLHLLLF")
    free = forced(fascist, 0)
    assert "FFF" in free and "FLL" in free and "FFL" in free  # a mixed strategy
    # Three FFF claimed since the shuffle: nine of the eleven Fascist tiles. A fourth FFF
    # would need twelve, so the cover is dropped (the truth, or a frame, is said instead).
    tight = forced(fascist, 3)
    assert "FFF" not in tight and "FFL" in tight
