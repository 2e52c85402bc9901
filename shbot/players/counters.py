"""Counter-rules a Liberal group could follow by eye, to test the computer players.

Each :class:`Rule` is a habit a table of people could pick up after a few evenings
against the computers ("distrust the Chancellor a distrusted President nominates", "from
three Fascist policies on, Nein! on every unconfirmed Chancellor"...). A rule marks seats
suspect (or trusted) from public acts — nominations, votes, claims, disputes,
investigations, shots — or overrides a Liberal's ballot. :class:`RuleAgent` is the
heuristic Liberal that also follows some rules (the family: :mod:`.habits`);
``shbot.exploits`` plays it against the heuristic Fascists on the same deals as plain
heuristic Liberals, and reports what each rule gains. A rule that gains 5 points or
more is a tell the computers must not have.

Rules read only public events and claims (the seat's own view), like every agent.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from shbot.engine import FASCIST, LIBERAL, Event, Kind
from shbot.engine.claims import Claim, ClaimKind

from .heuristic import DISTRUST, HeuristicAgent
from .view import GameView

__all__ = ["COUNTER", "CounterAgent", "Rule", "RuleAgent", "rule_agent"]


@dataclass(frozen=True)
class Rule:
    """One habit: hooks on public events, on claims, and on the Liberal's own ballot."""

    name: str
    text: str
    event: Callable[[RuleAgent, Event], None] | None = None
    claim: Callable[[RuleAgent, Claim], None] | None = None
    vote: Callable[[RuleAgent, bool], bool] | None = None


class RuleAgent(HeuristicAgent):
    """A heuristic player that, as a Liberal, also follows ``rules`` (a Fascist or Hitler
    seated with it plays the plain heuristic)."""

    def __init__(self, rng: random.Random | None = None, rules: Sequence[Rule] = ()) -> None:
        super().__init__(rng)
        self.rules = tuple(rules)

    def _clear(self, seat: int, n: int) -> None:
        super()._clear(seat, n)
        self.red: set[int] = set()  # seats of governments that enacted a Fascist policy
        self.disputed: set[int] = set()  # seats of a session whose claims clash
        self.named: list[int] = [0] * n  # nominations as Chancellor from 3 Fascist policies
        self.voted_for: tuple[int, int, list[int | None]] | None = None
        self.drawn_said: dict[int, str] = {}
        self.sessions_seen: dict[int, tuple[int, int]] = {}
        self.cleared: dict[int, set[int]] = {}  # President -> seats it called Liberal

    @property
    def following(self) -> bool:
        return self.role == LIBERAL and bool(self.rules)

    def mark(self, seat: int, weight: float = 1.0) -> None:
        """Make ``seat`` look suspect (weight 1: distrusted on that alone); negative: trusted."""
        if 0 <= seat < self.n:
            self._add(seat, weight * DISTRUST[self.n])

    def distrusted(self, seat: int) -> bool:
        """Whether a group would call ``seat`` suspect by eye: half the ballot threshold
        (a Fascist government, a dispute, a mark of a rule)."""
        bar = DISTRUST[self.n] / 2
        return 0 <= seat < self.n and seat != self.seat and self.score(seat) >= bar

    def observe(self, events: Sequence[Event]) -> None:
        for event in events:
            gov = (self.president, self.chancellor)
            super().observe((event,))
            if not self.following:
                continue
            kind, data, _ = event
            if kind is Kind.VOTE_RESULT:
                self.voted_for = (gov[0], self.chancellor, list(data["votes"]))
            elif kind is Kind.POLICY_ENACTED and data["policy"] == FASCIST and not data["chaos"]:
                self.red.update(gov)
            elif kind is Kind.NOMINATED and self.fascist >= 3:
                self.named[data["chancellor"]] += 1
            for rule in self.rules:
                if rule.event is not None:
                    rule.event(self, event)

    def hear(self, claims: Sequence[Claim]) -> None:
        super().hear(claims)
        if not self.following:
            return
        for claim in claims:
            if claim.seat == self.seat:
                continue
            if claim.kind is ClaimKind.DRAWN:
                self.drawn_said[claim.round] = claim.policies
            for rule in self.rules:
                if rule.claim is not None:
                    rule.claim(self, claim)

    def ballot(self, game: GameView, seat: int) -> bool:
        vote = super().ballot(game, seat)
        if self.following and self.chancellor != seat and self.president != seat:
            for rule in self.rules:
                if rule.vote is not None:
                    vote = rule.vote(self, vote)
        return vote


def rule_agent(rules: Sequence[Rule]) -> Callable[[random.Random], RuleAgent]:
    """An agent factory (for ``shbot.simulate.play``) for Liberals that follow ``rules``."""
    return lambda rng: RuleAgent(rng, rules)


COUNTER = 2.0
"""Suspicion the counter player adds to a President who claims three Fascist tiles."""


class CounterAgent(HeuristicAgent):
    """The heuristic plus the simple counter a seasoned group would find first: as a
    Liberal, distrust any President who claims 🔴🔴🔴. The tournament plays it to measure
    how much that rule gains (it should gain little: a tell the players do not have)."""

    def hear(self, claims: Sequence[Claim]) -> None:
        super().hear(claims)
        if self.role != LIBERAL:
            return
        for claim in claims:
            if claim.kind is ClaimKind.DRAWN and claim.policies == FASCIST * 3:
                self._add(claim.seat, COUNTER)
