"""Table talk: a claim button pressed in private becomes one commit of the presser's game."""

from __future__ import annotations

from telegram import CallbackQuery, Message, Update

from shbot.i18n import Translator

from .. import callbacks as cb
from ..presses import claim_press, refusal_words
from .common import Ctx, answer_redelivered, is_group, svc
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
    # The same judgement as a claim on the Mini App's page (shbot/bot/presses.py).
    reply = await claim_press(s, user.id, t, chat_id, press, f"cq:{query.id}")
    if reply.status in ("closed", "gone"):  # gone: not in the store (told if it was lost)
        gone = (chat_id, press.game_id) if reply.status == "gone" else None
        await closed(context, query, t, gone)
    elif reply.status == "duplicate":
        await answer_redelivered(context, query)
    elif reply.refusal is not None:
        text = await refusal_words(s, t, chat_id, reply.refusal)
        await query.answer(text, show_alert=reply.alert)
    else:
        await query.answer(reply.text)


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
