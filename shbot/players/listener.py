"""How a seat weighs what the others say: claims against the record, against each other,
against the pile, and against what this seat saw itself.

:class:`Listener` adds this to the :class:`~.reader.Reader`'s memory. Disputes weigh both
seats; claims that need more tiles of a kind than the pile held since its last shuffle
share the blame; and suspicion becomes a belief over who is Hitler
(:meth:`Listener.hitler_odds`), which votes and shots follow once Hitler can win.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from shbot.engine import FASCIST, LIBERAL, Event, Kind
from shbot.engine.claims import Claim, ClaimKind
from shbot.engine.rules import FASCIST_POLICIES, LIBERAL_POLICIES

from .blend import LATE_JA, LateBallots
from .reader import Reader, contains
from .weights import (
    ACCUSED,
    ADMIT,
    BACKED,
    BACKED_VOTE,
    CLEARED,
    CONFLICT,
    DECK_BLAME,
    DISPUTE,
    LIE,
    LUCK,
    SILENT,
)

__all__ = ["Listener"]


class Listener(Reader):
    """The reader that weighs claims (see the module docstring)."""

    def _clear(self, seat: int, n: int) -> None:
        super()._clear(seat, n)
        self.backed = [0.0] * n  # how much suspect seats pushed each seat as chancellor
        self.fascist_tiles = FASCIST_POLICIES  # in the whole pile (rebalanced: fewer)
        self.epoch = 0  # shuffles so far
        self.pile = {LIBERAL: LIBERAL_POLICIES, FASCIST: FASCIST_POLICIES}
        self.used = {LIBERAL: 0, FASCIST: 0}  # tiles claimed (or seen) since the shuffle
        self.users: list[tuple[int, str]] = []  # (claimant, tiles) since the shuffle
        self.flagged: set[str] = set()
        self.late = LateBallots()  # the table's Ja on unconfirmed Chancellors (blend.py)

    @property
    def blends(self) -> bool:
        """Whether this seat keeps the table's late ballots (:mod:`.blend`): a Fascist-team
        seat at a size whose Liberals have a late habit to blend into."""
        return self.role != LIBERAL and self.n in LATE_JA

    def reset(self, seat: int, game: Any) -> None:
        super().reset(seat, game)
        self.backed = [0.0] * self.n

    def observe(self, events: Sequence[Event]) -> None:
        for event in events:
            super().observe((event,))
            kind, data, _ = event
            if kind is Kind.NOMINATED and self.fascist >= 3:
                self._back(data["chancellor"], data["president"], BACKED)
            elif kind is Kind.VOTE_RESULT and self.fascist >= 3:
                for v, ja in enumerate(data["votes"]):
                    if ja == 1 and v not in (self.president, self.chancellor):
                        self._back(self.chancellor, v, BACKED_VOTE)
                if self.blends and self.tracker < 2 and not self.confirmed[self.chancellor]:
                    self.late.count(data["votes"], {self.president, self.chancellor} | self.team)
            elif kind is Kind.GAME_STARTED:
                preset = int(data.get("fascist", 0))
                self.fascist_tiles = int(data.get("draw", 17)) - LIBERAL_POLICIES + preset
                self._shuffled(0, preset)
            elif kind is Kind.DECK_RESHUFFLED:
                self._shuffled(self.liberal, self.fascist)
            elif kind is Kind.CHAOS:
                self._use(-1, data["policy"])

    # ---------------------------------------------------------------- the pile

    def _shuffled(self, liberal: int, fascist: int) -> None:
        self.epoch += 1
        self.pile = {LIBERAL: LIBERAL_POLICIES - liberal, FASCIST: self.fascist_tiles - fascist}
        self.used = {LIBERAL: 0, FASCIST: 0}
        self.users, self.flagged = [], set()

    def _open_session(self) -> None:
        super()._open_session()
        self.sessions[self.round].append(self.epoch)

    def _use(self, seat: int, tiles: str) -> None:
        """Tiles of one shuffle's pile: claims needing more than it held share the blame."""
        self.users.append((seat, tiles))
        for p in tiles:
            self.used[p] += 1
            if self.used[p] > self.pile[p] and p not in self.flagged:
                self.flagged.add(p)
                blamed = [s for s, t in self.users if s >= 0 and p in t]
                for s in blamed:
                    self._add(s, DECK_BLAME / len(blamed))

    # ---------------------------------------------------------------- Hitler

    def _back(self, seat: int, by: int, weight: float) -> None:
        if 0 <= seat < self.n and by != self.seat:
            self.backed[seat] += weight * max(0.0, min(self.score(by), 3.0))

    def hitler_odds(self) -> list[float]:
        """How likely each seat is Hitler, relative to an even guess (1.0) among the seats
        that could be: suspicion, and how much suspect seats pushed them as chancellor."""
        weights = [0.0] * self.n
        for s in range(self.n):
            if s in self.team and s != self.hitler:
                continue
            if s == self.hitler and self.role != LIBERAL:
                weights[s] = 1.0
                continue
            if not self.alive[s] or self.confirmed[s] or self.known.get(s) == LIBERAL:
                continue
            weights[s] = max(0.05, 1.0 + 0.3 * min(self.score(s), 5.0) + self.backed[s])
        total = sum(weights)
        k = sum(w > 0 for w in weights)
        return [w * k / total if total else 0.0 for w in weights]

    # ---------------------------------------------------------------- claims

    def hear(self, claims: Sequence[Claim]) -> None:
        """Weigh public claims against the record and against what this seat saw."""
        super().hear(claims)
        for claim in claims:
            if claim.seat == self.seat:
                continue
            kind = claim.kind
            if kind is ClaimKind.INVESTIGATED:
                self._heard_investigation(claim)
            elif kind is ClaimKind.PEEKED:
                self.peek_claim = (claim.seat, "".join(sorted(claim.policies)))
            else:
                self._heard_session(claim)

    def _heard_session(self, claim: Claim) -> None:
        record = self.sessions.get(claim.round)
        if record is None:
            return
        p, c, enacted, peek, my_peek = record[:5]
        if claim.seat == p and claim.kind in (ClaimKind.DRAWN, ClaimKind.NONE):
            record[5] = "".join(sorted(claim.policies)) if claim.kind is ClaimKind.DRAWN else ""
            self._weigh_drawn(p, c, enacted, record[5], peek, my_peek)
        elif claim.seat == c and claim.kind in (ClaimKind.RECEIVED, ClaimKind.NONE):
            record[6] = "".join(sorted(claim.policies)) if claim.kind is ClaimKind.RECEIVED else ""
            self._weigh_received(p, c, enacted, record[6], record[5])
        else:
            return
        drawn, got = record[5], record[6]
        if drawn is not False and got is not False:
            del self.sessions[claim.round]
            if drawn and got:
                self._weigh_pair(p, c, drawn, got)
            if record[7] == self.epoch:  # the same pile (a reshuffle breaks the count)
                if drawn or got:
                    self._use(p if drawn else c, drawn or got)
                elif enacted:
                    self._use(-1, enacted)

    def _weigh_drawn(
        self, p: int, c: int, enacted: str | None, drawn: str, peek: Any, my_peek: str
    ) -> None:
        if not drawn:
            if enacted == FASCIST:
                self._add(p, SILENT)
            return
        if enacted and enacted not in drawn:
            self._conflict(p, c)  # LLL yet Fascist (or FFF yet Liberal): someone lies
        elif enacted == FASCIST and drawn == FASCIST * 3:
            self._add(p, -LUCK)
        if peek is not None and peek[0] != p and peek[1] != drawn:
            self._conflict(p, peek[0])
        if my_peek and my_peek != drawn and self.truthful:
            self._prove(p)
        if self.seat == c and self.received and self.truthful:
            got = "".join(self.received)
            if not contains(drawn, got) or (LIBERAL in drawn and LIBERAL not in got):
                self._prove(p)  # lied, or admits discarding a Liberal tile I never saw

    def _weigh_received(
        self, p: int, c: int, enacted: str | None, got: str, drawn: str | bool
    ) -> None:
        if not got:
            if enacted == FASCIST:
                self._add(c, SILENT)
            return
        if enacted and enacted not in got:
            self._add(c, LIE)
        elif enacted == FASCIST and LIBERAL in got:
            self._add(c, ADMIT)
        elif enacted == FASCIST and not (isinstance(drawn, str) and LIBERAL in drawn):
            self._add(c, -LUCK / 2)
        elif enacted == "" and LIBERAL in got:
            self._add(c, ADMIT / 2)  # vetoed a Liberal tile
        passed = "".join(sorted(self.passed, key=lambda x: x != FASCIST))
        if self.seat == p and passed and self.truthful and passed != got:
            self._prove(c)

    def _weigh_pair(self, p: int, c: int, drawn: str, got: str) -> None:
        if not contains(drawn, got):
            if self.seat not in (p, c):
                self._conflict(p, c)
        elif LIBERAL in drawn and LIBERAL not in got:
            # "I passed a Liberal" against "I got none": either may lie, weigh both.
            self._add(p, DISPUTE)
            self._add(c, DISPUTE)

    def _conflict(self, a: int, b: int) -> None:
        if self.seat in (a, b):
            if self.truthful:
                self._prove(b if self.seat == a else a)
            return
        self._add(a, CONFLICT)
        self._add(b, CONFLICT)

    def _heard_investigation(self, claim: Claim) -> None:
        p, t, party = claim.seat, claim.target, claim.party
        if t is None or party not in (LIBERAL, FASCIST):
            return
        if self.truthful and (t == self.seat or t in self.known):
            actual = LIBERAL if t == self.seat else self.known[t]
            if party != actual:
                self._prove(p)
            return
        earlier = self.claimed_party.get(t)
        if earlier is not None and earlier[1] != party and earlier[0] != p:
            self._conflict(p, earlier[0])
        self.claimed_party[t] = (p, party)
        trust = self.susp[p]
        credit = 1.0 if trust <= 0 else max(0.2, 1.0 - trust / 3)
        if party == FASCIST:
            self._add(t, ACCUSED * credit)
        else:
            self._add(t, -CLEARED * credit)
