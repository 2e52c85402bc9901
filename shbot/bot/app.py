"""Building the Application: handlers, rate limiting, localized menus, restart recovery."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from telegram import (
    BotCommand,
    BotCommandScopeAllGroupChats,
    BotCommandScopeAllPrivateChats,
    Update,
)
from telegram.ext import (
    Application,
    ApplicationBuilder,
    BaseRateLimiter,
    CallbackQueryHandler,
    ChatMemberHandler,
    CommandHandler,
    MessageHandler,
    TypeHandler,
    filters,
)
from telegram.request import BaseRequest

from shbot.i18n import LANGUAGES, Translator, translator
from shbot.storage import Store
from shbot.table import Outcome, Table

from . import handlers as h
from . import jobs, logs, robots, settings
from .config import Config
from .delivery.limiter import ChatRateLimiter
from .delivery.outbox import Outbox
from .delivery.pacer import Pacer
from .handlers import admin as h_admin
from .handlers import common as h_common
from .handlers import join_deadline as h_join
from .handlers import members as h_members
from .handlers import mylog as h_mylog
from .handlers import practice as h_practice
from .handlers import rematch as h_rematch
from .handlers import seats as h_seats
from .handlers import talk as h_talk
from .services import Services

log = logging.getLogger(__name__)


def rate_limiter() -> BaseRateLimiter[Any]:
    """Every call to a chat under Telegram's 30 per second; a 429 stays in its chat (PTB's
    AIORateLimiter held every call of the process on any 429: see :mod:`.delivery.limiter`).

    Per-group pacing is the outbox's (:mod:`.delivery.pacer`): it chooses which message goes
    when a group's window allows, so a callback answer or an admin check never waits behind
    a group's messages."""
    return ChatRateLimiter()


def group_commands(t: Translator) -> list[BotCommand]:
    return [
        BotCommand("newgame", t._("Open a new game")),
        BotCommand("join", t._("Join the open game")),
        BotCommand("leave", t._("Leave before the start")),
        BotCommand("startgame", t._("Start the game")),
        BotCommand("addbot", t._("Add computer players to the lobby")),
        BotCommand("removebot", t._("Remove a computer player")),
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
        BotCommand("practice", t._("Practise alone against computer players")),
        BotCommand("mylog", t._("What I know of my game")),
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


#: A game's newest committed presses a new process keeps in mind, to answer one that comes
#: again (the process that committed it may have died first); more than a table sees at once.
INHERITED_PRESSES = 16


async def recover(app: Application[Any, Any, Any, Any, Any, Any]) -> int:
    """After a restart (clean or not) every lobby and running game continues.

    What each game still owes is in the store (a slot is marked delivered only once Telegram
    accepted it), so the outbox delivers exactly that, paced from the group's stored call
    times; every deadline is armed again (one already past fires at once). The players'
    claims are made again (a crash may have come between opening a lobby and binding its
    host), or released for a game that ended (between its last change and the release).
    """
    s: Services = app.bot_data["svc"]
    count = 0
    for record in await s.store.active_games():
        count += 1
        table = Table.from_dict(record.data)
        players = [p.id for p in table.players]
        if table.ending:
            await s.store.release_players(record.chat_id, players)
        else:
            for user_id in players:  # idempotent; a player busy elsewhere stays there
                await s.store.claim_player(user_id, record.chat_id)
        replies = (await s.store.get_group(record.chat_id)).get("reply_calls", [])
        s.outbox.pacer.seed(record.chat_id, [*table.calls, *map(float, replies)])
        s.outbox.committed(record.chat_id, record)
        s.inherited.update(table.seen[-INHERITED_PRESSES:])
        jobs.arm(app, record.chat_id, table)
        h_join.arm_lobby(app, record.chat_id, table)
        robots.arm(app, record.chat_id, table)
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
        webapp = app.bot_data.get("webapp")
        if webapp is not None:  # the Mini App (shbot/webapp), when SHBOT_WEBAPP_URL is set
            await webapp.start(config.webapp_listen, config.webapp_port)

    async def post_shutdown(app: Application[Any, Any, Any, Any, Any, Any]) -> None:
        s: Services = app.bot_data["svc"]
        webapp = app.bot_data.get("webapp")
        if webapp is not None:
            await webapp.stop()
        try:
            await s.outbox.join(timeout=5)
        except TimeoutError:
            log.warning("outbox not drained at shutdown: the rest is delivered after restart")
        await s.outbox.close()

    app = builder.post_init(post_init).post_shutdown(post_shutdown).build()
    outbox = Outbox(app.bot, Pacer(_loop_clock))
    services = Services(config=config, store=store, outbox=outbox, bot=app.bot)

    async def after(chat_id: int, outcome: Outcome) -> None:
        if outcome.started:
            app.create_task(h_mylog.remember_game(store, chat_id, outcome.table))
        if outcome.release:
            await store.release_players(chat_id, outcome.release)
        jobs.arm(app, chat_id, outcome.table)
        h_join.arm_lobby(app, chat_id, outcome.table)
        await robots.after(app, chat_id, outcome)
        if outcome.ended:
            jobs.disarm(app, chat_id)

    services.commit.after = after
    app.bot_data["svc"] = services
    if config.webapp_url:
        from shbot.webapp.server import WebApp  # Tornado's server only when it is on

        webapp = WebApp(services, config.webapp_path)
        services.commit.watch = webapp.hub.changed
        app.bot_data["webapp"] = webapp
    register(app)
    return app


def _loop_clock() -> float:
    """The running event loop's clock (virtual under looptime in tests)."""
    return asyncio.get_running_loop().time()


def register(app: Application[Any, Any, Any, Any, Any, Any]) -> None:
    """All wiring in one place: commands, one callback handler per family, errors."""
    # First of all: tag the log lines of this update with its chat; then drop floods (the
    # same button or command again and again, malformed data) before any work is done.
    app.add_handler(TypeHandler(Update, logs.bind_update), group=-100)
    app.add_handler(TypeHandler(Update, h_common.flood_guard), group=-50)
    commands = {
        "start": h.cmd_start,
        "help": h.cmd_help,
        "newgame": h.cmd_newgame,
        "join": h.cmd_join,
        "leave": h.cmd_leave,
        "startgame": h.cmd_startgame,
        "cancelgame": h_practice.cmd_cancelgame,  # a practice game ends in private too
        "board": h.cmd_board,
        "history": h.cmd_history,
        "rules": h.cmd_rules,
        "lang": h.cmd_lang,
        "ping": h.cmd_ping,
        "settings": settings.cmd_settings,
        "stats": h_common.informational(settings.cmd_stats),
        "nextgame": settings.cmd_nextgame,
        "addbot": h_seats.cmd_addbot,
        "removebot": h_seats.cmd_removebot,
        "practice": h_practice.cmd_practice,
        "mylog": h_mylog.cmd_mylog,
    }
    # New messages only (an edited command is not sent again), with a sender (a message
    # without one reaches no handler), not a linked channel's post forwarded automatically.
    sent = filters.UpdateType.MESSAGE & filters.USER & ~filters.IS_AUTOMATIC_FORWARD
    people = sent & ~filters.SenderChat.ALL
    # /settings posted as a chat (an anonymous admin, a channel): the menu opens in the group.
    as_chat = sent & filters.SenderChat.ALL
    app.add_handler(CommandHandler("settings", h_admin.cmd_settings_anonymous, filters=as_chat))
    for name, callback in commands.items():
        app.add_handler(CommandHandler(name, callback, filters=sent))
    # ASCII only and anchored at the very end (no Unicode digits, no trailing newline).
    game = r"^[a-z0-9]{4,12}:[0-9]{1,6}:"
    app.add_handler(CallbackQueryHandler(h.on_lobby_press, pattern=game + r"(j|l|s)\Z"))
    app.add_handler(
        CallbackQueryHandler(
            h.on_game_press, pattern=game + r"(n|v|d|e|vp|va|p)(:[A-Za-z0-9_-]{1,16})?\Z"
        )
    )
    app.add_handler(CallbackQueryHandler(h.on_my_role, pattern=game + r"r\Z"))
    app.add_handler(CallbackQueryHandler(h.on_cancel_press, pattern=game + r"(cy|cn)\Z"))
    app.add_handler(
        CallbackQueryHandler(h_talk.on_claim, pattern=game + r"c:[A-Za-z0-9_-]{1,16}\Z")
    )
    app.add_handler(CallbackQueryHandler(h_seats.on_seat_press, pattern=game + r"(ba|br|tb)\Z"))
    app.add_handler(CallbackQueryHandler(h_mylog.on_mylog_press, pattern=game + r"k(:all)?\Z"))
    app.add_handler(CallbackQueryHandler(h_mylog.on_back_press, pattern=game + r"bk\Z"))
    app.add_handler(CallbackQueryHandler(h_rematch.on_rematch_press, pattern=game + r"rm\Z"))
    app.add_handler(CallbackQueryHandler(h.on_lang_press, pattern=r"^@lang:[A-Za-z0-9_-]{1,24}\Z"))
    app.add_handler(
        CallbackQueryHandler(h.on_rules_press, pattern=r"^@rules:[A-Za-z0-9_-]{1,24}\Z")
    )
    app.add_handler(
        CallbackQueryHandler(settings.on_callback, pattern=r"^@set:[A-Za-z0-9_-]{1,59}\Z")
    )
    app.add_handler(CallbackQueryHandler(h.on_invalid_press))
    app.add_handler(ChatMemberHandler(h.on_my_chat_member, ChatMemberHandler.MY_CHAT_MEMBER))
    app.add_handler(ChatMemberHandler(h_members.on_chat_member, ChatMemberHandler.CHAT_MEMBER))
    app.add_handler(MessageHandler(filters.StatusUpdate.LEFT_CHAT_MEMBER, h_members.on_left_member))
    app.add_handler(MessageHandler(filters.StatusUpdate.MIGRATE, h.on_migrate))
    app.add_handler(MessageHandler(filters.COMMAND & people, h.cmd_unknown))
    app.add_error_handler(h.on_error)
    # Last of all: the update's press (if any) is done, answered or not (answers.Presses).
    app.add_handler(TypeHandler(Update, h_common.press_done), group=100)
