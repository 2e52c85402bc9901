"""Table talk: a claim button pressed in private becomes one commit of the presser's game."""

from __future__ import annotations

from collections.abc import Callable

from telegram import CallbackQuery, Message, Update

from shbot.i18n import Translator
from shbot.storage import NoGame
from shbot.table import Outcome, Refusal, Table, claims

from .. import callbacks as cb
from ..refusals import answer_text, refusal_text
from .common import Ctx, answer_redelivered, current_table, is_group, svc
from .play import group_of


async def on_claim(update: Update, context: Ctx) -> None:
    """``<game>:<round>:c:<kind><claim>``: checked by ``claims.claim`` (stale, foreign,
    forged or repeated presses are refused and change nothing)."""
    query = update.callback_query
    if query is None or query.message is None:
        return
    s = svc(context)
    user = query.from_user
    t = await s.t_user(user)
    press = cb.parse(query.data)
    if not isinstance(press, cb.GamePress) or press.op != cb.CLAIM:
        await query.answer(t._("This button is not valid."), show_alert=True)
        return
    private = not is_group(query.message.chat)
    chat_id = await group_of(context, query.message.chat.id, user.id, private)
    if chat_id is None:  # the game ended (its players are free again), or was lost
        await closed(context, query, t, (None, press.game_id))
        return
    if not await s.store.first_seen(f"cq:{query.id}"):
        await answer_redelivered(context, query)  # if a dead process took the first
        return
    try:
        outcome = await s.commit.run(chat_id, _change(press, user.id), update_key=f"cq:{query.id}")
    except NoGame:
        await closed(context, query, t, (chat_id, press.game_id))
        return
    except Refusal as refusal:
        if refusal.code in ("over", "over_button"):
            await closed(context, query, t)
        elif refusal.code == "duplicate":
            await answer_redelivered(context, query)
        else:
            table = await current_table(context, chat_id)
            await query.answer(refusal_text(t, refusal, table)[:200], show_alert=refusal.alert)
        return
    text = answer_text(t, outcome.answer)
    await query.answer(text[:200] if text else None)


def _change(press: cb.GamePress, user_id: int) -> Callable[[Table], Outcome]:
    return lambda table: claims.claim(table, press.game_id, press.step, user_id, press.arg)


async def closed(
    context: Ctx, query: CallbackQuery, t: Translator, gone: tuple[int | None, str] | None = None
) -> None:
    """A claim button of a game that is over: a prompt that had scrolled away when the game
    ended keeps its buttons (only what each player sees is closed at the end), so it is
    closed now, when pressed: the press is answered and the message keeps its text, with
    a line saying that claims are closed, and loses its buttons."""
    over = t._("The game is over: claims are closed.")
    await query.answer(over)
    message = query.message
    if (
        isinstance(message, Message)
        and message.text
        and message.reply_markup is not None
        and any(
            b.callback_data == query.data
            for row in message.reply_markup.inline_keyboard
            for b in row
        )
    ):
        text = f"{message.text_html}\n🔒 {over}"
        svc(context).outbox.post(
            message.chat.id, text, edit_id=message.message_id, key=f"unbutton:{message.message_id}"
        )
    if gone is not None:  # not in the store: if it was lost, the group is told (once)
        await svc(context).lost_game(*gone, None)
