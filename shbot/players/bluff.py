"""What a computer player says it saw: mixed strategies calibrated to people's.

A deterministic claim is a tell a group learns in a few games ("a computer that claims
🔴🔴🔴 is a Fascist"). Here every claim of the Fascist team is drawn from a distribution
(silence, the truth, the usual cover, the 🔴🔴🔵 frame) with weights chosen so that, per
claimed value, the Fascist-team share stays near the base rate, and lie and silence rates
per situation sit near those of ranked human games (``../shared/players/human-reference.md``,
measured by ``python -m shbot simulate --tournament``). Liberals tell the truth but now and
then say nothing, as people do.

Before a lie goes out it is checked against the public record — the pile counts since the
last shuffle, the peeks and the claims made so far (:func:`shbot.engine.claims.conflicts`):
a lie the table would flag at once is dropped for the next option.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from shbot.engine import FASCIST, HITLER, LIBERAL
from shbot.engine.claims import Claim, ClaimKind, conflicts, normalize

from .talk import ClaimRequest, stated

if TYPE_CHECKING:
    from .heuristic import HeuristicAgent

__all__ = ["drawn_claim", "investigation_claim", "received_claim"]

# Silence, by role and office (people: Liberal President 7.7 %, Chancellor 20.5 %; Fascist
# President 1-5 %, Chancellor 14-16 %).
QUIET_PRESIDENT = {LIBERAL: 0.077, FASCIST: 0.03, HITLER: 0.04}
QUIET_CHANCELLOR = {LIBERAL: 0.2, FASCIST: 0.14, HITLER: 0.10}
MISCLAIM = {LIBERAL: 0.065, FASCIST: 0.075, HITLER: 0.075}
"""How often a seat with nothing to hide claims a hand with one tile changed (people:
Liberals 6-7 %, Fascist-team Chancellors 7.5 %): misremembered, or a test."""
OWN_UP = 0.6
"""How often a Liberal President who discarded a Liberal over a Fascist says so; the others
claim the Fascist they kept instead when the record allows it (people: 30 % lie)."""

# A Fascist-team President's claim, by what it did (weights, normalized when drawn):
COVER = {"FFF": 0.64, "frame": 0.06, "truth": 0.3}
COVER_HITLER = {"FFF": 0.68, "frame": 0.06, "truth": 0.26}
"""Discarded a Liberal over a Fascist: claim 🔴🔴🔴 (the cover), frame the Chancellor (a
hand the Chancellor's two do not fit), or admit it (the truth)."""
FRAME_FFF = {n: {FASCIST: 0.6, HITLER: 0.4} for n in range(5, 11)}
FRAME_FFF[7] = {FASCIST: 0.5, HITLER: 0.2}
"""Drew 🔴🔴🔴 and passed 🔴🔴 to a Liberal: how often to claim 🔴🔴🔵 instead ("I passed
you a Liberal") — the frame that keeps 🔴🔴🔴 claims from marking Fascists; by player
count (at 7 players, people's lie rates: Hitler as President lies 17 % of the time with
nothing to hide)."""
SHIELD = {5: 0.3, 6: 0.3, 7: 0.85, 8: 0.85, 9: 0.85, 10: 0.85}
"""A teammate Chancellor skipped a Liberal this President passed: how often to cover them
(claim a hand without that Liberal) rather than tell the truth, by player count. At 5-6
players the pair knows each other and would make 🔴🔴🔴 their tell; they cover less."""
SKIPPED = {"FF": 0.84, "truth": 0.0, "quiet": 0.16}
"""A Fascist-team Chancellor who enacted a Fascist over a Liberal: claim 🔴🔴, or nothing."""
FRAME_LIBERAL = {FASCIST: 0.56, HITLER: 0.57}
"""How often a Fascist (or Hitler) who investigated a Liberal says they are Fascist."""
COVER_TEAMMATE = 0.88
"""How often a Fascist who investigated a teammate says they are Liberal."""


def _quiet(agent: HeuristicAgent, chances: dict[str, float]) -> bool:
    return agent.rng.random() < chances[agent.role]


def _safe(agent: HeuristicAgent, claim: Claim) -> bool:
    """Whether the public record leaves ``claim`` unflagged (no new conflict names it)."""
    before = conflicts(agent.facts, agent.said)
    after = conflicts(agent.facts, [*agent.said, claim])
    fresh = [c for c in after if c not in before]
    return not any(c.seat == claim.seat for c in fresh)


def _first_safe(agent: HeuristicAgent, request: ClaimRequest, options: list[str]) -> Claim:
    """The first option the record does not flag; the truth (the last option) otherwise."""
    for value in options[:-1]:
        claim = stated(request, value)
        if _safe(agent, claim):
            return claim
    return stated(request, options[-1])


def drawn_claim(agent: HeuristicAgent, request: ClaimRequest) -> Claim:
    """The President's claim of the three tiles drawn."""
    if not agent.drawn:
        return request.none()
    truth = normalize(ClaimKind.DRAWN, "".join(agent.drawn))
    if _quiet(agent, QUIET_PRESIDENT):
        return request.none()
    passed = normalize(ClaimKind.RECEIVED, "".join(agent.passed))
    if agent.role == LIBERAL:
        if LIBERAL in truth and LIBERAL not in passed and FASCIST in truth:
            if agent.rng.random() >= OWN_UP:  # hide the misstep: "I kept a Fascist"
                return _first_safe(
                    agent, request, [normalize(ClaimKind.DRAWN, passed + FASCIST), truth]
                )
            return stated(request, truth)
        return _misclaim(agent, request, truth)
    chancellor = agent.gov[1]
    partner = chancellor in agent.partners
    rnd = agent.rng.random
    if truth.count(LIBERAL) > passed.count(LIBERAL) and FASCIST in truth:
        pick = agent.rng.choice(COVER_HITLER if agent.role == HITLER else COVER)
        if pick == "truth":
            return stated(request, truth)
        if pick == "frame" and not partner and LIBERAL not in passed:
            return _first_safe(agent, request, ["FLL", truth])  # "I passed you a Liberal"
        # The cover: a hand that forced what was passed (🔴🔴🔴 for 🔴🔴, 🔴🔴🔵 for 🔴🔵).
        return _first_safe(agent, request, [normalize(ClaimKind.DRAWN, passed + FASCIST), truth])
    if partner and agent.enacted == FASCIST and LIBERAL in passed and rnd() < SHIELD[agent.n]:
        # The teammate skipped my Liberal: a hand of Fascists covers them.
        return _first_safe(agent, request, ["FFF", truth])
    if truth == "FFF" and not partner and rnd() < FRAME_FFF[agent.n][agent.role]:
        return _first_safe(agent, request, ["FFL", truth])
    return _misclaim(agent, request, truth)


def _misclaim(agent: HeuristicAgent, request: ClaimRequest, truth: str) -> Claim:
    """The truth, or now and then (MISCLAIM) the hand with one tile changed, if the record
    does not flag it."""
    if agent.rng.random() >= MISCLAIM[agent.role]:
        return stated(request, truth)
    k = int(agent.rng.random() * len(truth))
    flipped = truth[:k] + (LIBERAL if truth[k] == FASCIST else FASCIST) + truth[k + 1 :]
    if agent.enacted and agent.enacted not in flipped:
        return stated(request, truth)  # a slip, not a confession
    return _first_safe(agent, request, [normalize(request.kind, flipped), truth])


def received_claim(agent: HeuristicAgent, request: ClaimRequest) -> Claim:
    """The Chancellor's claim of the two tiles received."""
    if not agent.received:
        return request.none()
    truth = normalize(ClaimKind.RECEIVED, "".join(agent.received))
    skipped = agent.enacted == FASCIST and LIBERAL in truth
    if agent.role != LIBERAL and skipped:
        pick = agent.rng.choice(SKIPPED)
        if pick == "quiet":
            return request.none()
        return (
            _first_safe(agent, request, ["FF", truth]) if pick == "FF" else stated(request, truth)
        )
    if _quiet(agent, QUIET_CHANCELLOR):
        return request.none()
    return _misclaim(agent, request, truth)


def investigation_claim(agent: HeuristicAgent, request: ClaimRequest, party: str) -> Claim:
    """What the President says of the party card it saw (``party``)."""
    target = request.target
    if agent.role == LIBERAL or target is None:
        return stated(request, party=party)
    if target in agent.team:
        cover = agent.role == HITLER or agent.rng.random() < COVER_TEAMMATE
        return stated(request, party=LIBERAL if cover else FASCIST)
    if agent.rng.random() < FRAME_LIBERAL[agent.role]:
        return stated(request, party=FASCIST)
    return stated(request, party=party)
