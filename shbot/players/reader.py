"""What a seat makes of the table: suspicion per seat from policies, votes and claims.

:class:`Reader` is the memory of the heuristic player. It keeps two kinds of knowledge:

* ``susp`` — how suspect each seat looks from *public* facts alone (who enacted Fascist
  policies, who voted them in, claims that conflict or admit a bad play, accusations).
  Every seat computes it the same way, so a Fascist can read it as "what the Liberals
  think" and pick a teammate who still looks clean.
* ``known`` — first-hand certainties: its own investigations, and a seat caught lying to
  it (a Chancellor who claims other tiles than this President passed, a President who
  claims a Liberal tile this Chancellor never received...). Only a seat that claims
  truthfully can trust such a deduction, so Fascists ignore it.

Everything here is a few dict and list updates per event: the bot calls it in handlers.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from typing import Any

from shbot.engine import FASCIST, HITLER, LIBERAL, Discard, Event, Kind
from shbot.engine.claims import FACT_KINDS, Claim, Fact

from .dice import Dice
from .view import GameView
from .weights import (
    ENACT_F,
    ENACT_L,
    KNOWN,
    VOTE_BAD,
    VOTE_F,
    VOTE_L,
)

__all__ = ["KNOWN", "Memory", "Reader", "contains"]

Memory = Event | Claim | Discard
"""One thing a seat took in, in order: an event it was shown, a public claim, or its own
discard as President (the one choice of a seat the engine's events do not repeat)."""


def contains(big: str, small: str) -> bool:
    """Could ``small`` be taken out of ``big`` (as multisets of tiles)?"""
    return all(small.count(p) <= big.count(p) for p in (LIBERAL, FASCIST))


class Reader:
    """The seat's memory and its reading of the others (see the module docstring)."""

    observes = True

    def __init__(self, rng: random.Random | None = None) -> None:
        self.seed = (rng or random.Random()).getrandbits(64)
        self.rng = Dice(self.seed)
        self._clear(-1, 0)

    def _roll(self, *key: int) -> None:
        """Fresh dice for one decision, from the seed, the seat, the round and ``key``
        alone (:mod:`shbot.players.dice`): a rebuilt agent rolls the same numbers."""
        self.rng = Dice(self.seed, self.seat, self.round, *key)

    def _clear(self, seat: int, n: int) -> None:
        """Forget everything: a new game (or a resumed one) starts from the views."""
        self.seat = seat
        self.n = n
        self.role = LIBERAL
        self.team: set[int] = set()
        self.partners: set[int] = set()
        self.hitler = -1
        self.known: dict[int, str] = {}
        self.susp: list[float] = []
        self.confirmed: list[bool] = []
        self.alive: list[bool] = []
        self.liberal = self.fascist = self.tracker = self.round = 0
        self.president = self.chancellor = -1
        self.hand: list[str] = []
        self.drawn: list[str] = []
        self.received: list[str] = []
        self.passed: list[str] = []
        self.enacted = ""
        self.gov = (-1, -1)
        self.my_peek: list[str] = []
        self.peek_claim: tuple[int, str] | None = None
        self.ballots: list[int | None] = []
        self.sessions: dict[int, list[Any]] = {}
        self.claimed_party: dict[int, tuple[int, str]] = {}
        self.facts: list[Fact] = []  # the public record the table's conflict flags read
        self.said: list[Claim] = []  # every claim heard, this seat's own included

    @property
    def truthful(self) -> bool:
        """A seat that never lies can trust what lies to it reveal."""
        return self.role == LIBERAL

    # ---------------------------------------------------------------- memory

    def recall(self, seat: int, game: GameView, past: Iterable[Memory]) -> None:
        """Play ``seat`` of a game in progress, remembering ``past`` — every event the seat
        was shown, the public claims and its own discards, in the order they came — so that
        it decides exactly as an agent that watched from the start (same seed)."""
        self.reset(seat, game)
        n = self.n
        self.known, self.alive, self.confirmed = {}, [True] * n, [False] * n
        self.liberal = self.fascist = self.tracker = self.round = 0
        self.president = self.chancellor = -1
        self.hand = []
        self.remember(past)

    def remember(self, past: Iterable[Memory]) -> None:
        """Take in more of the seat's record (see :meth:`recall`), in order."""
        for item in past:
            if isinstance(item, Claim):
                self.hear((item,))
            elif isinstance(item, Discard):
                passed = list(self.drawn)
                if item.policy in passed:
                    passed.remove(item.policy)
                self.passed = passed
            else:
                self.observe((item,))

    def reset(self, seat: int, game: GameView) -> None:
        """Start playing ``seat`` from the views alone (a new game: nothing to remember)."""
        mine = game.private_view(seat)
        board = game.public_view()
        self._clear(seat, board["players"])
        self.role = mine["role"]
        self.team = {seat}
        self.hitler = seat if mine["role"] == HITLER else mine.get("hitler", -1)
        if mine["role"] != LIBERAL:
            self.team.update(mine.get("fascists", ()))
            if self.hitler >= 0:
                self.team.add(self.hitler)
        # Teammates who know this seat too: Hitler knows nobody from 7 players on (R2.4).
        self.partners = self.team - {seat}
        if self.n > 6:
            self.partners.discard(self.hitler)
        self.known = {int(s): party for s, party in mine.get("investigations", {}).items()}
        self.susp = [0.0] * self.n
        self.confirmed = list(board["confirmed"])
        self.alive = list(board["alive"])
        self.liberal, self.fascist = board["liberal"], board["fascist"]
        self.tracker, self.round = board["tracker"], board["round"]
        self.president, self.chancellor = board["president"], board["chancellor"]
        self.hand = list(mine.get("hand", ()))

    def observe(self, events: Sequence[Event]) -> None:
        for event in events:
            kind, data, to = event
            if to is None and kind in FACT_KINDS:
                self.facts.append(Fact(data.get("round", self.round), event))
            if kind is Kind.GAME_STARTED:
                self.fascist = int(data.get("fascist", 0))  # a rebalanced game's preset
            elif kind is Kind.ROUND_STARTED:
                self.round, self.president, self.chancellor = (
                    data["round"],
                    data["president"],
                    -1,
                )
                self.hand = []
            elif kind is Kind.NOMINATED:
                self.chancellor = data["chancellor"]
            elif kind is Kind.VOTE_RESULT:
                self._read_votes(data["votes"])
            elif kind is Kind.SESSION_STARTED:
                self.drawn, self.received, self.passed = [], [], []
                self.gov = (data["president"], data["chancellor"])
                self._open_session()
            elif kind is Kind.PRESIDENT_HAND:
                self.hand = list(data["policies"])
                self.drawn = list(self.hand)
            elif kind is Kind.CHANCELLOR_HAND:
                self.hand = list(data["policies"])
                self.received = list(self.hand)
            elif kind is Kind.POLICY_ENACTED:
                self._judge(data["policy"])
                self.liberal, self.fascist, self.tracker = data["liberal"], data["fascist"], 0
            elif kind is Kind.VETO_ACCEPTED:
                self._close_session("")
            elif kind is Kind.VETO_PROPOSED:
                if self.seat == self.president and LIBERAL in self.passed:
                    self._prove(self.chancellor)  # vetoing a hand that held a Liberal
            elif kind is Kind.CHAOS:
                self.liberal, self.fascist, self.tracker = data["liberal"], data["fascist"], 0
                self.peek_claim, self.my_peek = None, []  # the top tile is gone
            elif kind is Kind.DECK_RESHUFFLED:
                self.peek_claim, self.my_peek = None, []
            elif kind is Kind.TRACKER_ADVANCED:
                self.tracker = data["tracker"]
            elif kind is Kind.CONFIRMED_NOT_HITLER:
                self.confirmed[data["seat"]] = True
            elif kind is Kind.INVESTIGATION_RESULT:
                self.known[data["target"]] = data["party"]
                if self.role == HITLER and data["party"] == FASCIST:
                    self._prove(data["target"])  # Hitler has found a teammate
            elif kind is Kind.PEEK_RESULT:
                self.my_peek = list(data["policies"])
            elif kind is Kind.EXECUTED:
                self.alive[data["target"]] = False
                if self.susp[data["target"]] < -1.0:
                    self._add(data["president"], 1.0)  # shot a seat the table trusted

    def _add(self, seat: int, amount: float) -> None:
        if seat != self.seat and 0 <= seat < self.n:
            self.susp[seat] += amount

    def _prove(self, seat: int) -> None:
        """First-hand proof that ``seat`` is a Fascist (only a truthful seat gets these)."""
        if seat == self.seat or not 0 <= seat < self.n:
            return
        if self.truthful:
            self.known[seat] = FASCIST
        elif self.role == HITLER and seat not in self.team:
            self.team.add(seat)  # Hitler who knew nobody has found a teammate
            self.partners.add(seat)

    def _read_votes(self, votes: Sequence[int | None]) -> None:
        self.ballots = list(votes)
        p, c = self.president, self.chancellor
        if self.score(p) >= KNOWN or self.score(c) >= KNOWN:
            for v, b in enumerate(votes):
                if b == 1 and v not in (p, c):
                    self._add(v, VOTE_BAD)

    def _open_session(self) -> None:
        """The peek (this seat's or a claimed one) predicts the hand about to be drawn."""
        self.sessions[self.round] = [
            self.president,
            self.chancellor,
            None,
            self.peek_claim,
            "".join(sorted(self.my_peek)),
            False,
            False,
        ]
        self.peek_claim, self.my_peek = None, []

    def _close_session(self, policy: str) -> None:
        record = self.sessions.get(self.round)
        if record is not None:
            record[2] = policy
        self.enacted = policy

    def _judge(self, policy: str) -> None:
        """Suspicion from the enactment itself (claims refine it in :meth:`hear`)."""
        self._close_session(policy)
        p, c = self.president, self.chancellor
        if policy == LIBERAL:
            self._add(p, -ENACT_L)
            self._add(c, -ENACT_L)
            for v, b in enumerate(self.ballots):
                if b == 0:
                    self._add(v, VOTE_L)
            return
        self._add(p, ENACT_F)
        self._add(c, ENACT_F)
        for v, b in enumerate(self.ballots):
            if b == 1 and v not in (p, c):
                self._add(v, VOTE_F)
        if self.seat == p and LIBERAL in self.passed:
            self._prove(c)  # first-hand: the chancellor threw away my Liberal tile

    # ---------------------------------------------------------------- claims

    def hear(self, claims: Sequence[Claim]) -> None:
        """Remember public claims (weighing them is :class:`~.listener.Listener`'s)."""
        self.said.extend(claims)

    # ---------------------------------------------------------------- reading

    def score(self, seat: int) -> float:
        """How much this seat distrusts ``seat`` (teammates and proven Liberals: -KNOWN)."""
        if seat in self.team:
            return -KNOWN
        party = self.known.get(seat)
        if party == FASCIST:
            return KNOWN
        if party == LIBERAL:
            return -KNOWN
        return self.susp[seat]

    def maybe_hitler(self, seat: int) -> bool:
        """Could electing ``seat`` chancellor now hand the Fascists the game (R4.6)?"""
        return (
            self.fascist >= 3
            and not self.confirmed[seat]
            and seat not in self.team
            and self.known.get(seat) != LIBERAL
        )
