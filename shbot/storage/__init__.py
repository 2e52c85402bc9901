"""Persistence for the bot: pick a backend with :func:`open_store`, code against :class:`Store`."""

from __future__ import annotations

from typing import Any

from .base import (
    ACTIVE_STATUSES,
    CONDITIONS,
    FINISHED,
    LOBBY,
    ROLES,
    RUNNING,
    WINNERS,
    GameExists,
    GameRecord,
    NoGame,
    Store,
    StoreError,
    StoreUnavailable,
    VersionConflict,
)


def open_store(redis_url: str | None = None, sqlite_path: str | None = None, **opts: Any) -> Store:
    """Redis when a URL is given (several bot processes can share it), else SQLite.

    ``opts`` go to the backend's constructor (history_ttl, lobby_ttl, clock, ...). Nothing is
    connected yet: the first operation (or :meth:`Store.ping`) does that.
    """
    if redis_url:
        from .redis import RedisStore

        return RedisStore(redis_url, **opts)
    if not sqlite_path:
        raise ValueError("open_store needs a redis_url or a sqlite_path")
    from .sqlite import SQLiteStore

    return SQLiteStore(sqlite_path, **opts)


__all__ = [
    "ACTIVE_STATUSES",
    "CONDITIONS",
    "FINISHED",
    "LOBBY",
    "ROLES",
    "RUNNING",
    "WINNERS",
    "GameExists",
    "GameRecord",
    "NoGame",
    "Store",
    "StoreError",
    "StoreUnavailable",
    "VersionConflict",
    "open_store",
]
