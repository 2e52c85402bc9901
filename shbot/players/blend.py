"""Fascists who vote the way the table votes once Hitler can win.

From three Fascist policies on, a Liberal group may settle into a habit ("Nein! on every
unconfirmed Chancellor unless the tracker is at 2"). Then every Ja on an unconfirmed
Chancellor comes from the Fascist team, and a group that also marks those voters reads the
Fascists off the ballots. A Fascist-team seat sees the others' ballots as well: it counts
how often the seats outside its team vote Ja on an unconfirmed Chancellor (the tracker
below 2, outside the government) and keeps its own Ja there only as often as they do,
relative to how often the computers' Liberals do it at that size (``LATE_JA``). Against
the computers' own Liberals this changes little; against a group that always refuses, a
Fascist's Ja stops standing out after the first such ballot (``PRIOR``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["LATE_JA", "PRIOR", "LateBallots"]

LATE_JA = {7: 0.25}
"""How often the computers' Liberals vote Ja on an unconfirmed Chancellor once Hitler can
win (the tracker below 2), by player count (measured: 28 % at 7 players; at the other sizes
they almost never do, 3-9 %, and the Fascists' mimicry of them does the same: no habit to
follow)."""
PRIOR = 1.0
"""Ballots' worth of that rate a seat assumes before it has seen any (one: the first
ballot it sees already counts four times as much)."""


@dataclass(slots=True)
class LateBallots:
    """The table's Ja rate on unconfirmed Chancellors once Hitler can win, as one seat saw
    it (ballots of the seats outside its team)."""

    ja: int = 0
    votes: int = 0

    def count(self, votes: Sequence[int | None], skip: set[int]) -> None:
        """One ballot's votes, leaving out the seats in ``skip`` (the government, the team)."""
        for v, b in enumerate(votes):
            if b is not None and v not in skip:
                self.votes += 1
                self.ja += b == 1

    def keep(self, players: int) -> float:
        """How often a Fascist-team seat keeps its Ja on such a Chancellor (1: always)."""
        usual = LATE_JA.get(players)
        if usual is None:
            return 1.0
        rate = (self.ja + usual * PRIOR) / (self.votes + PRIOR)
        return min(1.0, rate / usual)
