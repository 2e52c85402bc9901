"""/settings (group admins, in private), /stats and /nextgame.

The settings menu is sent to the admin's private chat, in the admin's language, so a group
is not flooded while someone tries options. Admin rights are checked again on every press:
the menu may outlive the rights of whoever opened it.
"""

from __future__ import annotations

import contextlib
import logging
from typing import Any

from telegram import CallbackQuery, Update
from telegram.constants import ParseMode
from telegram.error import Forbidden, RetryAfter

from shbot.i18n import LANGUAGES
from shbot.storage import NoGame
from shbot.table import Refusal, board
from shbot.table import timers as table_timers

from . import callbacks as cb
from . import render as r
from .config import TIMER_PRESETS
from .delivery.sender import retry_seconds
from .handlers import Ctx, group_only, is_group, reply, set_language, svc
from .render import settings as rs

log = logging.getLogger(__name__)


async def _title(context: Ctx, chat_id: int) -> str:
    try:
        chat = await context.bot.get_chat(chat_id)
    except Exception:  # a title is cosmetic
        return str(chat_id)
    return chat.title or str(chat_id)


async def cmd_settings(update: Update, context: Ctx) -> None:
    s = svc(context)
    chat, user, message = update.effective_chat, update.effective_user, update.effective_message
    if chat is None or user is None:
        return
    if not is_group(chat):
        t = await s.t_user(user)
        await reply(
            context, message, t._("Send /settings in your group: I will open its settings here.")
        )
        return
    tg = await s.t_group(chat.id, user)
    if not await s.is_admin(chat.id, user.id):
        await reply(context, message, tg._("Only a group admin can change the settings."))
        return
    t = await s.t_user(user)
    group = await s.store.get_group(chat.id)
    text = rs.settings_text(t, chat.title or str(chat.id), group, s.config.timers)
    keyboard = rs.settings_keyboard(t, chat.id, group, s.config.timers)
    try:  # directly (a refusal means no private chat yet), counted in that chat's window
        s.outbox.pacer.take(user.id)
        await context.bot.send_message(
            user.id, text, parse_mode=ParseMode.HTML, reply_markup=keyboard
        )
    except RetryAfter as exc:  # never a traceback: the outbox sends it once it may
        s.outbox.pacer.block(user.id, retry_seconds(exc))
        s.outbox.post(user.id, text, keyboard)
    except Forbidden:
        markup = r.private_chat_keyboard(tg, s.bot_username, "settings")
        await reply(
            context,
            message,
            tg._(
                "I cannot write to you in private yet: open a private chat with me, then "
                "send /settings here again."
            ),
            markup,
        )
        return
    await reply(context, message, tg._("⚙️ I sent you the settings in private."))


def _parse(arg: str) -> tuple[int, str] | None:
    chat, _, code = arg.partition("_")
    chat_id = rs.parse_chat_arg(chat)
    if chat_id is None or chat_id >= 0 or not code:
        return None
    return chat_id, code


def _change(code: str) -> dict[str, Any] | None:
    """The group-settings change a settings button asks for (None: not a setting)."""
    if code[:1] == "l" and code[1:] in LANGUAGES:
        return {"lang": code[1:]}
    for preset, c in rs.TIMER_CODES.items():
        if code == c:
            return {"timers": preset}
    for rule, c in rs.VOTE_CODES.items():
        if code == c:
            return {"missing_votes": rule}
    for shuffled, c in rs.SEAT_CODES.items():
        if code == c:
            return {"shuffle_seats": shuffled}
    for on, c in rs.REBALANCED_CODES.items():
        if code == c:
            return {"rebalanced": on}
    for value, c in rs.STANDIN_CODES.items():
        if code == c:
            return {"standin": value}
    for style, c in rs.BOARD_CODES.items():
        if code == c:
            return {"board": style}
    return None


async def on_settings_press(context: Ctx, query: CallbackQuery, arg: str) -> None:
    s = svc(context)
    user = query.from_user
    t = await s.t_user(user)
    parsed = _parse(arg)
    change = _change(parsed[1]) if parsed else None
    if parsed is None or change is None:
        await query.answer(t._("This button is not valid."))
        return
    chat_id = parsed[0]
    if not await s.is_admin(chat_id, user.id, fresh=True):
        await query.answer(t._("Only a group admin can change the settings."))
        return
    if "lang" in change:
        await set_language(context, chat_id, True, change["lang"])
    else:
        await s.store.update_group(chat_id, change)
    if "timers" in change:
        await _apply_timers(context, chat_id, TIMER_PRESETS[change["timers"]])
    if "board" in change:  # a running game shows its board in the new style at once
        with contextlib.suppress(NoGame, Refusal):
            await s.commit.run(chat_id, lambda tb: board.set_style(tb, change["board"]))
    log.info("chat %s: settings changed by %s: %s", chat_id, user.id, sorted(change))
    group = await s.store.get_group(chat_id)
    title = await _title(context, chat_id)
    await query.answer(t._("Saved."))
    menu = query.message
    if menu is not None:  # the menu shows the choice: edited by the outbox, paced with the
        # chat's other messages (a group's 20 a minute), the newest press's state winning
        s.outbox.post(
            menu.chat.id,
            rs.settings_text(t, title, group, s.config.timers),
            rs.settings_keyboard(t, chat_id, group, s.config.timers),
            key=f"settings:{menu.message_id}",
            edit_id=menu.message_id,
        )


async def _apply_timers(context: Ctx, chat_id: int, seconds: int) -> None:
    """A running game takes the new timers at once (a fresh clock for the current step)."""
    s = svc(context)
    try:
        await s.commit.run(chat_id, lambda tb: table_timers.set_timer(tb, seconds))
    except (NoGame, Refusal):
        return


# ---------------------------------------------------------------------------- /stats, /nextgame


async def cmd_stats(update: Update, context: Ctx) -> None:
    s = svc(context)
    chat, user, message = update.effective_chat, update.effective_user, update.effective_message
    if chat is None or user is None:
        return
    if is_group(chat):
        t = await s.t_group(chat.id, user)
        stats = await s.store.group_stats(chat.id)
        await reply(context, message, rs.group_stats_text(t, chat.title or "", stats))
    else:
        t = await s.t_user(user)
        await reply(context, message, rs.user_stats_text(t, await s.store.user_stats(user.id)))


async def cmd_nextgame(update: Update, context: Ctx) -> None:
    """Be told once, in private, when the next lobby opens in this group."""
    if not await group_only(update, context):
        return
    s = svc(context)
    chat, user, message = update.effective_chat, update.effective_user, update.effective_message
    assert chat is not None and user is not None
    tg = await s.t_group(chat.id, user)
    settings = await s.store.get_user(user.id)
    if not settings.get("dm"):
        markup = r.private_chat_keyboard(tg, s.bot_username, "nextgame")
        await reply(
            context,
            message,
            tg._(
                "Open a private chat with me first, so that I can tell you; then send "
                "/nextgame here again."
            ),
            markup,
        )
        return
    if await s.store.subscribe_next(chat.id, user.id):
        await reply(
            context, message, tg._("🔔 I will tell you in private when the next game opens here.")
        )
    else:
        await reply(context, message, tg._("You are already on the list for the next game here."))


async def on_callback(update: Update, context: Ctx) -> None:
    """Settings buttons (``@set:...``), registered ahead of the game callbacks."""
    query = update.callback_query
    if query is None or query.from_user is None:
        return
    press = cb.parse(query.data)
    if not isinstance(press, cb.FreePress) or press.op != cb.SETTINGS:
        t = await svc(context).t_user(query.from_user)
        await query.answer(t._("This button is not valid."))
        return
    await on_settings_press(context, query, press.arg)
