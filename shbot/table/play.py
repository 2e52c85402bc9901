"""Game transitions: a player's move, and what each move owes the players.

:func:`play` applies one engine action for a person (after the checks that turn a stale,
foreign or out-of-turn press into a :class:`Refusal`); :func:`narrate` keeps the round log
and the step in line with the engine and marks the messages the change owes. The timers
(:mod:`shbot.table.timers`) and computer seats go through the same :func:`advance`.
"""

from __future__ import annotations

from typing import Any

from shbot.engine import (
    AnswerVeto,
    Discard,
    Enact,
    Event,
    Execute,
    Game,
    IllegalAction,
    Investigate,
    Kind,
    Phase,
    ProposeVeto,
    SpecialElection,
    Vote,
)
from shbot.engine.actions import Action
from shbot.table.model import Table

from . import board, claims, knowledge
from .outcome import Outcome, Refusal

PRIVATE_PHASES = (
    Phase.PRESIDENT_DISCARD,
    Phase.CHANCELLOR_ENACT,
    Phase.VETO_RESPONSE,
    Phase.INVESTIGATE,
    Phase.SPECIAL_ELECTION,
    Phase.EXECUTION,
)


def prompt_seat(game: Game) -> int:
    """The seat whose private prompt the current step opens."""
    return game.chancellor if game.phase is Phase.CHANCELLOR_ENACT else game.president


def check_press(table: Table, gid: str, step: int, user_id: int) -> int:
    """The presser's seat, or a Refusal for a stale, foreign or finished game's button."""
    game = table.game
    if table.gid != gid or game is None:
        raise Refusal("over_button")
    if game.is_over or table.ending:
        raise Refusal("over")
    seat = table.seat_of(user_id)
    if seat is None:
        raise Refusal("not_playing")
    if step != table.step:
        raise Refusal("step_over", **now_params(game))
    return seat


def now_params(game: Game) -> dict[str, Any]:
    """What the table is doing now, so a late press can be told what happened instead."""
    return {"phase": game.phase.value, "president": game.president, "chancellor": game.chancellor}


def play(table: Table, seat: int, action: Action) -> Outcome:
    """Apply a person's ``action`` for ``seat`` (already checked by :func:`check_press`)."""
    game = table.game
    assert game is not None
    if not game.alive[seat]:
        raise Refusal("dead")
    if isinstance(action, Vote) and game.phase is Phase.VOTE:
        if game.votes[seat] == (1 if action.ja else 0):
            raise Refusal("same_vote", alert=False, ja=action.ja)
    elif seat not in game.to_act() and not (
        isinstance(action, Vote) and game.phase is Phase.VOTE and game.alive[seat]
    ):
        raise Refusal("not_turn", seat=prompt_seat(game))
    outcome = advance(table, action)
    table.missed.pop(str(table.at(seat).id), None)  # they are here (only once it counted)
    if isinstance(action, Vote):
        outcome.answer = "vote_ja" if action.ja else "vote_nein"
    return outcome


def advance(table: Table, action: Action | None, events: list[Event] | None = None) -> Outcome:
    """Apply ``action`` (or take ``events`` already produced), then narrate the change."""
    game = table.game
    assert game is not None
    before = table.snapshot()
    if events is None:
        assert action is not None
        try:
            events = game.apply(action)
        except IllegalAction as exc:
            raise Refusal("illegal", reason=exc.reason.value) from exc
    outcome = Outcome(table, events, action)
    narrate(before, table, outcome)
    return outcome


#: What the text board shows: the policies (and with them the veto), the election tracker
#: and each seat's fate. Who governs, term limits, the piles and the deadline change at every
#: step; the round message shows them, so the text board is edited only when these change
#: (the picture draws some of them too: see table/board.py).
BOARD = board.TEXT_FACTS


def narrate(before: Table, table: Table, outcome: Outcome, timeout: str | None = None) -> None:
    """Keep the round log and step in line with the engine; owe what the change shows."""
    game, bgame = table.game, before.game
    assert game is not None and bgame is not None
    closed_log: list[list[Any]] | None = None
    knowledge.record(table, outcome.events, outcome.action)
    for e in outcome.events:
        if e.kind is Kind.PEEK_RESULT and e.to:
            table.owe(f"peek:{table.step}", table.at(e.to[0]).id, {"policies": e.data["policies"]})
        if not e.public or e.kind is Kind.VOTE_CAST:
            continue
        if e.kind is Kind.ROUND_STARTED:
            closed_log = table.round_log
            table.round_log = []
        if e.kind is not Kind.GAME_OVER:
            table.round_log.append([e.kind.value, e.data])
    if game.phase is not bgame.phase or game.round != bgame.round:
        table.step += 1
        outcome.step_changed = True
        table.restart_clock()
        _close_prompt(before, table, outcome, timeout)
    if closed_log is not None:
        _close_round(table, bgame, closed_log)
    table.owe(f"round:{game.round}")
    if board.shown(table, game) != board.shown(table, bgame) or game.is_over:
        table.owe("board")  # at the end too: the final board has no "My role" button
    if game.is_over:
        table.ending = "finished"
        table.deadline = None
        table.owe("over")
        outcome.ended = True
        outcome.release = [p.id for p in table.players]
    elif outcome.step_changed and game.phase in PRIVATE_PHASES:
        seat = prompt_seat(game)
        table.owe(f"prompt:{table.step}", table.at(seat).id, {"seat": seat})
    claims.observe(before, table, outcome)


#: A round_log entry of the new round: what the closed round's message had not shown yet
#: when a private step (a session, a power) closed it (``[RECAP, {"round": n, "log": [...]}]``).
RECAP = "recap"


def _close_round(table: Table, bgame: Game, closed_log: list[list[Any]]) -> None:
    """Owe the closed round's last edit. A round closed by a private step (a session or a
    power) left its message without buttons: the next round's message, sent anyway, tells
    what came after the vote (``RECAP``), so the old one need not be edited again when the
    group last saw it past its vote (``told``: the outbox then spends no call on it). The
    recap carries every line the old message still owed: the events after the vote (a power
    granted too, when the group last saw the session there), and the claims shown in that
    round's message (``claims``) when its last edit was still owed: a claim pressed a moment
    before a power would otherwise never reach the group."""
    told = bgame.phase in PRIVATE_PHASES
    slot = f"round:{bgame.round}"
    if told:
        voted = [i for i, e in enumerate(closed_log) if e[0] == Kind.VOTE_RESULT.value]
        shown = [Kind.CONFIRMED_NOT_HITLER.value]  # shown with the session's step
        if table.stages.get(slot) != "session":
            shown.append(Kind.POWER_GRANTED.value)  # shown with the power's step
        tail = [e for e in closed_log[voted[-1] + 1 :] if e[0] not in shown] if voted else []
        recap: dict[str, Any] = {"round": bgame.round, "log": tail}
        if slot in table.owed and claims.told_in(table, bgame.round, own=True):
            recap["claims"] = True
        if tail or "claims" in recap:
            table.round_log.insert(1, [RECAP, recap])
    table.owe(slot, payload={"log": closed_log, "closed": True, "told": told})


def _close_prompt(before: Table, table: Table, outcome: Outcome, timeout: str | None) -> None:
    """The private prompt of the step that just ended says what was done."""
    bgame = before.game
    action = outcome.action
    assert bgame is not None
    if bgame.phase not in PRIVATE_PHASES or action is None:
        return
    seat = prompt_seat(bgame)
    done: list[Any]
    if isinstance(action, Discard):
        hand: list[str] = next(
            (e.data["policies"] for e in outcome.events if e.kind is Kind.CHANCELLOR_HAND), []
        )
        done = ["discard", action.policy, hand]
    elif isinstance(action, Enact):
        done = ["enact", action.policy]
    elif isinstance(action, ProposeVeto):
        done = ["veto"]
    elif isinstance(action, AnswerVeto):
        done = ["veto_answer", action.accept]
    elif isinstance(action, Investigate):
        result = next(e for e in outcome.events if e.kind is Kind.INVESTIGATION_RESULT)
        done = ["investigate", result.data["target"], result.data["party"]]
    elif isinstance(action, SpecialElection):
        done = ["special", action.target]
    elif isinstance(action, Execute):
        done = ["execute", action.target]
    else:  # pragma: no cover - every private phase's action is listed above
        return
    table.owe(
        f"prompt:{before.step}",
        table.at(seat).id,
        {"seat": seat, "done": done, "timeout": timeout},
    )
