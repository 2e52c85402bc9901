"""What a player *says* they saw: public talk, never checked against hidden state.

A claim is table talk (the President says "I drew 🔴🔴🔵"). The engine never reads claims
and never verifies them; they live here, beside the rules, because both the computer
players (which make and read claims) and the table (which shows them and flags claims that
cannot all be true from public facts) need one shared shape, and both import the engine.

Policies in a claim are a string of ``LIBERAL``/``FASCIST`` letters (``"FFL"``), sorted
Fascist first except for a peek, whose order (top of the pile first) is part of the claim.
"""

from __future__ import annotations

from enum import StrEnum
from typing import NamedTuple

from .rules import FASCIST, LIBERAL

__all__ = ["Claim", "ClaimKind", "normalize"]


class ClaimKind(StrEnum):
    """Which private sight a claim is about."""

    DRAWN = "drawn"  # President: the three policies drawn
    RECEIVED = "received"  # Chancellor: the two policies passed on
    INVESTIGATED = "investigated"  # President: the party card seen (target, party)
    PEEKED = "peeked"  # President: the top three policies, top first
    NONE = "none"  # "no claim": the seat chose to say nothing


class Claim(NamedTuple):
    """One public statement by ``seat`` about what it saw in ``round``.

    ``policies`` for DRAWN/RECEIVED/PEEKED; ``target`` and ``party`` (LIBERAL/FASCIST) for
    INVESTIGATED; neither for NONE.
    """

    round: int
    seat: int
    kind: ClaimKind
    policies: str = ""
    target: int | None = None
    party: str | None = None

    def to_list(self) -> list[object]:
        """A JSON-friendly form for storage."""
        return [self.round, self.seat, self.kind.value, self.policies, self.target, self.party]

    @classmethod
    def from_list(cls, data: list[object]) -> Claim:
        rnd, seat, kind, policies, target, party = data
        return cls(
            int(str(rnd)),
            int(str(seat)),
            ClaimKind(str(kind)),
            str(policies),
            None if target is None else int(str(target)),
            None if party is None else str(party),
        )


def normalize(kind: ClaimKind, policies: str) -> str:
    """The canonical form of a claimed hand: Fascist first, except a peek keeps its order."""
    if any(p not in (LIBERAL, FASCIST) for p in policies):
        raise ValueError(f"not a policy string: {policies!r}")
    if kind is ClaimKind.PEEKED:
        return policies
    return "".join(sorted(policies, key=lambda p: p != FASCIST))
