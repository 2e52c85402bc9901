"""``python -m shbot run`` and ``health``: the bot configured from the environment alone.

``run`` polls Telegram for updates, or serves a webhook when ``SHBOT_WEBHOOK_URL`` is set.
Before that it checks, in order: the configuration (a misspelt ``SHBOT_*`` name included),
the catalogs of every language, the store, and the Bot API (``getMe``). The Bot API may be
unreachable for a while (a container often starts before its network): that is retried
with a growing delay, one log line per attempt. Anything else that cannot work — a
malformed value, missing catalogs, a SQLite file that is not a database, a rejected token,
a refused webhook — ends with one line naming the setting, exit status 2, no traceback.
Nothing printed ever contains the token, the webhook secret or a Redis password.

``health`` is the container's health check: it loads the configuration and the catalogs,
pings the store and checks that a bot runs (in webhook mode its listener accepts
connections; in polling mode a ``shbot run`` on this machine touched its heartbeat file in
the last minute), exiting 0 when all answer and 1 with one line saying what failed.
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Coroutine, Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from telegram import Bot
from telegram.error import Conflict, InvalidToken, NetworkError, RetryAfter, TelegramError

from shbot.i18n import CatalogError, check_catalogs
from shbot.storage import Store, StoreError, open_store
from shbot.webapp import ListenError

from . import logs, start_guards
from .app import build_application
from .config import Config, ConfigError, load_config
from .delivery.sender import retry_seconds

log = logging.getLogger(__name__)

#: The update types the bot handles; Telegram sends nothing else (less traffic, less noise).
#: ``chat_member``: a member who leaves the group or is banned loses their lobby seat at once.
ALLOWED_UPDATES = ["message", "callback_query", "my_chat_member", "chat_member"]
HEALTH_TIMEOUT = 5.0
#: Exit status when the bot cannot start (configuration, catalogs, store, token, webhook).
EXIT_SETUP = 2
#: Waits between attempts to reach the Bot API at start-up: 1, 2, 4 ... then every minute.
BACKOFF_FIRST, BACKOFF_MAX = 1.0, 60.0
#: A polling bot touches its heartbeat file this often; older than HEARTBEAT_STALE: unhealthy.
HEARTBEAT_SECONDS = 10.0
HEARTBEAT_STALE = 60.0


class StartupError(Exception):
    """Why the bot cannot start, in one line that names the setting to fix."""


def run_from_env() -> int:
    try:
        config = load_config()
    except ConfigError as exc:
        print(f"shbot: {exc}", file=sys.stderr)
        return EXIT_SETUP
    handler = logs.configure(config.log_level, config.secrets)
    handler.addFilter(OneLineTelegramErrors())
    try:
        _run(config)
    except ListenError as exc:  # the Mini App's listener (SHBOT_WEBAPP_*)
        print(f"shbot: {exc}", file=sys.stderr)
        return EXIT_SETUP
    except StartupError as exc:
        print(f"shbot: {redact(str(exc), config)}", file=sys.stderr)
        return EXIT_SETUP
    except KeyboardInterrupt:  # Ctrl-C while waiting for the Bot API: no traceback
        print("shbot: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:
        # Not foreseen: the details go to the log (one line, secrets blanked), the reason
        # to the last line of stderr.
        log.error("stopped by an unexpected error", exc_info=True)
        reason = redact(f"{type(exc).__name__}: {exc}".splitlines()[0], config)
        print(f"shbot: stopped by an unexpected error: {reason}", file=sys.stderr)
        return 1
    return 0


def _run(config: Config) -> None:
    try:
        log.info("catalogs: %s", check_catalogs())
    except CatalogError as exc:
        raise StartupError(
            f"translations unavailable: {exc} (reinstall shbot, or set SHBOT_LOCALES to a "
            "directory of catalogs)"
        ) from None
    asyncio.run(_check_store(config))
    asyncio.run(wait_for_bot_api(config))
    # Opened anew (it connects lazily): a store used in the loop of the check above would
    # keep Redis connections bound to that closed loop ("Event loop is closed" at start).
    store = open_configured_store(config)
    app = build_application(config, store)
    if config.webapp_url:
        log.info(
            "Mini App at %s (listening on %s:%d)",
            config.webapp_url,
            config.webapp_listen,
            config.webapp_port,
        )
    if config.webhook_url:
        busy = start_guards.port_problem(config.webhook_listen, config.webhook_port)
        if busy is not None:
            raise StartupError(_cannot_listen(config, busy))
        log.info(
            "webhook mode: listening on %s:%d%s",
            config.webhook_listen,
            config.webhook_port,
            config.webhook_path,
        )
        try:
            _fresh_event_loop()
            app.run_webhook(**webhook_options(config))
        except InvalidToken:
            raise StartupError(token_rejected(config)) from None
        except TelegramError as exc:
            raise StartupError(
                f"SHBOT_WEBHOOK_URL: the Bot API refused the webhook {config.webhook_url}: "
                f"{exc.message}"
            ) from None
        except OSError as exc:  # taken between the check and the bind
            asyncio.run(start_guards.forget_webhook(config))
            raise StartupError(_cannot_listen(config, exc.strerror or str(exc))) from None
        return
    beat = heartbeat_path(config)
    touch = _heartbeat(beat)
    asyncio.run(touch(None))  # now: a job added before the JobQueue starts fires one period late
    job_queue = app.job_queue
    if job_queue is not None:  # always there (the job-queue extra is a dependency)
        job_queue.run_repeating(touch, interval=HEARTBEAT_SECONDS, name="heartbeat")
    log.info("polling mode (heartbeat file %s)", beat)
    conflict = start_guards.PollingConflict(app.stop_running)
    app.add_error_handler(conflict)
    try:
        _fresh_event_loop()
        app.run_polling(allowed_updates=ALLOWED_UPDATES)
    except InvalidToken:
        raise StartupError(token_rejected(config)) from None
    finally:
        beat.unlink(missing_ok=True)  # stopped: `shbot health` says so at once
    if conflict.fatal is not None:
        raise StartupError(start_guards.conflict_line(conflict.fatal))


def _fresh_event_loop() -> None:
    """PTB runs on the current event loop; the checks before (asyncio.run) closed theirs, and
    PTB 22.0 does not make a new one by itself ("no current event loop")."""
    asyncio.set_event_loop(asyncio.new_event_loop())


def _cannot_listen(config: Config, reason: str) -> str:
    return (
        f"SHBOT_WEBHOOK_LISTEN/SHBOT_WEBHOOK_PORT: cannot listen on "
        f"{config.webhook_listen}:{config.webhook_port}: {reason}"
    )


def webhook_options(config: Config) -> dict[str, Any]:
    """Arguments for ``Application.run_webhook`` / ``Updater.start_webhook``.

    The listener serves the public URL's path (a reverse proxy in front terminates TLS and
    forwards that path); Telegram sends the secret in a header and PTB answers 403 to any
    request without it.
    """
    return {
        "listen": config.webhook_listen,
        "port": config.webhook_port,
        "url_path": config.webhook_path,
        "webhook_url": config.webhook_url,
        "secret_token": config.webhook_secret,
        "allowed_updates": ALLOWED_UPDATES,
    }


def open_configured_store(config: Config) -> Store:
    """The store the configuration names (Redis keys under ``SHBOT_REDIS_PREFIX``)."""
    opts: dict[str, Any] = {
        "history_ttl": config.history_days * 86400,
        "lobby_ttl": config.lobby_minutes * 60,
    }
    if config.redis_url:
        opts["prefix"] = config.redis_prefix
    return open_store(redis_url=config.redis_url, sqlite_path=config.db_path, **opts)


# --------------------------------------------------------------------------- messages


def redact(text: str, config: Config) -> str:
    """``text`` without the token, the webhook secret or a Redis password."""
    secrets = list(config.secrets)
    password = urlsplit(config.redis_url).password if config.redis_url else None
    if password:
        secrets.append(password)
    for secret in sorted(secrets, key=len, reverse=True):
        text = text.replace(secret, logs.REDACTED)
    return text


def token_rejected(config: Config) -> str:
    return (
        f"BOT_TOKEN was rejected by the Bot API at {config.api_url}: check the token "
        "@BotFather gave (a revoked token is rejected too)"
    )


def store_problem(config: Config, exc: BaseException) -> str:
    """One line naming the storage setting and what is wrong with it."""
    detail = str(exc) or type(exc).__name__
    if config.redis_url:
        return f"REDIS_URL: Redis unavailable: {detail}"
    path = Path(config.db_path).resolve() if config.db_path != ":memory:" else config.db_path
    detail = detail.removeprefix("sqlite: ")
    if "not a database" in detail:
        return f"SHBOT_DB: {path} is not an SQLite database ({detail})"
    return f"SHBOT_DB: cannot use {path}: {detail}"


class OneLineTelegramErrors(logging.Filter):
    """PTB logs an aborted start (a refused webhook, a rejected token) with a traceback.

    The traceback of an API error says nothing the error's own text does not, and the
    reason follows on the next line anyway: keep its type and text, drop the rest.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        if isinstance(exc, Conflict) and record.name.startswith("telegram"):
            return False  # another poller: start_guards.PollingConflict says it, once
        # An answer that is not JSON (an HTML 404 page: SHBOT_API_URL points elsewhere) is
        # said in one line too; the start-up names the setting on the next one.
        if isinstance(exc, TelegramError | ValueError) and record.name.startswith("telegram"):
            record.msg = f"{record.getMessage()} ({type(exc).__name__}: {exc})"
            record.args = None
            record.exc_info = None
            record.exc_text = None
        return True


# --------------------------------------------------------------------------- start-up


async def _check_store(config: Config) -> None:
    try:
        await _ping(config)
    except (StoreError, TimeoutError, OSError) as exc:
        raise StartupError(store_problem(config, exc)) from None


async def wait_for_bot_api(
    config: Config, *, sleep: Callable[[float], Awaitable[object]] = asyncio.sleep
) -> None:
    """Call ``getMe`` until the Bot API answers; a network failure is retried with backoff.

    One log line per failed attempt. A rejected token or any other refusal raises
    :class:`StartupError` at once: waiting would not change the answer.
    """
    delay = BACKOFF_FIRST
    attempt = 0
    while True:
        attempt += 1
        bot = Bot(config.token, base_url=config.base_url, base_file_url=config.base_file_url)
        try:
            async with bot:  # initialize() calls getMe
                log.info("Bot API at %s: logged in as @%s", config.api_url, bot.username)
                return
        except InvalidToken as exc:
            raise StartupError(
                start_guards.getme_refused(config, exc) or token_rejected(config)
            ) from None
        except RetryAfter as exc:
            wait = max(retry_seconds(exc), 1.0)
            reason = f"flood control: {exc.message}"
        except NetworkError as exc:
            wait, reason = delay, exc.message
            delay = min(delay * 2, BACKOFF_MAX)
        except TelegramError as exc:
            raise StartupError(
                start_guards.getme_refused(config, exc)
                or f"SHBOT_API_URL: the Bot API at {config.api_url} answered getMe with an "
                f"error: {exc.message}"
            ) from None
        log.warning(
            "Bot API at %s unreachable (attempt %d: %s); retrying in %.0f s",
            config.api_url,
            attempt,
            reason,
            wait,
        )
        await sleep(wait)


# --------------------------------------------------------------------------- heartbeat


def heartbeat_path(config: Config) -> Path:
    """The file a polling bot touches; per bot (its public numeric id), in the temp dir."""
    bot_id = config.token.split(":", 1)[0]
    return Path(tempfile.gettempdir()) / f"shbot-{bot_id}.heartbeat"


def _heartbeat(path: Path) -> Callable[[object], Coroutine[Any, Any, None]]:
    warned = False

    async def beat(context: object) -> None:
        nonlocal warned
        try:
            path.write_text(f"{os.getpid()}\n", encoding="ascii")
        except OSError as exc:
            if not warned:
                log.warning("cannot write the heartbeat file %s: %s", path, exc)
                warned = True

    return beat


# --------------------------------------------------------------------------- health


def check_health(env: Mapping[str, str] | None = None) -> int:
    """0 when the configuration, catalogs, store and bot process are fine, else 1."""
    try:
        config = load_config(env)
    except ConfigError as exc:
        print(f"unhealthy: {exc}", file=sys.stderr)
        return 1
    problem = _health_problem(config)
    if problem:
        print(f"unhealthy: {redact(problem, config)}", file=sys.stderr)
        return 1
    print("healthy")
    return 0


def _health_problem(config: Config) -> str | None:
    try:
        check_catalogs()
    except CatalogError as exc:
        return f"translations unavailable: {exc}"
    try:
        asyncio.run(_ping(config))
    except (StoreError, TimeoutError, OSError) as exc:
        return store_problem(config, exc)
    if config.webhook_url:
        # A wildcard listener is reached through loopback.
        host = {"0.0.0.0": "127.0.0.1", "::": "::1"}.get(
            config.webhook_listen, config.webhook_listen
        )
        try:
            socket.create_connection((host, config.webhook_port), timeout=HEALTH_TIMEOUT).close()
        except OSError as exc:
            return f"no webhook listener on {host}:{config.webhook_port}: {exc}"
        return None
    beat = heartbeat_path(config)
    try:
        age = time.time() - beat.stat().st_mtime
    except FileNotFoundError:
        return (
            f"no bot running: {beat} does not exist (in polling mode, health sees a "
            "`shbot run` of the same BOT_TOKEN on this machine only)"
        )
    if age > HEARTBEAT_STALE:
        return f"bot not responding: its heartbeat {beat} is {age:.0f} s old"
    return None


async def _ping(config: Config) -> None:
    store = open_configured_store(config)
    try:
        async with asyncio.timeout(HEALTH_TIMEOUT):
            await store.ping()
    finally:
        await store.close()
