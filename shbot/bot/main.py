"""``python -m shbot run`` and ``health``: the bot configured from the environment alone.

``run`` polls Telegram for updates, or serves a webhook when ``SHBOT_WEBHOOK_URL`` is set.
``health`` is the container's health check: it loads the configuration and pings the store
(and, in webhook mode, connects to the webhook listener), exiting 0 when all answer and 1
with one line saying what failed otherwise.
"""

from __future__ import annotations

import asyncio
import logging
import socket
import sys
from collections.abc import Mapping
from typing import Any

from shbot.storage import Store, StoreUnavailable, open_store

from . import logs
from .app import build_application
from .config import Config, ConfigError, load_config

log = logging.getLogger(__name__)

#: The update types the bot handles; Telegram sends nothing else (less traffic, less noise).
ALLOWED_UPDATES = ["message", "callback_query"]
HEALTH_TIMEOUT = 5.0


def run_from_env() -> int:
    try:
        config = load_config()
    except ConfigError as exc:
        print(f"shbot: {exc}", file=sys.stderr)
        return 2
    logs.configure(config.log_level, config.secrets)
    try:
        asyncio.run(_ping(config))
    except (StoreUnavailable, TimeoutError) as exc:
        print(f"shbot: storage unavailable: {exc or type(exc).__name__}", file=sys.stderr)
        return 2
    # Opened anew (it connects lazily): a store used in the loop of the check above would
    # keep Redis connections bound to that closed loop ("Event loop is closed" at start).
    store = open_configured_store(config)
    app = build_application(config, store)
    if config.webhook_url:
        log.info(
            "webhook mode: listening on %s:%d%s",
            config.webhook_listen,
            config.webhook_port,
            config.webhook_path,
        )
        app.run_webhook(**webhook_options(config))
    else:
        log.info("polling mode")
        app.run_polling(allowed_updates=ALLOWED_UPDATES)
    return 0


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


# --------------------------------------------------------------------------- health


def check_health(env: Mapping[str, str] | None = None) -> int:
    """0 when the configuration loads and the store (and webhook listener) answer, else 1."""
    try:
        config = load_config(env)
    except ConfigError as exc:
        print(f"unhealthy: {exc}", file=sys.stderr)
        return 1
    try:
        asyncio.run(_ping(config))
    except (StoreUnavailable, TimeoutError, OSError) as exc:
        print(f"unhealthy: storage unavailable: {exc or type(exc).__name__}", file=sys.stderr)
        return 1
    if config.webhook_url:
        # A wildcard listener is reached through loopback.
        host = {"0.0.0.0": "127.0.0.1", "::": "::1"}.get(
            config.webhook_listen, config.webhook_listen
        )
        try:
            socket.create_connection((host, config.webhook_port), timeout=HEALTH_TIMEOUT).close()
        except OSError as exc:
            print(
                f"unhealthy: no webhook listener on {host}:{config.webhook_port}: {exc}",
                file=sys.stderr,
            )
            return 1
    print("healthy")
    return 0


async def _ping(config: Config) -> None:
    store = open_configured_store(config)
    try:
        async with asyncio.timeout(HEALTH_TIMEOUT):
            await store.ping()
    finally:
        await store.close()
