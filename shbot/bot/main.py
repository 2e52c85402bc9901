"""``python -m shbot run``: the bot with a token from the environment and nothing else."""

from __future__ import annotations

import asyncio
import logging
import sys

from shbot.storage import StoreUnavailable, open_store

from .app import build_application
from .config import ConfigError, load_config


def run_from_env() -> int:
    try:
        config = load_config()
    except ConfigError as exc:
        print(f"shbot: {exc}", file=sys.stderr)
        return 2
    logging.basicConfig(
        level=config.log_level,
        format="%(asctime)s %(levelname)s %(name)s %(message)s",
    )
    # Request URLs contain the token; keep HTTP client chatter out of INFO logs.
    logging.getLogger("httpx").setLevel(logging.WARNING)
    try:
        store = asyncio.run(_open(config))
    except StoreUnavailable as exc:
        print(f"shbot: storage unavailable: {exc}", file=sys.stderr)
        return 2
    app = build_application(config, store)
    app.run_polling(allowed_updates=["message", "callback_query"])
    return 0


async def _open(config):  # type: ignore[no-untyped-def]
    store = open_store(
        redis_url=config.redis_url,
        sqlite_path=config.db_path,
        history_ttl=config.history_days * 86400,
        lobby_ttl=config.lobby_minutes * 60,
    )
    await store.ping()
    return store
