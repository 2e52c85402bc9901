"""Information: /help, /rules, /board, /history, /ping, unknown commands, errors.

Informational answers are limited per sender and chat (:func:`.common.informational`) and
coalesced per chat by their outbox key while unsent, so nobody can stall a game with them."""

from __future__ import annotations

import contextlib
import logging
import math

from telegram import InlineKeyboardButton, InlineKeyboardMarkup, Update
from telegram.error import BadRequest, Conflict

from shbot import rules_text
from shbot.i18n import Translator, normalize, translator
from shbot.storage import NoGame, StoreUnavailable
from shbot.table import Refusal, Table, lobby
from shbot.table import timers as table_timers

from .. import callbacks as cb
from .. import render as r
from ..render import timers as rt
from ..render.seats import practice_hint
from ..render.widths import fit_rows
from .common import Ctx, current_table, group_only, informational, is_group, may_inform, reply, svc

log = logging.getLogger(__name__)
PING_EVERY = 60.0  # seconds between two /ping nudges in one group


def welcome_text(t: Translator) -> str:
    return t._(
        "👋 I run games of <b>Secret Hitler</b> in group chats, for 5 to 10 players, in "
        "English, Japanese or French.\n\nAdd me to a group and send /newgame there. I will send "
        "your secret role and your policy cards here, in this private chat.\n\n/rules explains "
        "the game, /help lists the commands, /lang changes my language."
    )


def help_text(t: Translator) -> str:
    commands = t._(
        "<b>Commands</b>\n"
        "/newgame — open a new game in this group\n"
        "/join — join the open game\n"
        "/leave — leave the game before it starts\n"
        "/startgame — start the game (host or admin)\n"
        "/cancelgame — cancel the game (host or admin)\n"
        "/board — show the board again\n"
        "/history — what happened so far\n"
        "/mylog — what you know of your game (in private)\n"
        "/rules — the rules of the game\n"
        "/lang — change the language\n"
        "/ping — remind whom the game waits for\n"
        "/settings — language, timers and variants of this group (admins)\n"
        "/stats — statistics of this group (in private: yours)\n"
        "/nextgame — be told in private when the next game opens here\n"
        "/help — this list\n\n"
        "Votes and nominations happen in the group with buttons; your role and your policy "
        "cards come to you in a private chat with me."
    )
    return f"{commands}\n\n{practice_hint(t)}"  # computer players and /practice


async def _t(update: Update, context: Ctx) -> Translator | None:
    s = svc(context)
    chat, user = update.effective_chat, update.effective_user
    if chat is None or user is None:
        return None
    return await s.t_group(chat.id, user) if is_group(chat) else await s.t_user(user)


@informational
async def cmd_help(update: Update, context: Ctx) -> None:
    t = await _t(update, context)
    if t is not None:
        await reply(context, update.effective_message, help_text(t), key="help")


async def cmd_unknown(update: Update, context: Ctx) -> None:
    """Unknown commands: answered in private, and in groups only when addressed to us."""
    s = svc(context)
    chat, message = update.effective_chat, update.effective_message
    if chat is None or message is None or not message.text:
        return
    command = message.text.split()[0][:64]
    if is_group(chat) and (
        "@" not in command or command.split("@", 1)[1].lower() != s.bot_username.lower()
    ):
        return  # probably meant for another bot
    if not may_inform(update, context):
        return
    t = await _t(update, context)
    if t is not None:
        text = t._("I don't know that command. /help lists what I understand.")
        await reply(context, message, text, key="unknown")


def rules_keyboard(t: Translator, current: str | None = None) -> InlineKeyboardMarkup:
    buttons = [
        InlineKeyboardButton(
            ("• " if key == current else "") + rules_text.section_title(t, key),
            callback_data=cb.free_data(cb.RULES, key),
        )
        for key in rules_text.SECTIONS
    ]
    return InlineKeyboardMarkup(fit_rows(buttons, 2))  # longer titles: a row each


@informational
async def cmd_rules(update: Update, context: Ctx) -> None:
    t = await _t(update, context)
    if t is not None:
        await reply(
            context,
            update.effective_message,
            f"{rules_text.rules_intro(t)}\n\n{practice_hint(t)}",
            rules_keyboard(t),
            key="rules",
        )


async def on_rules_press(update: Update, context: Ctx) -> None:
    query = update.callback_query
    if query is None or query.message is None:
        return
    s = svc(context)
    message = query.message
    t = await s.t_user(query.from_user)
    press = cb.parse(query.data)
    if not isinstance(press, cb.FreePress) or press.arg not in rules_text.SECTIONS:
        await query.answer(t._("This button is not valid."))
        return
    tl = await s.t_group(message.chat.id, query.from_user) if is_group(message.chat) else t
    await query.answer()
    s.outbox.post(
        message.chat.id,
        rules_text.render_section(tl, press.arg),
        rules_keyboard(tl, press.arg),
        edit_id=message.message_id,
        key=f"rules:{message.message_id}",
    )


@informational
async def cmd_board(update: Update, context: Ctx) -> None:
    """Post the board (or the lobby) again; repeated calls cost one message."""
    if not await group_only(update, context):
        return
    s = svc(context)
    chat = update.effective_chat
    assert chat is not None
    t = await s.t_group(chat.id, update.effective_user)
    try:
        await s.commit.run(chat.id, lambda tb: lobby.redraw(tb, new=True))
    except (NoGame, Refusal):
        await reply(
            context,
            update.effective_message,
            t._("No game is running. /newgame opens one."),
            key="nogame",
        )


@informational
async def cmd_history(update: Update, context: Ctx) -> None:
    s = svc(context)
    chat = update.effective_chat
    if chat is None:
        return
    if not is_group(chat):
        await group_only(update, context)
        return
    t = await s.t_group(chat.id, update.effective_user)
    message = update.effective_message
    table = await current_table(context, chat.id)
    if table is None or table.game is None:
        finished = await s.store.finished_games(chat.id, limit=1)
        if finished:
            last = Table.from_dict(finished[0].data)
            if last.game is not None and last.game.is_over:
                await reply(context, message, r.last_game_text(t, last), key="history")
                return
        await reply(context, message, t._("No game is running. /newgame opens one."), key="nogame")
        return
    await reply(context, message, r.history_text(t, table), key="history")


@informational
async def cmd_ping(update: Update, context: Ctx) -> None:
    """Nudge whoever the game waits for (useful above all without timers); rate-limited."""
    if not await group_only(update, context):
        return
    s = svc(context)
    chat = update.effective_chat
    assert chat is not None
    t = await s.t_group(chat.id, update.effective_user)
    message = update.effective_message
    table = await current_table(context, chat.id)
    if table is None or table.game is None or table.game.is_over:
        await reply(context, message, t._("No game is running. /newgame opens one."), key="nogame")
        return
    wait = s.ping_wait(chat.id, PING_EVERY)
    if wait > 0:
        await reply(context, message, rt.ping_too_soon_text(t, math.ceil(wait)), key="ping")
        return
    with contextlib.suppress(NoGame, Refusal):
        await s.commit.run(chat.id, table_timers.ping)


async def on_invalid_press(update: Update, context: Ctx) -> None:
    """Any callback data no other handler claims: forged, oversized or from an old version."""
    query = update.callback_query
    if query is None:
        return
    t = await svc(context).t_user(query.from_user)
    await query.answer(t._("This button is not valid."))


async def on_error(update: object, context: Ctx) -> None:
    error = context.error
    if isinstance(error, Conflict) and update is None:
        return  # another poller on this token: main's start_guards.PollingConflict says so
    if isinstance(error, StoreUnavailable):
        log.warning("store unavailable: %s", error)
        await tell_unavailable(update, context)
        return
    if isinstance(error, BadRequest) and "query is too old" in error.message.lower():
        # A press answered twice (a re-delivered update), or after Telegram's 15 s: the
        # player saw the first answer or none; nothing to repair.
        log.info("callback query already answered or expired")
        return
    log.error("unhandled error", exc_info=error)


async def tell_unavailable(update: object, context: Ctx) -> None:
    if not isinstance(update, Update):
        return
    user = update.effective_user
    t = translator((normalize(user.language_code) if user else None) or "en")
    text = t._("⚠️ I am temporarily unavailable. Please try again in a moment.")
    try:
        if update.callback_query is not None:  # an answer: never queued behind messages
            await update.callback_query.answer(text, show_alert=True)
        elif update.effective_message is not None:  # paced and merged like every reply
            chat_id = update.effective_message.chat.id
            svc(context).outbox.post(chat_id, text, key="unavailable")
    except Exception:  # the answer is best effort while the backend is down
        log.debug("could not tell the user about the outage", exc_info=True)
