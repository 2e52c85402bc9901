"""Deadlines: no game waits forever for a player who stopped answering.

Every step that waits for people gets a deadline stored in the table (so it survives a
restart). Half-way, one reminder names whom the game waits for; at the deadline the game
goes on with a legal default: a random choice among the legal ones, a missing vote counted
as Nein! (or not counted, by the group's choice), an unanswered veto refused.

The functions here only change a record inside ``Store.update_game``, like ``flow.apply_*``;
scheduling lives in :mod:`shbot.bot.jobs`.
"""

from __future__ import annotations

import random
from typing import Any

from shbot.engine import (
    AnswerVeto,
    Discard,
    Enact,
    Execute,
    Investigate,
    Nominate,
    Phase,
    SpecialElection,
)
from shbot.engine.actions import Action
from shbot.storage import GameRecord

from .config import TIMER_PRESETS
from .flow import Outcome, Refusal, _advance
from .model import Table

PRESETS = TIMER_PRESETS
PRESET_ORDER = tuple(TIMER_PRESETS)


def preset_seconds(name: str | None, default: str = "normal") -> int:
    """Seconds of the preset ``name`` (unknown names fall back to ``default``)."""
    if name in PRESETS:
        return PRESETS[str(name)]
    return PRESETS.get(default, PRESETS["normal"])


def waiting_for(table: Table) -> list[int]:
    """Seats the current step waits for (the voters who have not voted, or one player)."""
    game = table.game
    if game is None or game.is_over:
        return []
    return list(game.to_act())


def _default_action(table: Table, seat: int, rng: random.Random) -> Action:
    """The legal default for ``seat`` at the current step (never a veto proposal)."""
    game = table.game
    assert game is not None
    phase = game.phase
    if phase is Phase.VETO_RESPONSE:
        return AnswerVeto(seat, False)
    choices = [
        a
        for a in game.legal_actions(seat)
        if isinstance(a, Nominate | Discard | Enact | Investigate | SpecialElection | Execute)
    ]
    if not choices:  # pragma: no cover - every waiting step has a legal default
        raise Refusal("no default")
    return rng.choice(choices)


def _current(table: Table, gid: str, step: int, deadline: float | None) -> bool:
    game = table.game
    return (
        table.gid == gid
        and game is not None
        and not game.is_over
        and table.step == step
        and table.deadline is not None
        and (deadline is None or table.deadline == deadline)
    )


def apply_timeout(
    record: GameRecord,
    gid: str,
    step: int,
    deadline: float | None,
    rng: random.Random,
    missing_nein: bool,
) -> Outcome:
    """The deadline of ``step`` passed: play the default for whoever the game waits for.

    Raises :class:`Refusal` (change nothing) when that deadline is no longer current: the
    players acted in time, or a settings change moved it. Time itself is the scheduler's
    business (the job fires at the deadline), so this also works on a virtual clock."""
    table = Table.from_dict(record.data)
    game = table.game
    if not _current(table, gid, step, deadline):
        raise Refusal("stale deadline")
    assert game is not None
    before = Table.from_dict(record.data)
    late = waiting_for(table)
    phase = game.phase
    action: Action | None = None
    if phase is Phase.VOTE:
        events = game.close_vote(missing_count_as_nein=missing_nein)
    else:
        action = _default_action(table, late[0], rng)
        events = game.apply(action)
    outcome = Outcome(before, table, events, action)
    outcome.timed_out = late
    outcome.timeout_phase = phase
    outcome.missing_nein = missing_nein
    _advance(table, before, events, outcome)
    if table.step != before.step:
        table.restart_clock()
    if game.is_over:
        record.status = "finished"
        outcome.finished = True
    record.data = table.to_dict()
    return outcome


def apply_reminded(record: GameRecord, gid: str, step: int, deadline: float | None) -> Table:
    """Mark the half-way reminder of ``step`` as sent (once, even across a restart)."""
    table = Table.from_dict(record.data)
    if not _current(table, gid, step, deadline) or table.reminded:
        raise Refusal("no reminder due")
    table.reminded = True
    record.data = table.to_dict()
    return table


def apply_timer_setting(record: GameRecord, seconds: int) -> Table:
    """A group changed its timers mid-game: the current step gets the new clock."""
    table = Table.from_dict(record.data)
    if table.game is None or table.game.is_over:
        raise Refusal("no running game")
    table.options["timer"] = seconds
    table.restart_clock()
    record.data = table.to_dict()
    return table


def describe(table: Table) -> dict[str, Any]:
    """What the job scheduler needs: when to remind and when to act, for which step."""
    seconds = int(table.options.get("timer", 0) or 0)
    if table.deadline is None or seconds <= 0:
        return {}
    out: dict[str, Any] = {"step": table.step, "gid": table.gid, "deadline": table.deadline}
    if not table.reminded:
        out["remind"] = table.deadline - seconds / 2
    return out
