"""Texts of deadlines, reminders and /ping. Only public facts: who is late, never a hand."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from shbot.engine import Phase
from shbot.i18n import Translator
from shbot.table.model import Table

from .common import name, name_list, name_series


def timeout_text(t: Translator, names: Sequence[str], d: dict[str, Any]) -> str:
    """What the group is told when a deadline passed, and what was decided for whom
    (``d`` is the payload :func:`shbot.table.timers.timeout` stored)."""
    phase = Phase(d["phase"])
    late: list[int] = d["late"]
    president = name(names, d["president"])
    if phase is Phase.VOTE:
        who = name_series(t, names, late)
        if d.get("missing_nein", True):
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
    if phase is Phase.NOMINATE:
        return t._(
            "⏰ Time is up: {president} did not nominate a Chancellor, so I picked {chancellor} "
            "at random.",
            president=president,
            chancellor=name(names, d["target"]),
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
            chancellor=name(names, d["chancellor"]),
        )
    if phase is Phase.VETO_RESPONSE:
        return t._(
            "⏰ Time is up: President {president} did not answer, so the veto is refused.",
            president=president,
        )
    return t._(
        "⏰ Time is up: President {president} did not choose, so I picked {target} at random.",
        president=president,
        target=name(names, d["target"]),
    )


def timeout_private_prefix(t: Translator, phase: Phase) -> str:
    """First line of a private prompt closed by the deadline."""
    if phase is Phase.VETO_RESPONSE:
        return t._("⏰ Time ran out: the veto is refused.")
    return t._("⏰ Time ran out, so I chose at random.")


def reminder_text(t: Translator, table: Table, seats: Sequence[int], seconds: int | None) -> str:
    """The group reminder (half-way to the deadline) or a /ping without timers."""
    who = name_list(t, table.names(), seats)
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
