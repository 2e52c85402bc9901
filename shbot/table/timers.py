"""Deadlines as table transitions: no game waits forever for a player who stopped answering.

Every step that waits for people has a deadline stored in the table (so it survives a
restart). Half-way, one reminder names whom the game waits for; at the deadline the game
goes on with a legal default chosen by the same random player the simulator uses, a
missing vote counted as Nein! (or not counted, by the group's choice), an unanswered veto
refused. Time itself is the scheduler's business: these functions take the deadline that
fired and refuse when it is no longer the table's (the players acted in time).
"""

from __future__ import annotations

import random
from typing import Any

from shbot.engine import AnswerVeto, Phase
from shbot.engine.actions import Action
from shbot.players import default_action
from shbot.table.model import Table

from .outcome import Outcome, Refusal
from .play import narrate

#: Deadlines missed in a row after which the group is told the player seems absent.
ABSENT_AFTER = 2


def waiting_for(table: Table) -> list[int]:
    """Seats the current step waits for (the voters who have not voted, or one player)."""
    game = table.game
    if game is None or game.is_over or table.ending:
        return []
    return list(game.to_act())


def _current(table: Table, gid: str, step: int, deadline: float | None) -> bool:
    game = table.game
    return (
        table.gid == gid
        and game is not None
        and not game.is_over
        and not table.ending
        and table.step == step
        and table.deadline is not None
        and (deadline is None or table.deadline == deadline)
    )


def timeout(
    table: Table,
    gid: str,
    step: int,
    deadline: float | None,
    rng: random.Random,
    missing_nein: bool,
) -> Outcome:
    """The deadline of ``step`` passed: play the default for whoever the game waits for."""
    if not _current(table, gid, step, deadline):
        raise Refusal("stale")
    game = table.game
    assert game is not None
    before = table.snapshot()
    late = waiting_for(table)
    phase = game.phase
    action: Action | None = None
    if phase is Phase.VOTE:
        events = game.close_vote(missing_count_as_nein=missing_nein)
    else:
        action = AnswerVeto(late[0], False) if phase is Phase.VETO_RESPONSE else None
        action = action or default_action(game, late[0], rng)
        events = game.apply(action)
    outcome = Outcome(table, events, action)
    table.owe(
        f"timeout:{step}", payload=_timeout_payload(before, phase, late, action, missing_nein)
    )
    for seat in late:
        key = str(table.at(seat).id)
        table.missed[key] = table.missed.get(key, 0) + 1
    narrate(before, table, outcome, timeout=phase.value)
    return outcome


def _timeout_payload(
    before: Table, phase: Phase, late: list[int], action: Action | None, missing_nein: bool
) -> dict[str, Any]:
    game = before.game
    assert game is not None
    return {
        "phase": phase.value,
        "late": late,
        "president": game.president,
        "chancellor": game.chancellor,
        "target": getattr(action, "target", None),
        "missing_nein": missing_nein,
    }


def remind(table: Table, gid: str, step: int, deadline: float | None, seconds: int) -> Outcome:
    """Half-way to the deadline: name the late players in the group and nudge each of them
    (once, even across a restart)."""
    if not _current(table, gid, step, deadline) or table.reminded:
        raise Refusal("stale")
    table.reminded = True
    _owe_nudges(table, seconds)
    return Outcome(table)


def ping(table: Table) -> Outcome:
    """/ping: tell the group and the late players whom the game waits for."""
    if not waiting_for(table):
        raise Refusal("no_game")
    _owe_nudges(table, None)
    return Outcome(table)


def _owe_nudges(table: Table, seconds: int | None) -> None:
    game = table.game
    assert game is not None
    seats = waiting_for(table)
    table.owe(f"remind:{table.step}", payload={"seats": seats, "seconds": seconds})
    for seat in seats:
        table.owe(
            f"nudge:{table.step}:{seat}",
            table.at(seat).id,
            {"phase": game.phase.value, "seconds": seconds},
        )


def set_timer(table: Table, seconds: int) -> Outcome:
    """A group changed its timers mid-game: the current step gets the new clock."""
    if table.game is None or table.game.is_over or table.ending:
        raise Refusal("no_game")
    table.options["timer"] = seconds
    table.restart_clock()
    return Outcome(table)


def describe(table: Table) -> dict[str, Any]:
    """What the job scheduler needs: when to remind and when to act, for which step."""
    seconds = int(table.options.get("timer", 0) or 0)
    if table.deadline is None or seconds <= 0 or table.ending:
        return {}
    out: dict[str, Any] = {"step": table.step, "gid": table.gid, "deadline": table.deadline}
    if not table.reminded:
        out["remind"] = table.deadline - seconds / 2
    return out


#: A prompt shown within this many seconds of its step keeps the deadline it was given.
SHOWN_SLACK = 1.0
GROUP_PROMPTS = (Phase.NOMINATE, Phase.VOTE)  # steps whose buttons are the round message's


def prompt_waiting(table: Table) -> bool:
    """The current step's prompt (the round message's buttons in the group, or a player's
    private prompt) waits to be delivered: owed, and not yet shown at this step. A prompt
    that could not be delivered at all (a blocked chat) is owed no more: the clock runs."""
    game = table.game
    if game is None or game.is_over or table.ending:
        return False
    if game.phase in GROUP_PROMPTS:
        slot = f"round:{game.round}"
        return slot in table.owed and table.stages.get(slot) != game.phase.value
    return f"prompt:{table.step}" in table.owed


def hold(table: Table, gid: str, step: int, deadline: float | None) -> Outcome:
    """The deadline of ``step`` came while the step's prompt still waits to be shown (more
    groups than the bot's token serves at once): nobody could act, so nobody is late. The
    clock starts again; the prompt, once shown, gives the step its full time from then
    (:func:`prompt_shown`). The bot runs this instead of :func:`timeout` (and skips the
    reminder) while :func:`prompt_waiting`."""
    if not _current(table, gid, step, deadline) or not prompt_waiting(table):
        raise Refusal("stale")
    table.restart_clock()
    return Outcome(table)


def prompt_shown(table: Table, slot: str, step: int, now: float) -> bool:
    """``slot``, rendered at ``step``, reached the screen at ``now`` (epoch seconds): if it
    is the current step's prompt and the step's clock started before it was visible, the
    clock counts from now (a prompt the group's rate limit held back is never shown with
    less than its full time). True if the deadline moved (the caller arms it again)."""
    game = table.game
    seconds = int(table.options.get("timer", 0) or 0)
    if game is None or table.deadline is None or seconds <= 0 or table.step != step:
        return False
    if game.is_over or table.ending:
        return False
    prompt = f"round:{game.round}" if game.phase in GROUP_PROMPTS else f"prompt:{step}"
    if slot != prompt or table.deadline - seconds >= now - SHOWN_SLACK:
        return False
    table.deadline = now + seconds
    table.reminded = False
    return True
