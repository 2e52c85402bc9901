"""Refusals with machine-readable reasons, so the bot can translate them."""

from __future__ import annotations

from enum import StrEnum


class Reason(StrEnum):
    GAME_OVER = "game_over"
    NOT_YOUR_TURN = "not_your_turn"
    WRONG_PHASE = "wrong_phase"
    NO_SUCH_SEAT = "no_such_seat"
    DEAD_PLAYER = "dead_player"
    NOT_ELIGIBLE = "not_eligible"
    SELF_TARGET = "self_target"
    ALREADY_INVESTIGATED = "already_investigated"
    NOT_IN_HAND = "not_in_hand"
    VETO_LOCKED = "veto_locked"
    VETO_ALREADY_REFUSED = "veto_already_refused"
    BAD_ACTION = "bad_action"
    BAD_SETUP = "bad_setup"


class IllegalAction(Exception):
    """The action was refused; the state is unchanged."""

    def __init__(self, reason: Reason, detail: str = "") -> None:
        super().__init__(f"{reason.value}: {detail}" if detail else reason.value)
        self.reason = reason
        self.detail = detail


class BadSetup(ValueError):
    """A game cannot be created with these settings (for example 4 players, R1.1)."""

    def __init__(self, detail: str, players: int | None = None) -> None:
        super().__init__(detail)
        self.reason = Reason.BAD_SETUP
        self.players = players
