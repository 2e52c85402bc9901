"""Building the Application: handlers, rate limiting, localized menus, restart recovery."""

from __future__ import annotations

import logging
from typing import Any

from telegram import (
    BotCommand,
    BotCommandScopeAllGroupChats,
    BotCommandScopeAllPrivateChats,
    Update,
)
from telegram.ext import (
    AIORateLimiter,
    Application,
    ApplicationBuilder,
    CallbackQueryHandler,
    CommandHandler,
    MessageHandler,
    TypeHandler,
    filters,
)
from telegram.request import BaseRequest

from shbot.i18n import LANGUAGES, Translator, translator
from shbot.storage import Store

from . import handlers as h
from . import jobs, logs, settings
from . import render as r
from .config import Config
from .flow import PRIVATE_PHASES
from .model import Table
from .outbox import Outbox
from .services import Services

log = logging.getLogger(__name__)

# Telegram allows a group about 20 messages a minute, edits included. AIORateLimiter's group
# limiter is a leaky bucket: a burst of `max_rate` plus a steady drip, so the most calls any
# 60 s window can hold is max_rate + 60 * max_rate / period = 10 + 60 * 10 / 63 ≈ 19.5 < 20.
GROUP_MAX_RATE = 10
GROUP_TIME_PERIOD = 63


def rate_limiter() -> AIORateLimiter:
    return AIORateLimiter(
        overall_max_rate=25,
        overall_time_period=1,
        group_max_rate=GROUP_MAX_RATE,
        group_time_period=GROUP_TIME_PERIOD,
        max_retries=5,
    )


def group_commands(t: Translator) -> list[BotCommand]:
    return [
        BotCommand("newgame", t._("Open a new game")),
        BotCommand("join", t._("Join the open game")),
        BotCommand("leave", t._("Leave before the start")),
        BotCommand("startgame", t._("Start the game")),
        BotCommand("board", t._("Show the board")),
        BotCommand("history", t._("What happened so far")),
        BotCommand("cancelgame", t._("Cancel the game")),
        BotCommand("rules", t._("The rules")),
        BotCommand("lang", t._("Change the language")),
        BotCommand("ping", t._("Remind whom the game waits for")),
        BotCommand("settings", t._("Group settings (admins)")),
        BotCommand("stats", t._("Statistics of this group")),
        BotCommand("nextgame", t._("Tell me when the next game opens")),
        BotCommand("help", t._("Help")),
    ]


def private_commands(t: Translator) -> list[BotCommand]:
    return [
        BotCommand("start", t._("About this bot")),
        BotCommand("rules", t._("The rules")),
        BotCommand("lang", t._("Change the language")),
        BotCommand("stats", t._("Your statistics")),
        BotCommand("help", t._("Help")),
    ]


def description(t: Translator) -> str:
    return t._(
        "Play Secret Hitler in your group chat: 5 to 10 players, votes with buttons, secret "
        "roles and policy cards in private chat. Add me to a group and send /newgame."
    )


def short_description(t: Translator) -> str:
    return t._("Secret Hitler for Telegram groups, in English, Japanese and French.")


async def setup_menus(app: Application[Any, Any, Any, Any, Any, Any]) -> None:
    bot = app.bot
    for code in LANGUAGES:
        t = translator(code)
        lang = None if code == "en" else code
        await bot.set_my_commands(
            group_commands(t), scope=BotCommandScopeAllGroupChats(), language_code=lang
        )
        await bot.set_my_commands(
            private_commands(t), scope=BotCommandScopeAllPrivateChats(), language_code=lang
        )
        await bot.set_my_description(description(t), language_code=lang)
        await bot.set_my_short_description(short_description(t), language_code=lang)


async def recover(app: Application[Any, Any, Any, Any, Any, Any]) -> int:
    """After a restart: every lobby and running game continues.

    A stopped or killed process may not have delivered its last messages, and nothing tells
    what Telegram shows: the lobby, or the board and the current round message (whose
    buttons are the current step's), are edited into their current form (sent if their id
    is unknown) and the current private prompt is sent if it never was. An edit that
    changes nothing costs one refused call; a lost edit would leave the game without buttons.
    """
    s: Services = app.bot_data["svc"]
    count = 0
    for record in await s.store.active_games():
        count += 1
        table = Table.from_dict(record.data)
        if table.game is None:
            (await s.narrator(record.chat_id, table)).lobby(table)
            continue
        if table.game.is_over:
            continue
        narrator = await s.narrator(record.chat_id, table)
        narrator.board(table)
        narrator.round(table)
        if table.game.phase in PRIVATE_PHASES and f"prompt{table.step}" not in table.msgs:
            narrator.open_prompt(table)
        jobs.arm(app, record.chat_id, table)
    log.info("recovered %d active games", count)
    return count


def build_application(
    config: Config,
    store: Store,
    *,
    request: BaseRequest | None = None,
    menus: bool = True,
) -> Application[Any, Any, Any, Any, Any, Any]:
    """The bot, ready to run; ``request`` replaces the HTTP layer (tests use a fake API)."""
    builder = (
        ApplicationBuilder()
        .token(config.token)
        .base_url(config.base_url)
        .base_file_url(config.base_file_url)
        .rate_limiter(rate_limiter())
        .concurrent_updates(True)
    )
    if request is not None:
        builder = builder.request(request).get_updates_request(request)

    async def post_init(app: Application[Any, Any, Any, Any, Any, Any]) -> None:
        s: Services = app.bot_data["svc"]
        s.bot_username = app.bot.username or ""
        if menus:
            try:
                await setup_menus(app)
            except Exception:  # menus are cosmetic: never block the start on them
                log.warning("could not set the command menus", exc_info=True)
        await recover(app)

    async def post_shutdown(app: Application[Any, Any, Any, Any, Any, Any]) -> None:
        s: Services = app.bot_data["svc"]
        try:
            await s.outbox.join(timeout=5)
        except TimeoutError:
            log.warning("outbox not drained at shutdown")
        await s.outbox.close()

    app = builder.post_init(post_init).post_shutdown(post_shutdown).build()
    outbox = Outbox(app.bot)
    services = Services(config=config, store=store, outbox=outbox)
    outbox.on_forbidden = lambda chat_id: on_forbidden(services, chat_id)
    app.bot_data["svc"] = services
    register(app)
    return app


async def on_forbidden(s: Services, user_id: int) -> None:
    """A player blocked the bot or never opened the private chat: say so in their group."""
    if user_id < 0:
        return
    await s.store.update_user(user_id, {"dm": False})
    chat_id = await s.store.player_chat(user_id)
    if chat_id is None:
        return
    record = await s.store.get_game(chat_id)
    if record is None:
        return
    table = Table.from_dict(record.data)
    player = table.player(user_id)
    if player is None:
        return
    t = await s.t_group(chat_id)
    kb = r.private_chat_keyboard(t, s.bot_username, "resume")
    s.outbox.send(
        chat_id,
        t._(
            "⚠️ I cannot write to {name} in private. {name}, please open a private chat with "
            "me and press Start: I will send you what you missed.",
            name=f"{r.FSI}{r.esc(player.name)}{r.PDI}",  # isolated, like every name
        ),
        kb,
    )


def register(app: Application[Any, Any, Any, Any, Any, Any]) -> None:
    # First of all: tag the log lines of this update with its chat.
    app.add_handler(TypeHandler(Update, logs.bind_update), group=-100)
    commands = {
        "start": h.cmd_start,
        "help": h.cmd_help,
        "newgame": h.cmd_newgame,
        "join": h.cmd_join,
        "leave": h.cmd_leave,
        "startgame": h.cmd_startgame,
        "cancelgame": h.cmd_cancelgame,
        "board": h.cmd_board,
        "history": h.cmd_history,
        "rules": h.cmd_rules,
        "lang": h.cmd_lang,
        "ping": h.cmd_ping,
        "settings": settings.cmd_settings,
        "stats": settings.cmd_stats,
        "nextgame": settings.cmd_nextgame,
    }
    for name, callback in commands.items():
        app.add_handler(CommandHandler(name, callback))
    app.add_handler(CallbackQueryHandler(settings.on_callback, pattern=r"^@set:"))
    app.add_handler(CallbackQueryHandler(h.on_callback))
    app.add_handler(MessageHandler(filters.COMMAND, h.cmd_unknown))
    app.add_error_handler(h.on_error)
