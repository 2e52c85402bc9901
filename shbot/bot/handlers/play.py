"""Game presses: nominate, vote, the private hands, veto and powers, and "My role"."""

from __future__ import annotations

from typing import Any

from telegram import CallbackQuery, Update

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
from shbot.table import Outcome, Refusal, Table
from shbot.table.play import check_press, play

from .. import callbacks as cb
from .. import render as r
from ..refusals import answer_text, refusal_text
from .common import Ctx, answer_redelivered, current_table, is_group, svc


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


async def group_of(context: Ctx, chat_id: int, user_id: int, private: bool) -> int | None:
    """The group a press belongs to: its own chat, or (in private) the presser's game."""
    if not private:
        return chat_id
    return await svc(context).store.player_chat(user_id)


async def on_game_press(update: Update, context: Ctx) -> None:
    query = update.callback_query
    if query is None or query.message is None:
        return
    s = svc(context)
    user = query.from_user
    t = await s.t_user(user)
    press = cb.parse(query.data)
    assert isinstance(press, cb.GamePress)
    chat_id = await group_of(
        context, query.message.chat.id, user.id, not is_group(query.message.chat)
    )
    if chat_id is None:
        await game_gone(context, query, None, press.game_id)
        return
    tickets: list[int] = []

    def change(table: Table) -> Outcome:
        tickets.append(s.answers.ticket(user.id))  # judged under the group's lock: in order
        seat = check_press(table, press.game_id, press.step, user.id)
        return play(table, seat, decode(table, press, seat))

    # A press delivered twice is applied once (its id rides in the commit's write); one
    # player's answers go out in the order their presses were judged (bot/answers.py).
    try:
        outcome = await s.commit.run(chat_id, change, update_key=f"cq:{query.id}")
    except NoGame as missing:
        async with s.answers.turn(user.id, tickets):
            await game_gone(context, query, chat_id, press.game_id, missing.last_known)
        return
    except Refusal as refusal:
        async with s.answers.turn(user.id, tickets):
            await refused_press(context, query, chat_id, refusal, t)
        return
    except BaseException:
        for n in tickets:
            s.answers.release(user.id, n)
        raise
    async with s.answers.turn(user.id, tickets):
        await query.answer((answer_text(t, outcome.answer) or "")[:200] or None)


async def refused_press(
    context: Ctx, query: CallbackQuery, chat_id: int, refusal: Refusal, t: Translator
) -> None:
    """Answer a refused press once. A refused press is not recorded by any commit: the
    store's first-seen mark (off the hot path, refusals only) lets one delivery answer it
    (Telegram refuses a second answer to one query)."""
    if refusal.code == "duplicate":
        await answer_redelivered(context, query)  # applied by an earlier delivery
        return
    if not await svc(context).store.first_seen(f"cq:{query.id}"):
        return  # refused and answered by an earlier delivery of it
    table = refusal.table or await current_table(context, chat_id)
    await query.answer(refusal_text(t, refusal, table)[:200], show_alert=refusal.alert)


async def game_gone(
    context: Ctx, query: CallbackQuery, chat_id: int | None, gid: str, last: Any = None
) -> None:
    """A press on a game the store does not have: over, or lost (see Services.lost_game)."""
    s = svc(context)
    t = await s.t_user(query.from_user)
    await query.answer(t._("This button belongs to a game that is over."))
    await s.lost_game(chat_id, gid, query.message, last)


async def on_my_role(update: Update, context: Ctx) -> None:
    query = update.callback_query
    if query is None or query.message is None:
        return
    s = svc(context)
    t = await s.t_user(query.from_user)
    press = cb.parse(query.data)
    assert isinstance(press, cb.GamePress)
    # "My role" sits under the group's board; pressed anywhere else it names no game.
    chat_id = query.message.chat.id if is_group(query.message.chat) else None
    if chat_id is None and await s.store.player_chat(query.from_user.id) == query.from_user.id:
        chat_id = query.from_user.id  # a practice game: its table is the private chat
    table = await current_table(context, chat_id) if chat_id is not None else None
    if table is None:
        await game_gone(context, query, chat_id, press.game_id)
        return
    if table.gid != press.game_id or table.game is None:
        await query.answer(t._("This button belongs to a game that is over."))
        return
    seat = table.seat_of(query.from_user.id)
    if seat is None:
        await query.answer(t._("You are not playing in this game."))
        return
    await query.answer(r.role_alert(t, table, seat), show_alert=True)
