"""Fixed tables of the game (RULES-SPEC R1.2, R1.5, R9), kept apart from the logic."""

from __future__ import annotations

from enum import StrEnum

MIN_PLAYERS = 5
MAX_PLAYERS = 10

LIBERAL = "L"
FASCIST = "F"
HITLER = "H"
"""Role codes. Policies use the same letters L and F."""

LIBERAL_POLICIES = 6
FASCIST_POLICIES = 11
LIBERAL_TRACK = 5
FASCIST_TRACK = 6
CHAOS_AT = 3
HITLER_ZONE = 3
"""Fascist policies after which electing Hitler wins (R4.6) and chancellors get confirmed."""
VETO_AT = 5
TERM_LIMIT_EXCEPTION_ALIVE = 5
"""With this many living players or fewer only the last chancellor is term-limited (R4.2)."""

# Liberals, ordinary Fascists, Hitler — R1.2.
ROLE_COUNTS: dict[int, tuple[int, int, int]] = {
    5: (3, 1, 1),
    6: (4, 1, 1),
    7: (4, 2, 1),
    8: (5, 2, 1),
    9: (5, 3, 1),
    10: (6, 3, 1),
}


class Power(StrEnum):
    """Presidential powers granted by Fascist slots (R9)."""

    INVESTIGATE = "investigate"
    SPECIAL_ELECTION = "special_election"
    PEEK = "peek"
    EXECUTION = "execution"


_SMALL = (None, None, Power.PEEK, Power.EXECUTION, Power.EXECUTION, None)
_MEDIUM = (None, Power.INVESTIGATE, Power.SPECIAL_ELECTION, Power.EXECUTION, Power.EXECUTION, None)
_LARGE = (
    Power.INVESTIGATE,
    Power.INVESTIGATE,
    Power.SPECIAL_ELECTION,
    Power.EXECUTION,
    Power.EXECUTION,
    None,
)


def fascist_track(players: int) -> tuple[Power | None, ...]:
    """The power printed on each of the six Fascist slots for this player count (R9)."""
    if players <= 6:
        return _SMALL
    if players <= 8:
        return _MEDIUM
    return _LARGE


def rebalanced_setup(players: int) -> tuple[int, int]:
    """(Fascist tiles removed from the game, Fascist policies enacted at the start) for the
    opt-in rebalanced variants played on secrethitler.io: 6p starts with one Fascist policy
    on the board, taken from the deck (17 tiles in all, 6 L + 10 F left to draw), 7p drops
    one Fascist tile, 9p drops two."""
    return {6: (0, 1), 7: (1, 0), 9: (2, 0)}.get(players, (0, 0))
