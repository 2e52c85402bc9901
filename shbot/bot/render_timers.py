"""Texts of deadlines, reminders and /ping. Only public facts: who is late, never a hand."""

from __future__ import annotations

from collections.abc import Sequence

from shbot.engine import Nominate, Phase
from shbot.engine.actions import Action
from shbot.i18n import Translator

from . import render as r
from .model import Table


def timeout_text(
    t: Translator,
    before: Table,
    phase: Phase,
    late: Sequence[int],
    action: Action | None,
    missing_nein: bool,
) -> str:
    """What the group is told when a deadline passed, and what was decided for whom."""
    names = before.names()
    game = before.game
    assert game is not None
    president = r.name(names, game.president)
    if phase is Phase.VOTE:
        who = r.name_list(t, names, late)
        if missing_nein:
            return t.ngettext(
                "⏰ Time is up: {names} did not vote; the missing vote counts as Nein!",
                "⏰ Time is up: {names} did not vote; the missing votes count as Nein!",
                len(late),
                names=who,
            )
        return t.ngettext(
            "⏰ Time is up: {names} did not vote; the missing vote is not counted.",
            "⏰ Time is up: {names} did not vote; the missing votes are not counted.",
            len(late),
            names=who,
        )
    if phase is Phase.NOMINATE and isinstance(action, Nominate):
        return t._(
            "⏰ Time is up: {president} did not nominate a Chancellor, so I picked {chancellor} "
            "at random.",
            president=president,
            chancellor=r.name(names, action.target),
        )
    if phase is Phase.PRESIDENT_DISCARD:
        return t._(
            "⏰ Time is up: President {president} did not choose, so I discarded one of the "
            "three policies at random.",
            president=president,
        )
    if phase is Phase.CHANCELLOR_ENACT:
        return t._(
            "⏰ Time is up: Chancellor {chancellor} did not choose, so I enacted one of the two "
            "policies at random.",
            chancellor=r.name(names, game.chancellor),
        )
    if phase is Phase.VETO_RESPONSE:
        return t._(
            "⏰ Time is up: President {president} did not answer, so the veto is refused.",
            president=president,
        )
    target = getattr(action, "target", None)
    return t._(
        "⏰ Time is up: President {president} did not choose, so I picked {target} at random.",
        president=president,
        target=r.name(names, target),
    )


def timeout_private_prefix(t: Translator, phase: Phase) -> str:
    """First line of a private prompt closed by the deadline."""
    if phase is Phase.VETO_RESPONSE:
        return t._("⏰ Time ran out: the veto is refused.")
    return t._("⏰ Time ran out, so I chose at random.")


def reminder_text(t: Translator, table: Table, seats: Sequence[int], seconds: int | None) -> str:
    """The group reminder (half-way to the deadline) or a /ping without timers."""
    who = r.name_list(t, table.names(), seats)
    if seconds is None:
        return t._("🔔 {names}: the game is waiting for you.", names=who)
    return t.ngettext(
        "⏳ {names}: the game is waiting for you, {count} second left.",
        "⏳ {names}: the game is waiting for you, {count} seconds left.",
        seconds,
        names=who,
        count=seconds,
    )


def nudge_text(t: Translator, phase: Phase, seconds: int | None) -> str:
    """The private nudge to a player the game waits for."""
    if phase is Phase.VOTE:
        text = t._("🔔 Your group is waiting for your vote: press Ja! or Nein! in the group.")
    elif phase is Phase.NOMINATE:
        text = t._("🔔 Your group is waiting for you to nominate a Chancellor, in the group.")
    else:
        text = t._("🔔 Your group is waiting for your choice: see my message above.")
    if seconds is None:
        return text
    left = t.ngettext("{count} second left.", "{count} seconds left.", seconds, count=seconds)
    return f"{text}\n{left}"


def ping_too_soon_text(t: Translator, seconds: int) -> str:
    return t.ngettext(
        "I just reminded them. Try /ping again in {count} second.",
        "I just reminded them. Try /ping again in {count} seconds.",
        seconds,
        count=seconds,
    )
