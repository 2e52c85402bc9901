"""Telegram handlers: parse, check, commit through the store, then narrate.

No rule logic lives here: presses become engine actions in :mod:`shbot.bot.flow`. Every
handler answers quickly; messages go through the outbox so nothing here waits on the
group's rate limit.
"""

from __future__ import annotations

import logging
import math
from typing import Any, cast

from telegram import (
    CallbackQuery,
    Chat,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    Message,
    Update,
    User,
)
from telegram.constants import ChatMemberStatus, ChatType, ParseMode
from telegram.ext import ContextTypes

from shbot import rules_text
from shbot.i18n import (
    LANGUAGE_NAMES,
    LANGUAGES,
    Translator,
    language_changed_text,
    language_prompt_text,
    normalize,
    translator,
)
from shbot.storage import GameExists, NoGame, StoreUnavailable

from . import callbacks as cb
from . import flow, jobs
from . import render as r
from . import render_timers as rt
from .model import Player, Table, clean_name
from .services import Services
from .timers import preset_seconds

log = logging.getLogger(__name__)
Ctx = ContextTypes.DEFAULT_TYPE


def svc(context: Ctx) -> Services:
    return cast(Services, context.application.bot_data["svc"])


def is_group(chat: Chat | None) -> bool:
    return chat is not None and chat.type in (ChatType.GROUP, ChatType.SUPERGROUP)


def player_from(user: User, ready: bool) -> Player:
    return Player(
        user.id, clean_name(user.full_name, f"#{user.id}"), normalize(user.language_code), ready
    )


async def reply(message: Message | None, text: str, markup: Any = None) -> None:
    """A direct answer to a command (not game narration, so not queued)."""
    if message is not None:
        await message.reply_text(
            text, parse_mode=ParseMode.HTML, reply_markup=markup, disable_web_page_preview=True
        )


async def is_admin(context: Ctx, chat_id: int, user_id: int) -> bool:
    try:
        member = await context.bot.get_chat_member(chat_id, user_id)
    except Exception:  # an API error must not grant rights
        log.warning("could not check admin rights in %s", chat_id)
        return False
    return member.status in (ChatMemberStatus.OWNER, ChatMemberStatus.ADMINISTRATOR)


join_payload = r.join_payload


def parse_join_payload(payload: str) -> tuple[int, str] | None:
    if not payload.startswith("j") or "_" not in payload:
        return None
    chat, _, gid = payload[1:].partition("_")
    try:
        return int(chat.replace("m", "-")), gid
    except ValueError:
        return None


# ------------------------------------------------------------------------------ /start, /help


async def cmd_start(update: Update, context: Ctx) -> None:
    s = svc(context)
    user, chat, message = update.effective_user, update.effective_chat, update.effective_message
    if user is None or chat is None:
        return
    if chat.type != ChatType.PRIVATE:
        await cmd_help(update, context)
        return
    await s.store.update_user(user.id, {"dm": True, "tg_lang": normalize(user.language_code)})
    t = await s.t_user(user)
    payload = context.args[0] if context.args else ""
    target = parse_join_payload(payload)
    if target is not None:
        await join_lobby(context, target[0], user, message, t, gid=target[1], via_private=True)
        return
    group_id = await s.store.player_chat(user.id)
    # A lobby player who opened the private chat without the lobby's link is reachable now.
    if group_id is not None and await mark_ready(context, group_id, user.id):
        await reply(message, t._("✅ You are in the game. Go back to the group!"))
        return
    # A player whose private prompt never arrived (they had blocked the bot) gets it again.
    if group_id is not None and await resend_prompt(context, group_id, user.id):
        return
    add = (
        InlineKeyboardMarkup(
            [
                [
                    InlineKeyboardButton(
                        t._("➕ Add me to a group"),
                        url=f"https://t.me/{s.bot_username}?startgroup=true",
                    )
                ]
            ]
        )
        if s.bot_username
        else None
    )
    await reply(message, welcome_text(t), add)


async def mark_ready(context: Ctx, chat_id: int, user_id: int) -> bool:
    """Mark a lobby player reachable in private; False if they are not waiting in a lobby."""
    s = svc(context)
    record = await s.store.get_game(chat_id)
    if record is None or record.status != "lobby":
        return False  # in a running game every player is reachable already: write nothing
    async with s.chat_lock(chat_id):
        try:
            _, outcome = await s.store.update_game(
                chat_id, lambda rec: flow.apply_ready(rec, user_id)
            )
        except NoGame:
            return False
        if outcome is None:
            return False
        (await s.narrator(chat_id, outcome.after)).lobby(outcome.after)
    return True


def welcome_text(t: Translator) -> str:
    return t._(
        "👋 I run games of <b>Secret Hitler</b> in group chats, for 5 to 10 players, in "
        "English, Japanese or French.\n\nAdd me to a group and send /newgame there. I will send "
        "your secret role and your policy cards here, in this private chat.\n\n/rules explains "
        "the game, /help lists the commands, /lang changes my language."
    )


def help_text(t: Translator) -> str:
    return t._(
        "<b>Commands</b>\n"
        "/newgame — open a new game in this group\n"
        "/join — join the open game\n"
        "/leave — leave the game before it starts\n"
        "/startgame — start the game (host or admin)\n"
        "/cancelgame — cancel the game (host or admin)\n"
        "/board — show the board again\n"
        "/history — what happened so far\n"
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


async def cmd_help(update: Update, context: Ctx) -> None:
    s = svc(context)
    chat, user = update.effective_chat, update.effective_user
    if chat is None or user is None:
        return
    t = await s.t_group(chat.id) if is_group(chat) else await s.t_user(user)
    await reply(update.effective_message, help_text(t))


async def cmd_unknown(update: Update, context: Ctx) -> None:
    """Unknown commands: answered in private, and in groups only when addressed to us."""
    s = svc(context)
    chat, user, message = update.effective_chat, update.effective_user, update.effective_message
    if chat is None or user is None or message is None or not message.text:
        return
    command = message.text.split()[0]
    if is_group(chat) and (
        "@" not in command or command.split("@", 1)[1].lower() != s.bot_username.lower()
    ):
        return  # probably meant for another bot
    t = await s.t_group(chat.id) if is_group(chat) else await s.t_user(user)
    await reply(message, t._("I don't know that command. /help lists what I understand."))


# ------------------------------------------------------------------------------ lobby


async def group_only(update: Update, context: Ctx) -> bool:
    chat = update.effective_chat
    if is_group(chat):
        return True
    user = update.effective_user
    if user is not None:
        t = await svc(context).t_user(user)
        await reply(update.effective_message, t._("This command works in a group chat."))
    return False


async def cmd_newgame(update: Update, context: Ctx) -> None:
    if not await group_only(update, context):
        return
    s = svc(context)
    chat, user, message = update.effective_chat, update.effective_user, update.effective_message
    assert chat is not None and user is not None
    group_settings = await s.store.get_group(chat.id)
    if not group_settings.get("lang"):  # a group that never chose speaks like its first host
        lang = await s.user_lang(user.id, user.language_code)
        await s.store.update_group(chat.id, {"lang": lang})
        s.forget_group_lang(chat.id)
    t = await s.t_group(chat.id)
    busy = await s.store.player_chat(user.id)
    if busy is not None and busy != chat.id:
        await reply(message, t._("You are already playing in another group."))
        return
    settings = await s.store.get_user(user.id)
    host = player_from(user, ready=bool(settings.get("dm")))
    table = flow.new_lobby(host)
    try:
        async with s.chat_lock(chat.id):
            await s.store.create_game(chat.id, "lobby", table.to_dict())
            await s.store.claim_player(user.id, chat.id)
            narrator = await s.narrator(chat.id, table)
            narrator.lobby(table)
    except GameExists:  # answered outside the lock: a reply may wait on the group's limit
        await reply(
            message,
            t._("A game is already open in this group. /board shows it; /cancelgame ends it."),
        )
        return
    for subscriber in await s.store.pop_subscribers(chat.id):
        ts = await s.t_user(subscriber)
        s.outbox.send(
            subscriber,
            ts._(
                "🔔 A new game of Secret Hitler is open in {group}.", group=r.esc(chat.title or "")
            ),
        )


async def join_lobby(
    context: Ctx,
    chat_id: int,
    user: User,
    message: Message | None,
    t: Translator,
    *,
    gid: str | None = None,
    via_private: bool = False,
    query: CallbackQuery | None = None,
) -> None:
    s = svc(context)
    busy = await s.store.player_chat(user.id)
    if busy is not None and busy != chat_id:
        await answer(query, message, t._("You are already playing in another group."))
        return
    settings = await s.store.get_user(user.id)
    ready = via_private or bool(settings.get("dm"))
    player = player_from(user, ready)

    def change(rec: Any) -> flow.Outcome:
        if gid is not None and rec.data.get("gid") != gid:
            raise flow.Refusal(t._("This game is over."))
        return flow.apply_join(rec, player, t)

    # Refusals are answered after the lock is released: a reply to a command waits for the
    # group's rate limit, and holding the lock meanwhile would delay every press there.
    try:
        async with s.chat_lock(chat_id):
            if await s.store.claim_player(user.id, chat_id) is not None:
                raise flow.Refusal(t._("You are already playing in another group."))
            _, outcome = await s.store.update_game(chat_id, change)
            narrator = await s.narrator(chat_id, outcome.after)
            narrator.lobby(outcome.after)
    except NoGame:
        await s.store.release_players(chat_id, [user.id])
        await answer(query, message, t._("There is no open game. /newgame opens one."))
        return
    except flow.Refusal as refusal:
        table = await current_table(context, chat_id)
        if table is None or table.player(user.id) is None:
            await s.store.release_players(chat_id, [user.id])  # only if bound to chat_id
        if via_private and refusal.code == "joined":
            await reply(message, t._("✅ You are in the game. Go back to the group!"))
        else:
            await answer(query, message, refusal.text, alert=refusal.alert)
        return
    if via_private:
        await reply(message, t._("✅ You are in the game. Go back to the group!"))
    elif not ready and query is not None:
        # Open the private chat in one tap; the /start there marks the player ready.
        link = r.deep_link(s.bot_username, join_payload(chat_id, outcome.after.gid))
        await query.answer(url=link)
    else:
        await answer(query, message, outcome.answer or t._("You joined the game."), alert=False)


async def answer(
    query: CallbackQuery | None, message: Message | None, text: str, alert: bool = True
) -> None:
    """A plain-text answer: an alert to a press, else a message (escaped: names in refusals
    would otherwise break HTML mode and Telegram would refuse the whole reply)."""
    if query is not None:
        await query.answer(text[:200], show_alert=alert)
    else:
        await reply(message, r.esc(text))


async def current_table(context: Ctx, chat_id: int) -> Table | None:
    record = await svc(context).store.get_game(chat_id)
    return Table.from_dict(record.data) if record else None


async def cmd_join(update: Update, context: Ctx) -> None:
    if not await group_only(update, context):
        return
    chat, user = update.effective_chat, update.effective_user
    assert chat is not None and user is not None
    t = await svc(context).t_group(chat.id)
    await join_lobby(context, chat.id, user, update.effective_message, t)


async def leave_lobby(
    context: Ctx,
    chat_id: int,
    user: User,
    message: Message | None,
    query: CallbackQuery | None,
    t: Translator,
) -> None:
    s = svc(context)
    try:  # refusals are answered outside the lock (see join_lobby)
        async with s.chat_lock(chat_id):
            _, outcome = await s.store.update_game(
                chat_id, lambda rec: flow.apply_leave(rec, user.id, t)
            )
            await s.store.release_players(chat_id, [user.id])
            if not outcome.after.players:
                record = await s.store.get_game(chat_id)
                if record is not None:
                    await s.store.delete_game(chat_id, record.version)
                (await s.narrator(chat_id, outcome.after)).lobby(
                    outcome.after, closed=t._("Everybody left: the game is cancelled.")
                )
            else:
                (await s.narrator(chat_id, outcome.after)).lobby(outcome.after)
    except NoGame:
        await answer(query, message, t._("There is no open game. /newgame opens one."))
        return
    except flow.Refusal as refusal:
        await answer(query, message, refusal.text, alert=refusal.alert)
        return
    await answer(query, message, outcome.answer or "", alert=False)


async def cmd_leave(update: Update, context: Ctx) -> None:
    if not await group_only(update, context):
        return
    chat, user = update.effective_chat, update.effective_user
    assert chat is not None and user is not None
    t = await svc(context).t_group(chat.id)
    await leave_lobby(context, chat.id, user, update.effective_message, None, t)


async def start_game(
    context: Ctx,
    chat_id: int,
    user: User,
    message: Message | None,
    query: CallbackQuery | None,
    t: Translator,
) -> None:
    s = svc(context)
    table = await current_table(context, chat_id)
    if table is None:
        await answer(query, message, t._("There is no open game. /newgame opens one."))
        return
    admin = user.id != table.host and await is_admin(context, chat_id, user.id)
    group = await s.store.get_group(chat_id)
    options = {
        "shuffle_seats": bool(group.get("shuffle_seats")),
        "rebalanced": bool(group.get("rebalanced")),
        "timer": preset_seconds(group.get("timers"), s.config.timers),
    }
    seed = s.new_seed()
    try:  # refusals are answered outside the lock (see join_lobby)
        async with s.chat_lock(chat_id):
            _, outcome = await s.store.update_game(
                chat_id, lambda rec: flow.apply_start(rec, user.id, admin, seed, options, t)
            )
            if query is not None:
                await query.answer()
            (await s.narrator(chat_id, outcome.after)).started(outcome)
    except NoGame:
        await answer(query, message, t._("There is no open game. /newgame opens one."))
        return
    except flow.Refusal as refusal:
        await answer(query, message, refusal.text, alert=True)
        return
    jobs.arm(context.application, chat_id, outcome.after)
    log.info(
        "game %s started in chat %s with %d players",
        outcome.after.gid,
        chat_id,
        len(outcome.after.players),
    )


async def cmd_startgame(update: Update, context: Ctx) -> None:
    if not await group_only(update, context):
        return
    chat, user = update.effective_chat, update.effective_user
    assert chat is not None and user is not None
    t = await svc(context).t_group(chat.id)
    await start_game(context, chat.id, user, update.effective_message, None, t)


async def cmd_cancelgame(update: Update, context: Ctx) -> None:
    if not await group_only(update, context):
        return
    s = svc(context)
    chat, user, message = update.effective_chat, update.effective_user, update.effective_message
    assert chat is not None and user is not None
    t = await s.t_group(chat.id)
    table = await current_table(context, chat.id)
    if table is None:
        await reply(message, t._("There is no game to cancel."))
        return
    if user.id != table.host and not await is_admin(context, chat.id, user.id):
        await reply(message, t._("Only the host or a group admin can cancel the game."))
        return
    kb = InlineKeyboardMarkup(
        [
            [
                InlineKeyboardButton(
                    t._("Yes, cancel it"), callback_data=cb.game_data(table.gid, 0, cb.CANCEL_YES)
                ),
                InlineKeyboardButton(
                    t._("No, keep playing"), callback_data=cb.game_data(table.gid, 0, cb.CANCEL_NO)
                ),
            ]
        ]
    )
    await reply(message, t._("Cancel the current game? This cannot be undone."), kb)


async def cancel_confirmed(
    context: Ctx, query: CallbackQuery, press: cb.GamePress, t: Translator
) -> None:
    s = svc(context)
    message = query.message
    assert message is not None and query.from_user is not None
    chat_id = message.chat.id
    table = await current_table(context, chat_id)
    if table is None or table.gid != press.game_id:
        await query.answer(t._("This button belongs to a game that is over."), show_alert=True)
        return
    user = query.from_user
    if user.id != table.host and not await is_admin(context, chat_id, user.id):
        await query.answer(
            t._("Only the host or a group admin can cancel the game."), show_alert=True
        )
        return
    async with s.chat_lock(chat_id):
        record = await s.store.get_game(chat_id)
        if record is None or record.data.get("gid") != press.game_id:
            await query.answer(t._("This game is over."), show_alert=True)
            return
        await s.store.delete_game(chat_id, record.version)
        await s.store.release_players(chat_id, [p.id for p in table.players])
    jobs.disarm(context.application, chat_id)
    await query.answer()
    cancelled = t._(
        "🛑 The game was cancelled by {name}.",
        name=r.name([clean_name(user.full_name, "?")], 0),
    )
    s.outbox.edit(chat_id, cancelled, None, message_id=message.message_id)
    take_buttons_off(s, chat_id, table, t, cancelled)


def take_buttons_off(s: Services, chat_id: int, table: Table, t: Translator, note: str) -> None:
    """A cancelled game's lobby, board and round message lose their buttons, so nobody
    presses into a game that no longer exists."""
    msgs = table.msgs
    if table.game is None:
        if msgs.get("lobby"):
            s.outbox.edit(
                chat_id,
                r.lobby_text(t, table, closed=note),
                None,
                key=table.key("lobby"),
                message_id=msgs["lobby"],
            )
        return
    if msgs.get("board"):
        s.outbox.edit(
            chat_id, r.board_text(t, table), None, key=table.key("board"), message_id=msgs["board"]
        )
    name = f"round{table.game.round}"
    if msgs.get(name):
        s.outbox.edit(
            chat_id, r.round_text(t, table), None, key=table.key(name), message_id=msgs[name]
        )


# ------------------------------------------------------------------------------ in game


async def cmd_board(update: Update, context: Ctx) -> None:
    if not await group_only(update, context):
        return
    s = svc(context)
    chat = update.effective_chat
    assert chat is not None
    t = await s.t_group(chat.id)
    table = await current_table(context, chat.id)
    if table is None:
        await reply(update.effective_message, t._("No game is running. /newgame opens one."))
        return
    narrator = await s.narrator(chat.id, table)
    if table.game is None:
        table.msgs.pop("lobby", None)
        s.outbox.send(
            chat.id,
            r.lobby_text(t, table),
            r.lobby_keyboard(t, table, s.bot_username, chat.id),
            key=table.key("lobby2"),
            on_sent=s.id_recorder(chat.id, table.gid, "lobby"),
        )
        return
    narrator.board(table, new=True)


async def cmd_history(update: Update, context: Ctx) -> None:
    s = svc(context)
    chat = update.effective_chat
    if chat is None:
        return
    if not is_group(chat):
        await group_only(update, context)
        return
    t = await s.t_group(chat.id)
    table = await current_table(context, chat.id)
    if table is None or table.game is None:
        finished = await s.store.finished_games(chat.id, limit=1)
        if finished:
            last = Table.from_dict(finished[0].data)
            if last.game is not None and last.game.is_over:
                await reply(update.effective_message, r.game_over_text(t, last))
                return
        await reply(update.effective_message, t._("No game is running. /newgame opens one."))
        return
    await reply(update.effective_message, r.history_text(t, table))


PING_EVERY = 60.0  # seconds between two /ping nudges in one group


async def cmd_ping(update: Update, context: Ctx) -> None:
    """Nudge whoever the game waits for (useful above all without timers); rate-limited."""
    if not await group_only(update, context):
        return
    s = svc(context)
    chat = update.effective_chat
    assert chat is not None
    t = await s.t_group(chat.id)
    table = await current_table(context, chat.id)
    if table is None or table.game is None or table.game.is_over:
        await reply(update.effective_message, t._("No game is running. /newgame opens one."))
        return
    wait = s.ping_wait(chat.id, PING_EVERY)
    if wait > 0:
        await reply(update.effective_message, rt.ping_too_soon_text(t, math.ceil(wait)))
        return
    await jobs.nudge(s, chat.id, table, None)


async def resend_prompt(context: Ctx, chat_id: int, user_id: int) -> bool:
    """Send the current private prompt again if it belongs to ``user_id``."""
    s = svc(context)
    table = await current_table(context, chat_id)
    if table is None or table.game is None or table.game.is_over:
        return False
    game = table.game
    if game.phase not in flow.PRIVATE_PHASES:
        return False
    seat = game.chancellor if game.phase.value == "chancellor_enact" else game.president
    if table.at(seat).id != user_id:
        return False
    (await s.narrator(chat_id, table)).open_prompt(table)
    return True


# ------------------------------------------------------------------------------ buttons


async def on_callback(update: Update, context: Ctx) -> None:
    s = svc(context)
    query = update.callback_query
    if query is None or query.from_user is None:
        return
    user = query.from_user
    t = await s.t_user(user)
    if not await s.store.first_seen(f"cq:{query.id}"):
        return  # the same press delivered twice is applied once
    press = cb.parse(query.data)
    if press is None:
        await query.answer(t._("This button is not valid."), show_alert=True)
        return
    if isinstance(press, cb.FreePress):
        await on_free_press(context, query, press, t)
        return
    message = query.message
    chat = message.chat if message is not None else None
    if chat is None:
        await query.answer(t._("This button is not valid."), show_alert=True)
        return
    if is_group(chat):
        chat_id = chat.id
        tg = await s.t_group(chat_id)
    else:
        group_id = await s.store.player_chat(user.id)
        if group_id is None:
            await query.answer(t._("This button belongs to a game that is over."), show_alert=True)
            return
        chat_id, tg = group_id, t
    op = press.op
    if op == cb.JOIN:
        await join_lobby(context, chat_id, user, None, t, gid=press.game_id, query=query)
    elif op == cb.LEAVE:
        await leave_lobby(context, chat_id, user, None, query, t)
    elif op == cb.START:
        await start_game(context, chat_id, user, None, query, t)
    elif op == cb.CANCEL_YES:
        await cancel_confirmed(context, query, press, tg)
    elif op == cb.CANCEL_NO:
        table = await current_table(context, chat_id)
        if (
            table is not None
            and table.gid == press.game_id
            and user.id != table.host
            and not await is_admin(context, chat_id, user.id)
        ):  # others may not dismiss the host's question either
            await query.answer(
                tg._("Only the host or a group admin can cancel the game."), show_alert=True
            )
            return
        await query.answer()
        if message is not None:
            s.outbox.edit(chat_id, tg._("The game goes on."), None, message_id=message.message_id)
    elif op == cb.MY_ROLE:
        await my_role(context, query, chat_id, press, t)
    else:
        await game_press(context, query, chat_id, press, t)


async def my_role(
    context: Ctx, query: CallbackQuery, chat_id: int, press: cb.GamePress, t: Translator
) -> None:
    table = await current_table(context, chat_id)
    if table is None or table.gid != press.game_id or table.game is None:
        await query.answer(t._("This button belongs to a game that is over."), show_alert=True)
        return
    seat = table.seat_of(query.from_user.id)
    if seat is None:
        await query.answer(t._("You are not playing in this game."), show_alert=True)
        return
    await query.answer(r.role_alert(t, table, seat), show_alert=True)


async def game_press(
    context: Ctx, query: CallbackQuery, chat_id: int, press: cb.GamePress, t: Translator
) -> None:
    s = svc(context)
    user = query.from_user
    async with s.chat_lock(chat_id):
        try:
            _, outcome = await s.store.update_game(
                chat_id, lambda rec: flow.apply_press(rec, press, user.id, t)
            )
        except NoGame:
            await query.answer(t._("This button belongs to a game that is over."), show_alert=True)
            return
        except flow.Refusal as refusal:
            await query.answer(refusal.text[:200], show_alert=refusal.alert)
            return
        await query.answer(outcome.answer[:200] if outcome.answer else None)
        narrator = await s.narrator(chat_id, outcome.after)
        narrator.played(outcome)
    if outcome.before is not None and outcome.before.step != outcome.after.step:
        jobs.arm(context.application, chat_id, outcome.after)
    if outcome.finished:
        await finish(context, chat_id, outcome.after)


async def finish(context: Ctx, chat_id: int, table: Table) -> None:
    s = svc(context)
    game = table.game
    assert game is not None and game.winner is not None and game.condition is not None
    await s.store.release_players(chat_id, [p.id for p in table.players])
    players = []
    for seat, role in enumerate(game.roles):
        p = table.at(seat)
        role_key = {"L": "liberal", "F": "fascist", "H": "hitler"}[role]
        side = "liberal" if role == "L" else "fascist"
        players.append(
            {"user_id": p.id, "name": p.name, "role": role_key, "won": side == game.winner.value}
        )
    await s.store.record_result(
        chat_id,
        {
            "game_id": table.gid,
            "winner": game.winner.value,
            "condition": game.condition.value,
            "players": players,
        },
    )
    log.info("game %s in chat %s ended: %s", table.gid, chat_id, game.condition.value)


# ------------------------------------------------------------------------------ language, rules


async def cmd_lang(update: Update, context: Ctx) -> None:
    s = svc(context)
    chat, user, message = update.effective_chat, update.effective_user, update.effective_message
    if chat is None or user is None:
        return
    group = is_group(chat)
    t = await s.t_group(chat.id) if group else await s.t_user(user)
    if group and not await may_set_group_lang(context, chat.id, user.id):
        await reply(message, t._("Only a group admin can change the language during a game."))
        return
    scope = "g" if group else "u"
    if context.args:
        code = normalize(context.args[0])
        if code is None:
            await reply(
                message,
                t._(
                    "Unknown language. Available: {codes}.",
                    codes=", ".join(f"{c} ({LANGUAGE_NAMES[c]})" for c in LANGUAGES),
                ),
            )
            return
        await set_language(context, chat.id if group else user.id, group, code)
        await reply(message, language_changed_text(code))
        return
    await reply(message, language_prompt_text(t), r.language_keyboard(scope))


async def may_set_group_lang(context: Ctx, chat_id: int, user_id: int) -> bool:
    record = await svc(context).store.get_game(chat_id)
    if record is None or record.status == "lobby":
        return True
    return await is_admin(context, chat_id, user_id)


async def set_language(context: Ctx, target: int, group: bool, code: str) -> None:
    s = svc(context)
    if group:
        await s.store.update_group(target, {"lang": code})
        s.forget_group_lang(target)
        table = await current_table(context, target)
        if table is not None and table.game is not None and not table.game.is_over:
            narrator = await s.narrator(target, table)
            narrator.board(table)
            narrator.round(table)
        elif table is not None:
            (await s.narrator(target, table)).lobby(table)
    else:
        await s.store.update_user(target, {"lang": code})
        s.forget_user_lang(target)


async def on_free_press(
    context: Ctx, query: CallbackQuery, press: cb.FreePress, t: Translator
) -> None:
    message = query.message
    if press.op == cb.LANG:
        scope, code = press.arg[:1], press.arg[1:]
        if code not in LANGUAGES or scope not in ("g", "u") or message is None:
            await query.answer(t._("This button is not valid."), show_alert=True)
            return
        user = query.from_user
        if scope == "g":
            if not is_group(message.chat):
                await query.answer(t._("This button is not valid."), show_alert=True)
                return
            if not await may_set_group_lang(context, message.chat.id, user.id):
                await query.answer(
                    t._("Only a group admin can change the language during a game."),
                    show_alert=True,
                )
                return
            await set_language(context, message.chat.id, True, code)
        else:
            await set_language(context, user.id, False, code)
        await query.answer()
        svc(context).outbox.edit(
            message.chat.id, language_changed_text(code), None, message_id=message.message_id
        )
    elif press.op == cb.RULES:
        if press.arg not in rules_text.SECTIONS or message is None:
            await query.answer(t._("This button is not valid."), show_alert=True)
            return
        s = svc(context)
        tl = await s.t_group(message.chat.id) if is_group(message.chat) else t
        await query.answer()
        s.outbox.edit(
            message.chat.id,
            rules_text.render_section(tl, press.arg),
            rules_keyboard(tl, press.arg),
            message_id=message.message_id,
        )


def rules_keyboard(t: Translator, current: str | None = None) -> InlineKeyboardMarkup:
    buttons = [
        InlineKeyboardButton(
            ("• " if key == current else "") + rules_text.section_title(t, key),
            callback_data=cb.free_data(cb.RULES, key),
        )
        for key in rules_text.SECTIONS
    ]
    return InlineKeyboardMarkup(r.chunk(buttons, 2))


async def cmd_rules(update: Update, context: Ctx) -> None:
    s = svc(context)
    chat, user = update.effective_chat, update.effective_user
    if chat is None or user is None:
        return
    t = await s.t_group(chat.id) if is_group(chat) else await s.t_user(user)
    await reply(update.effective_message, rules_text.rules_intro(t), rules_keyboard(t))


# ------------------------------------------------------------------------------ errors


async def on_error(update: object, context: Ctx) -> None:
    error = context.error
    if isinstance(error, StoreUnavailable):
        log.warning("store unavailable: %s", error)
        await tell_unavailable(update, context)
        return
    log.error("unhandled error", exc_info=error)


async def tell_unavailable(update: object, context: Ctx) -> None:
    if not isinstance(update, Update):
        return
    user = update.effective_user
    t = translator((normalize(user.language_code) if user else None) or "en")
    text = t._("⚠️ I am temporarily unavailable. Please try again in a moment.")
    try:
        if update.callback_query is not None:
            await update.callback_query.answer(text, show_alert=True)
        elif update.effective_message is not None:
            await update.effective_message.reply_text(text)
    except Exception:  # the answer is best effort while the backend is down
        log.debug("could not tell the user about the outage", exc_info=True)
