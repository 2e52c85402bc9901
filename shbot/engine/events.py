"""What happened, and who may know it (RULES-SPEC R11).

Every event carries its audience: ``to is None`` means public (the whole group may see
it); otherwise ``to`` names the only seats entitled to it. The bot renders public events
in the group and private ones in the named players' private chats, so the audience is
decided here, once, by the rules — not by each message template.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any, NamedTuple


class Kind(StrEnum):
    """Event kinds. Public unless marked private."""

    GAME_STARTED = "game_started"  # {players, seating, first_president, rebalanced...}
    ROLE = "role"  # private: {role, party, fascists, hitler}
    ROUND_STARTED = "round_started"  # {round, president, special}
    NOMINATED = "nominated"  # {president, chancellor}
    VOTE_CAST = "vote_cast"  # {seat, voted, needed, changed}  (never the ballot)
    VOTE_RESULT = "vote_result"  # {votes: [1|0|None per seat], ja, nein, elected}
    GOVERNMENT_ELECTED = "government_elected"  # {president, chancellor}
    CONFIRMED_NOT_HITLER = "confirmed_not_hitler"  # {seat}
    TRACKER_ADVANCED = "tracker_advanced"  # {tracker}
    SESSION_STARTED = "session_started"  # {president, chancellor, veto}
    PRESIDENT_HAND = "president_hand"  # private: {policies}
    PRESIDENT_DISCARDED = "president_discarded"  # {president, chancellor}
    CHANCELLOR_HAND = "chancellor_hand"  # private: {policies, veto}
    POLICY_ENACTED = "policy_enacted"  # {policy, liberal, fascist, chaos}
    CHAOS = "chaos"  # {policy, liberal, fascist} — top tile enacted, no power
    DECK_RESHUFFLED = "deck_reshuffled"  # {draw}
    VETO_UNLOCKED = "veto_unlocked"  # {}
    VETO_PROPOSED = "veto_proposed"  # {president, chancellor}
    VETO_ACCEPTED = "veto_accepted"  # {president, chancellor}
    VETO_REFUSED = "veto_refused"  # {president, chancellor}
    POWER_GRANTED = "power_granted"  # {power, president}
    INVESTIGATED = "investigated"  # {president, target}
    INVESTIGATION_RESULT = "investigation_result"  # private: {target, party}
    SPECIAL_ELECTION = "special_election"  # {president, target}
    PEEKED = "peeked"  # {president}
    PEEK_RESULT = "peek_result"  # private: {policies} top first
    EXECUTED = "executed"  # {president, target}
    GAME_OVER = "game_over"  # {winner, condition, roles}


PRIVATE_KINDS = frozenset(
    {
        Kind.ROLE,
        Kind.PRESIDENT_HAND,
        Kind.CHANCELLOR_HAND,
        Kind.INVESTIGATION_RESULT,
        Kind.PEEK_RESULT,
    }
)


class Event(NamedTuple):
    kind: Kind
    data: dict[str, Any]
    to: tuple[int, ...] | None = None

    @property
    def public(self) -> bool:
        return self.to is None


class Winner(StrEnum):
    LIBERAL = "liberal"
    FASCIST = "fascist"


class Condition(StrEnum):
    FIVE_LIBERAL = "five_liberal"
    HITLER_EXECUTED = "hitler_executed"
    SIX_FASCIST = "six_fascist"
    HITLER_ELECTED = "hitler_elected"
