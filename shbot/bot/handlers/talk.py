"""Table talk: a claim button pressed in private becomes one commit of the presser's game."""

from __future__ import annotations

from telegram import Update

from shbot.storage import NoGame
from shbot.table import Outcome, Refusal, Table, claims

from .. import callbacks as cb
from ..refusals import answer_text, refusal_text
from .common import Ctx, answer_redelivered, current_table, is_group, svc
from .play import game_gone, group_of


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
    chat_id = await group_of(
        context, query.message.chat.id, user.id, not is_group(query.message.chat)
    )
    if chat_id is None:
        await game_gone(context, query, None, press.game_id)
        return

    def change(table: Table) -> Outcome:
        return claims.claim(table, press.game_id, press.step, user.id, press.arg)

    if not await s.store.first_seen(f"cq:{query.id}"):
        await answer_redelivered(context, query)  # if a dead process took the first
        return
    try:
        outcome = await s.commit.run(chat_id, change, update_key=f"cq:{query.id}")
    except NoGame:
        await game_gone(context, query, chat_id, press.game_id)
        return
    except Refusal as refusal:
        if refusal.code == "duplicate":
            await answer_redelivered(context, query)
            return
        table = await current_table(context, chat_id)
        await query.answer(refusal_text(t, refusal, table)[:200], show_alert=refusal.alert)
        return
    text = answer_text(t, outcome.answer)
    await query.answer(text[:200] if text else None)
