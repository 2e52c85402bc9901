"""A game button's press, judged once for every way it arrives.

A press comes as a callback query (the chat's buttons: ``handlers/play.py``,
``handlers/talk.py``) or from the Mini App's page (``shbot/webapp/actions.py``), which
posts the very callback data of the same buttons. Both go through the functions here: the
same parsing, the same checks (a forged, stale, foreign or out-of-turn press is refused
and changes nothing), the same commit path (so the same messages owed, the same outbox
and pacer, the private prompt of a step closed alike) and one player's answers in the
order their presses were judged. The caller only says how the answer reaches the player
(``respond``): a callback answer, or the page's JSON.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from shbot.engine import (
    AnswerVeto,
    Discard,
    Enact,
    Execute,
    Investigate,
    Nominate,
    Phase,
    ProposeVeto,
    SpecialElection,
    Vote,
)
from shbot.engine.actions import Action
from shbot.i18n import Translator
from shbot.storage import NoGame
from shbot.table import Outcome, Refusal, Table, claims
from shbot.table.play import check_press, play

from . import callbacks as cb
from . import render as r
from .refusals import answer_text, refusal_text

#: The ops of :func:`game_press` (a move of the game).
MOVE_OPS = frozenset(
    {cb.NOMINATE, cb.VOTE, cb.DISCARD, cb.ENACT, cb.VETO, cb.VETO_ANSWER, cb.TARGET}
)


@dataclass(frozen=True)
class Reply:
    """How a press was judged. ``status``: "done" (``text`` is its answer), "refused"
    (``refusal``), "duplicate" (an earlier delivery applied it), "gone" (the store has no
    game for it: ``last_known``) or "closed" (a claim on a game that is over)."""

    status: str
    text: str | None = None
    alert: bool = False
    refusal: Refusal | None = None
    last_known: Any = None


Respond = Callable[[Reply], Awaitable[None]]


def decode(table: Table, press: cb.GamePress, seat: int) -> Action:
    """A button as an engine action (``Refusal("invalid")`` for anything malformed)."""
    game = table.game
    assert game is not None
    op, arg = press.op, press.arg
    try:
        if op == cb.NOMINATE:
            return Nominate(seat, int(arg or ""))
        if op == cb.VOTE and arg in ("0", "1"):
            return Vote(seat, arg == "1")
        if op == cb.DISCARD and arg in ("L", "F"):
            return Discard(seat, arg)
        if op == cb.ENACT and arg in ("L", "F"):
            return Enact(seat, arg)
        if op == cb.VETO:
            return ProposeVeto(seat)
        if op == cb.VETO_ANSWER and arg in ("0", "1"):
            return AnswerVeto(seat, arg == "1")
        if op == cb.TARGET:
            target = int(arg or "")
            if game.phase is Phase.INVESTIGATE:
                return Investigate(seat, target)
            if game.phase is Phase.SPECIAL_ELECTION:
                return SpecialElection(seat, target)
            if game.phase is Phase.EXECUTION:
                return Execute(seat, target)
            raise Refusal("step_over")
    except (ValueError, OverflowError):
        pass
    raise Refusal("invalid")


async def game_press(
    s: Any,
    user_id: int,
    t: Translator,
    chat_id: int | None,
    press: cb.GamePress,
    update_key: str | None,
    respond: Respond,
) -> None:
    """Judge and commit a move (``press.op`` in :data:`MOVE_OPS`) of ``user_id`` in the
    game of ``chat_id`` (``s``: the bot's Services); ``respond`` is awaited once, in the
    player's turn (their earlier presses answered first)."""
    if chat_id is None:
        await respond(Reply("gone"))
        return
    tickets: list[int] = []

    def change(table: Table) -> Outcome:
        tickets.append(s.answers.ticket(user_id))  # judged under the group's lock: in order
        seat = check_press(table, press.game_id, press.step, user_id)
        return play(table, seat, decode(table, press, seat))

    # A press delivered twice is applied once (its id rides in the commit's write).
    try:
        outcome = await s.commit.run(chat_id, change, update_key=update_key)
    except NoGame as missing:
        async with s.answers.turn(user_id, tickets):
            await respond(Reply("gone", last_known=missing.last_known))
        return
    except Refusal as refusal:
        status = "duplicate" if refusal.code == "duplicate" else "refused"
        async with s.answers.turn(user_id, tickets):
            await respond(Reply(status, alert=refusal.alert, refusal=refusal))
        return
    except BaseException:
        for n in tickets:
            s.answers.release(user_id, n)
        raise
    async with s.answers.turn(user_id, tickets):
        await respond(Reply("done", (answer_text(t, outcome.answer) or "")[:200] or None))


async def claim_press(
    s: Any, user_id: int, t: Translator, chat_id: int, press: cb.GamePress, update_key: str | None
) -> Reply:
    """Judge and commit a claim (``<game>:<round>:c:<kind><claim>``, checked by
    ``claims.claim``: stale, foreign, forged or repeated claims change nothing)."""

    def change(table: Table) -> Outcome:
        return claims.claim(table, press.game_id, press.step, user_id, press.arg)

    try:
        outcome = await s.commit.run(chat_id, change, update_key=update_key)
    except NoGame:  # over and archived, or lost
        return Reply("gone", t._("The game is over: claims are closed."))
    except Refusal as refusal:
        if refusal.code in ("over", "over_button"):
            return Reply("closed", t._("The game is over: claims are closed."))
        if refusal.code == "duplicate":
            return Reply("duplicate", refusal=refusal)
        return Reply("refused", alert=refusal.alert, refusal=refusal)
    text = answer_text(t, outcome.answer)
    return Reply("done", text[:200] if text else None)


def role_press(t: Translator, table: Table, press: cb.GamePress, user_id: int) -> Reply:
    """ "My role" pressed on ``table`` (the group's live game): the player's role as an
    alert, or why not."""
    if table.gid != press.game_id or table.game is None:
        return Reply("refused", t._("This button belongs to a game that is over."))
    seat = table.seat_of(user_id)
    if seat is None:
        return Reply("refused", t._("You are not playing in this game."))
    return Reply("done", r.role_alert(t, table, seat), alert=True)


async def live_table(s: Any, chat_id: int) -> Table | None:
    """The group's live table (None when there is none or it has ended)."""
    record = await s.store.get_game(chat_id)
    if record is None:
        return None
    table = Table.from_dict(record.data)
    return None if table.ending else table


async def refusal_words(s: Any, t: Translator, chat_id: int, refusal: Refusal) -> str:
    """A refusal's answer, told with the table it was judged on (else the live one)."""
    table = refusal.table or await live_table(s, chat_id)
    return refusal_text(t, refusal, table)[:200]
