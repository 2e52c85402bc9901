"""When a computer player is asked to talk, and the claims it can make without thinking.

After a legislative session (enacted or vetoed) the President and the Chancellor each say
what they saw; after an investigation or a peek the President does. :func:`claim_requests`
reads that from the events one step caused, so the simulator and the table ask the same
seats for the same claims. A request names only public facts (round, seat, kind, target).
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from typing import NamedTuple

from shbot.engine import FASCIST, LIBERAL, Event, Kind
from shbot.engine.claims import Claim, ClaimKind, normalize

__all__ = ["ClaimRequest", "claim_requests", "random_claim", "stated"]

_SIZES = {ClaimKind.DRAWN: 3, ClaimKind.RECEIVED: 2, ClaimKind.PEEKED: 3}


class ClaimRequest(NamedTuple):
    """``seat`` may now claim what it saw (``kind``) in ``round``; ``target`` for an
    investigation (whose card was seen)."""

    round: int
    seat: int
    kind: ClaimKind
    target: int | None = None

    def none(self) -> Claim:
        """The answer "I say nothing"."""
        return Claim(self.round, self.seat, ClaimKind.NONE)


def claim_requests(
    events: Iterable[Event], round: int, president: int, chancellor: int
) -> list[ClaimRequest]:
    """The claims due after one step: ``events`` are what the step caused; ``round``,
    ``president`` and ``chancellor`` are the game's *before* the step (the session's
    government, which the enactment events do not repeat). Empty when the game ended."""
    out: list[ClaimRequest] = []
    for kind, data, to in events:
        if to is not None:
            continue
        if kind is Kind.GAME_OVER:
            return []
        if (kind is Kind.POLICY_ENACTED and not data["chaos"]) or kind is Kind.VETO_ACCEPTED:
            out.append(ClaimRequest(round, president, ClaimKind.DRAWN))
            out.append(ClaimRequest(round, chancellor, ClaimKind.RECEIVED))
        elif kind is Kind.INVESTIGATED:
            out.append(
                ClaimRequest(round, data["president"], ClaimKind.INVESTIGATED, data["target"])
            )
        elif kind is Kind.PEEKED:
            out.append(ClaimRequest(round, data["president"], ClaimKind.PEEKED))
    return out


def stated(request: ClaimRequest, policies: Iterable[str] = (), party: str | None = None) -> Claim:
    """The claim answering ``request`` with these policies (or this party)."""
    if request.kind is ClaimKind.INVESTIGATED:
        return Claim(request.round, request.seat, request.kind, target=request.target, party=party)
    text = normalize(request.kind, "".join(policies))
    return Claim(request.round, request.seat, request.kind, text)


def random_claim(request: ClaimRequest, rng: random.Random) -> Claim:
    """Any well-formed claim of the requested kind, uniformly: the random player's talk."""
    rnd = rng.random
    if request.kind is ClaimKind.INVESTIGATED:
        return stated(request, party=LIBERAL if rnd() < 0.5 else FASCIST)
    size = _SIZES.get(request.kind, 0)
    return stated(request, [LIBERAL if rnd() < 0.5 else FASCIST for _ in range(size)])
