"""Computer seats: /addbot, /removebot and their lobby buttons, /leave in a running game,
and the private button that gives a person their seat back."""

from __future__ import annotations

from telegram import CallbackQuery, Message, Update
from telegram import User as TgUser

from shbot.i18n import Translator
from shbot.storage import NoGame
from shbot.table import Refusal, Table, seats
from shbot.table.outcome import Outcome

from .. import callbacks as cb
from ..refusals import refusal_text
from ..render import seats as rs
from .common import Ctx, answer, commit_or_refuse, current_table, group_only, is_person, svc

MAX_ADD = seats.MAX_SEATS - 1


async def change_bots(
    context: Ctx,
    chat_id: int,
    user: TgUser,
    message: Message | None,
    query: CallbackQuery | None,
    count: int,
) -> None:
    """Add ``count`` computer players (0: remove one), for the host or a group admin."""
    s = svc(context)
    t = await (s.t_user(user) if query is not None else s.t_group(chat_id, user))
    if not is_person(user, message if query is None else None):
        await answer(context, query, message, refusal_text(t, Refusal("not_person")))
        return
    table = await current_table(context, chat_id)
    if table is None:
        await answer(context, query, message, t._("There is no open game. /newgame opens one."))
        return
    allowed = user.id == table.host or await s.is_admin(chat_id, user.id)
    lang = await s.group_lang(chat_id)
    before = len(table.players)

    def change(tb: Table) -> Outcome:
        if count <= 0:
            return seats.remove_computer(tb, user.id, allowed)
        return seats.add_computers(tb, user.id, allowed, count, lang)

    outcome = await commit_or_refuse(context, chat_id, change, message, query, t)
    if outcome is not None and query is not None:  # a command: the lobby's edit shows it
        added = len(outcome.table.players) - before
        text = rs.answer_text(t, outcome.answer, max(added, 0)) or ""
        await answer(context, query, message, text, alert=False)


def _count(args: list[str] | None) -> int:
    """The n of /addbot [n]: 1 unless a small positive number is given."""
    arg = (args or ["1"])[0]
    if not (arg.isascii() and arg.isdigit()) or len(arg) > 2:
        return 1
    return min(max(int(arg), 1), MAX_ADD)


async def cmd_addbot(update: Update, context: Ctx) -> None:
    if not await group_only(update, context):
        return
    chat, user = update.effective_chat, update.effective_user
    assert chat is not None and user is not None
    count = _count(context.args)
    await change_bots(context, chat.id, user, update.effective_message, None, count)


async def cmd_removebot(update: Update, context: Ctx) -> None:
    if not await group_only(update, context):
        return
    chat, user = update.effective_chat, update.effective_user
    assert chat is not None and user is not None
    await change_bots(context, chat.id, user, update.effective_message, None, 0)


async def leave_running(
    context: Ctx,
    chat_id: int,
    user: TgUser,
    message: Message | None,
    query: CallbackQuery | None,
    t: Translator,
) -> None:
    """/leave once the game runs: a computer player takes the seat (if the group allows)."""
    group = await svc(context).store.get_group(chat_id)
    enabled = rs.standin_on(group)
    outcome = await commit_or_refuse(
        context,
        chat_id,
        lambda tb: seats.leave_running(tb, user.id, enabled),
        message,
        query,
        t,
    )
    if outcome is not None and query is not None:  # a toast, to the person alone
        await answer(context, query, None, rs.answer_text(t, outcome.answer) or "", alert=False)
    # After /leave the group is told by the stand-in line, in the third person, in order
    # with the take-back line; a reply here ("plays your seat") would say "you" to all and
    # arrive after the stand-in line; the person gets the take-back button in private.


async def on_seat_press(update: Update, context: Ctx) -> None:
    """The lobby's computer-player buttons, and "Take my seat back" in private."""
    query = update.callback_query
    if query is None or query.message is None:
        return
    press = cb.parse(query.data)
    assert isinstance(press, cb.GamePress)
    user = query.from_user
    if press.op != cb.TAKE_BACK:
        count = 1 if press.op == cb.ADD_BOT else 0
        await change_bots(context, query.message.chat.id, user, None, query, count)
        return
    s = svc(context)
    t = await s.t_user(user)
    group = await s.store.player_chat(user.id)
    if group is None:
        await query.answer(t._("This game is over."), show_alert=True)
        return
    outcome = await commit_or_refuse(
        context, group, lambda tb: seats.take_back(tb, press.game_id, user.id), None, query, t
    )
    if outcome is not None:
        await query.answer(rs.answer_text(t, outcome.answer) or "")


async def offer_seat_back(context: Ctx, group_id: int, user_id: int) -> bool:
    """/start in private by a person a computer plays for: their take-back button again."""
    try:
        await svc(context).commit.run(group_id, lambda tb: seats.offer_seat_back(tb, user_id))
    except (NoGame, Refusal):
        return False
    return True
