"""Why the engine refused an action, in words (a short toast)."""

from __future__ import annotations

from shbot.engine import Reason
from shbot.i18n import Translator


def reason_text(t: Translator, reason: Reason) -> str:
    return {
        Reason.GAME_OVER: t._("This game is over."),
        Reason.NOT_YOUR_TURN: t._("It's not your turn."),
        Reason.WRONG_PHASE: t._("This step is already over."),
        Reason.NO_SUCH_SEAT: t._("This button is not valid."),
        Reason.DEAD_PLAYER: t._("Dead players cannot act or be chosen."),
        Reason.NOT_ELIGIBLE: t._("That player is term-limited and cannot be Chancellor."),
        Reason.SELF_TARGET: t._("You cannot choose yourself."),
        Reason.ALREADY_INVESTIGATED: t._("That player has already been investigated."),
        Reason.NOT_IN_HAND: t._("That policy is not in your hand."),
        Reason.VETO_LOCKED: t._("Veto power is not unlocked yet."),
        Reason.VETO_ALREADY_REFUSED: t._("The President already refused a veto this session."),
        Reason.BAD_ACTION: t._("This button is not valid."),
        Reason.BAD_SETUP: t._("This button is not valid."),
    }[reason]
