"""SQLite backend: the embedded default for a single bot process (or a few on one host).

The standard ``sqlite3`` module runs on one dedicated worker thread so the event loop never
blocks on disk; every operation is one transaction. Write transactions start with
``BEGIN IMMEDIATE`` so two processes on the same file queue on the write lock (busy_timeout)
instead of failing halfway; a lock held longer than that becomes StoreUnavailable.
"""

from __future__ import annotations

import asyncio
import secrets
import sqlite3
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from . import codec
from .base import (
    DEFAULT_CLAIM_GRACE,
    DEFAULT_HISTORY_TTL,
    DEFAULT_LOBBY_TTL,
    FINISHED,
    HISTORY_MAX_PER_CHAT,
    LOBBY,
    GameExists,
    GameRecord,
    NoGame,
    SettingsChange,
    Store,
    StoreError,
    StoreUnavailable,
    VersionConflict,
    check_result,
    check_status,
    empty_group_stats,
    empty_user_stats,
    merge_settings,
)

R = TypeVar("R")

SCHEMA_VERSION = 1
SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    chat_id INTEGER PRIMARY KEY,
    game_id TEXT NOT NULL,
    version INTEGER NOT NULL,
    status TEXT NOT NULL,
    data TEXT NOT NULL,
    saved_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS archive (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    chat_id INTEGER NOT NULL,
    game_id TEXT NOT NULL,
    version INTEGER NOT NULL,
    data TEXT NOT NULL,
    finished_at REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS archive_chat ON archive (chat_id, finished_at);
CREATE INDEX IF NOT EXISTS archive_time ON archive (finished_at);
CREATE TABLE IF NOT EXISTS claims (
    user_id INTEGER PRIMARY KEY,
    chat_id INTEGER NOT NULL,
    claimed_at REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS claims_chat ON claims (chat_id);
CREATE TABLE IF NOT EXISTS group_settings (chat_id INTEGER PRIMARY KEY, data TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS user_settings (user_id INTEGER PRIMARY KEY, data TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS results (
    chat_id INTEGER NOT NULL,
    game_id TEXT NOT NULL,
    winner TEXT NOT NULL,
    condition TEXT NOT NULL,
    recorded_at REAL NOT NULL,
    PRIMARY KEY (chat_id, game_id)
);
CREATE TABLE IF NOT EXISTS result_players (
    chat_id INTEGER NOT NULL,
    game_id TEXT NOT NULL,
    user_id INTEGER NOT NULL,
    name TEXT NOT NULL,
    role TEXT NOT NULL,
    won INTEGER NOT NULL,
    condition TEXT NOT NULL,
    PRIMARY KEY (chat_id, game_id, user_id)
);
CREATE INDEX IF NOT EXISTS result_players_user ON result_players (user_id);
CREATE TABLE IF NOT EXISTS subscribers (
    chat_id INTEGER NOT NULL,
    user_id INTEGER NOT NULL,
    created_at REAL NOT NULL,
    PRIMARY KEY (chat_id, user_id)
);
CREATE TABLE IF NOT EXISTS seen (key TEXT PRIMARY KEY, expires_at REAL NOT NULL);
CREATE INDEX IF NOT EXISTS seen_expiry ON seen (expires_at);
"""

# Operational errors that mean "try again later" rather than "this code is wrong".
_SETTINGS = {"group": ("group_settings", "chat_id"), "user": ("user_settings", "user_id")}
_TRANSIENT = ("locked", "busy", "unable to open", "disk i/o", "readonly", "read-only")


def _dumps(data: Any) -> str:
    return codec.dumps(data)


class SQLiteStore(Store):
    """Store on one SQLite file (WAL mode), safe to reopen after a restart."""

    def __init__(
        self,
        path: str,
        *,
        history_ttl: float = DEFAULT_HISTORY_TTL,
        lobby_ttl: float = DEFAULT_LOBBY_TTL,
        claim_grace: float = DEFAULT_CLAIM_GRACE,
        clock: Callable[[], float] = time.time,
        busy_timeout: float = 5.0,
    ) -> None:
        super().__init__()
        self.path = path
        self.history_ttl = history_ttl
        self.lobby_ttl = lobby_ttl
        self.claim_grace = claim_grace
        self.clock = clock
        self.busy_timeout = busy_timeout
        # One thread owns the connection: sqlite3 objects must not hop threads, and it
        # serialises this process's transactions for free.
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="shbot-sqlite")
        self._conn: sqlite3.Connection | None = None
        self._closed = False
        self._seen_writes = 0

    # -- plumbing ----------------------------------------------------------------------------

    def _connect(self) -> sqlite3.Connection:
        if self._conn is None:
            conn = sqlite3.connect(
                self.path, timeout=self.busy_timeout, isolation_level=None, check_same_thread=False
            )
            try:
                conn.execute(f"PRAGMA busy_timeout = {int(self.busy_timeout * 1000)}")
                conn.execute("PRAGMA journal_mode = WAL")
                conn.execute("PRAGMA synchronous = NORMAL")
                conn.execute("BEGIN IMMEDIATE")
                try:
                    if conn.execute("PRAGMA user_version").fetchone()[0] < SCHEMA_VERSION:
                        for stmt in SCHEMA.split(";"):
                            if stmt.strip():
                                conn.execute(stmt)
                        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
                    conn.execute("COMMIT")
                except BaseException:
                    conn.execute("ROLLBACK")
                    raise
            except BaseException:
                conn.close()
                raise
            self._conn = conn
        return self._conn

    def _transaction(self, fn: Callable[[sqlite3.Connection], R], write: bool) -> R:
        conn = self._connect()
        conn.execute("BEGIN IMMEDIATE" if write else "BEGIN")
        try:
            out = fn(conn)
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")
        return out

    async def _run(self, fn: Callable[[sqlite3.Connection], R], *, write: bool = True) -> R:
        if self._closed:
            raise StoreError("store is closed")
        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(self._executor, self._transaction, fn, write)
        except sqlite3.OperationalError as e:
            if any(word in str(e).lower() for word in _TRANSIENT):
                raise StoreUnavailable(f"sqlite: {e}") from e
            raise StoreError(f"sqlite: {e}") from e
        except sqlite3.Error as e:
            raise StoreError(f"sqlite: {e}") from e

    def _alive(self, status: str, saved_at: float, now: float) -> bool:
        return status != LOBBY or saved_at + self.lobby_ttl > now

    def _load_game(self, conn: sqlite3.Connection, chat_id: int, now: float) -> GameRecord | None:
        row = conn.execute(
            "SELECT game_id, version, status, data, saved_at FROM games WHERE chat_id = ?",
            (chat_id,),
        ).fetchone()
        if row is None or not self._alive(row[2], row[4], now):
            return None
        return GameRecord(chat_id, row[1], row[2], codec.loads(row[3]), row[0])

    def _purge_archive(self, conn: sqlite3.Connection, now: float) -> None:
        conn.execute("DELETE FROM archive WHERE finished_at <= ?", (now - self.history_ttl,))

    # -- games -------------------------------------------------------------------------------

    async def get_game(self, chat_id: int) -> GameRecord | None:
        now = self.clock()
        return await self._run(lambda c: self._load_game(c, chat_id, now), write=False)

    async def create_game(self, chat_id: int, status: str, data: dict[str, Any]) -> GameRecord:
        check_status(status, allow_finished=False)
        blob = _dumps(data)
        now = self.clock()
        game_id = secrets.token_hex(8)

        def op(conn: sqlite3.Connection) -> GameRecord:
            if self._load_game(conn, chat_id, now) is not None:
                raise GameExists(f"chat {chat_id} already has a game")
            conn.execute(
                "INSERT OR REPLACE INTO games (chat_id, game_id, version, status, data, saved_at)"
                " VALUES (?, ?, 1, ?, ?, ?)",
                (chat_id, game_id, status, blob, now),
            )
            return GameRecord(chat_id, 1, status, codec.loads(blob), game_id)

        return await self._run(op)

    async def save_game(self, record: GameRecord) -> GameRecord:
        check_status(record.status, allow_finished=True)
        blob = _dumps(record.data)
        now = self.clock()
        chat_id, version = record.chat_id, record.version

        def op(conn: sqlite3.Connection) -> GameRecord:
            current = self._load_game(conn, chat_id, now)
            if current is None:
                raise NoGame(f"no active game in chat {chat_id}")
            if current.version != version or (record.game_id and current.game_id != record.game_id):
                raise VersionConflict(
                    f"chat {chat_id}: stored version {current.version}, saving {version}"
                )
            if record.status == FINISHED:
                conn.execute("DELETE FROM games WHERE chat_id = ?", (chat_id,))
                conn.execute(
                    "INSERT INTO archive (chat_id, game_id, version, data, finished_at)"
                    " VALUES (?, ?, ?, ?, ?)",
                    (chat_id, current.game_id, version + 1, blob, now),
                )
                conn.execute(
                    "DELETE FROM archive WHERE chat_id = ? AND id NOT IN"
                    " (SELECT id FROM archive WHERE chat_id = ? ORDER BY id DESC LIMIT ?)",
                    (chat_id, chat_id, HISTORY_MAX_PER_CHAT),
                )
                self._purge_archive(conn, now)
            else:
                cur = conn.execute(
                    "UPDATE games SET version = version + 1, status = ?, data = ?, saved_at = ?"
                    " WHERE chat_id = ? AND version = ? AND game_id = ?",
                    (record.status, blob, now, chat_id, version, current.game_id),
                )
                if cur.rowcount != 1:  # cannot happen inside the transaction; belt and braces
                    raise VersionConflict(f"chat {chat_id}: lost compare-and-set")
            return GameRecord(chat_id, version + 1, record.status, record.data, current.game_id)

        return await self._run(op)

    async def delete_game(self, chat_id: int, version: int) -> None:
        now = self.clock()

        def op(conn: sqlite3.Connection) -> None:
            current = self._load_game(conn, chat_id, now)
            if current is None:
                raise NoGame(f"no active game in chat {chat_id}")
            cur = conn.execute(
                "DELETE FROM games WHERE chat_id = ? AND version = ?", (chat_id, version)
            )
            if cur.rowcount != 1:
                raise VersionConflict(
                    f"chat {chat_id}: stored version {current.version}, deleting {version}"
                )

        await self._run(op)

    async def active_games(self) -> list[GameRecord]:
        now = self.clock()

        def op(conn: sqlite3.Connection) -> list[GameRecord]:
            conn.execute(
                "DELETE FROM games WHERE status = ? AND saved_at <= ?",
                (LOBBY, now - self.lobby_ttl),
            )
            rows = conn.execute(
                "SELECT chat_id, game_id, version, status, data FROM games ORDER BY chat_id"
            ).fetchall()
            return [GameRecord(r[0], r[2], r[3], codec.loads(r[4]), r[1]) for r in rows]

        return await self._run(op)

    async def finished_games(self, chat_id: int, limit: int = 10) -> list[GameRecord]:
        now = self.clock()

        def op(conn: sqlite3.Connection) -> list[GameRecord]:
            rows = conn.execute(
                "SELECT game_id, version, data FROM archive WHERE chat_id = ? AND finished_at > ?"
                " ORDER BY finished_at DESC, id DESC LIMIT ?",
                (chat_id, now - self.history_ttl, max(0, limit)),
            ).fetchall()
            return [GameRecord(chat_id, r[1], FINISHED, codec.loads(r[2]), r[0]) for r in rows]

        return await self._run(op, write=False)

    # -- players -----------------------------------------------------------------------------

    def _claim_holder(self, conn: sqlite3.Connection, user_id: int, now: float) -> int | None:
        """The chat the user is bound to, ignoring leaked claims (see DEFAULT_CLAIM_GRACE)."""
        row = conn.execute(
            "SELECT chat_id, claimed_at FROM claims WHERE user_id = ?", (user_id,)
        ).fetchone()
        if row is None:
            return None
        chat_id, claimed_at = row
        if claimed_at + self.claim_grace > now or self._load_game(conn, chat_id, now):
            return int(chat_id)
        return None

    async def claim_player(self, user_id: int, chat_id: int) -> int | None:
        now = self.clock()

        def op(conn: sqlite3.Connection) -> int | None:
            holder = self._claim_holder(conn, user_id, now)
            if holder is not None and holder != chat_id:
                return holder
            if holder is None:
                conn.execute(
                    "INSERT OR REPLACE INTO claims (user_id, chat_id, claimed_at) VALUES (?, ?, ?)",
                    (user_id, chat_id, now),
                )
            return None

        return await self._run(op)

    async def release_players(self, chat_id: int, user_ids: Iterable[int]) -> None:
        users = [(chat_id, int(u)) for u in user_ids]
        if not users:
            return

        def op(conn: sqlite3.Connection) -> None:
            conn.executemany("DELETE FROM claims WHERE chat_id = ? AND user_id = ?", users)

        await self._run(op)

    async def player_chat(self, user_id: int) -> int | None:
        now = self.clock()
        return await self._run(lambda c: self._claim_holder(c, user_id, now), write=False)

    # -- settings ----------------------------------------------------------------------------

    async def _get_settings(self, table: str, column: str, key: int) -> dict[str, Any]:
        def op(conn: sqlite3.Connection) -> dict[str, Any]:
            row = conn.execute(f"SELECT data FROM {table} WHERE {column} = ?", (key,)).fetchone()
            return {} if row is None else dict(codec.loads(row[0]))

        return await self._run(op, write=False)

    async def _update_settings(
        self, table: str, column: str, key: int, changes: dict[str, Any]
    ) -> dict[str, Any]:
        _dumps(changes)  # fail before touching the database if it is not JSON

        def op(conn: sqlite3.Connection) -> dict[str, Any]:
            row = conn.execute(f"SELECT data FROM {table} WHERE {column} = ?", (key,)).fetchone()
            merged = merge_settings({} if row is None else codec.loads(row[0]), changes)
            blob = _dumps(merged)
            conn.execute(
                f"INSERT OR REPLACE INTO {table} ({column}, data) VALUES (?, ?)", (key, blob)
            )
            return dict(codec.loads(blob))

        return await self._run(op)

    async def _change_settings(self, kind: str, key: int, fn: SettingsChange) -> dict[str, Any]:
        table, column = _SETTINGS[kind]

        def op(conn: sqlite3.Connection) -> dict[str, Any]:
            # BEGIN IMMEDIATE: no other writer (thread or process) between the read and
            # the write.
            row = conn.execute(f"SELECT data FROM {table} WHERE {column} = ?", (key,)).fetchone()
            current = {} if row is None else dict(codec.loads(row[0]))
            changes = fn(dict(current))
            if not changes:
                return current
            blob = _dumps(merge_settings(current, changes))
            conn.execute(
                f"INSERT OR REPLACE INTO {table} ({column}, data) VALUES (?, ?)", (key, blob)
            )
            return dict(codec.loads(blob))

        return await self._run(op)

    async def get_group(self, chat_id: int) -> dict[str, Any]:
        return await self._get_settings("group_settings", "chat_id", chat_id)

    async def update_group(self, chat_id: int, changes: dict[str, Any]) -> dict[str, Any]:
        return await self._update_settings("group_settings", "chat_id", chat_id, changes)

    async def get_user(self, user_id: int) -> dict[str, Any]:
        return await self._get_settings("user_settings", "user_id", user_id)

    async def update_user(self, user_id: int, changes: dict[str, Any]) -> dict[str, Any]:
        return await self._update_settings("user_settings", "user_id", user_id, changes)

    # -- statistics --------------------------------------------------------------------------

    async def record_result(self, chat_id: int, result: dict[str, Any]) -> None:
        check_result(result)
        now = self.clock()
        game_id, condition = result["game_id"], result["condition"]
        players = [
            (chat_id, game_id, p["user_id"], str(p.get("name", "")), p["role"], int(bool(p["won"])))
            for p in result.get("players", ())
        ]

        def op(conn: sqlite3.Connection) -> None:
            cur = conn.execute(
                "INSERT OR IGNORE INTO results (chat_id, game_id, winner, condition, recorded_at)"
                " VALUES (?, ?, ?, ?, ?)",
                (chat_id, game_id, result["winner"], condition, now),
            )
            if cur.rowcount != 1:
                return  # already counted
            conn.executemany(
                "INSERT INTO result_players"
                " (chat_id, game_id, user_id, name, role, won, condition)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                [(*p, condition) for p in players],
            )

        await self._run(op)

    async def user_stats(self, user_id: int) -> dict[str, Any]:
        def op(conn: sqlite3.Connection) -> dict[str, Any]:
            stats = empty_user_stats()
            for role, games, wins in conn.execute(
                "SELECT role, COUNT(*), SUM(won) FROM result_players WHERE user_id = ?"
                " GROUP BY role",
                (user_id,),
            ):
                stats["by_role"][role] = {"games": games, "wins": wins}
                stats["games"] += games
                stats["wins"] += wins
            for cond, n in conn.execute(
                "SELECT condition, COUNT(*) FROM result_players WHERE user_id = ?"
                " GROUP BY condition",
                (user_id,),
            ):
                stats["by_condition"][cond] = n
            return stats

        return await self._run(op, write=False)

    async def group_stats(self, chat_id: int) -> dict[str, Any]:
        def op(conn: sqlite3.Connection) -> dict[str, Any]:
            stats = empty_group_stats()
            for winner, condition, n in conn.execute(
                "SELECT winner, condition, COUNT(*) FROM results WHERE chat_id = ?"
                " GROUP BY winner, condition",
                (chat_id,),
            ):
                stats["games"] += n
                stats["wins"][winner] = stats["wins"].get(winner, 0) + n
                stats["by_condition"][condition] = stats["by_condition"].get(condition, 0) + n
            # Bare columns next to max(): SQLite takes name from the newest row (latest name).
            rows = conn.execute(
                "SELECT user_id, name, MAX(rowid), COUNT(*) AS games, SUM(won) AS wins"
                " FROM result_players WHERE chat_id = ? GROUP BY user_id"
                " ORDER BY games DESC, wins DESC, user_id LIMIT 10",
                (chat_id,),
            ).fetchall()
            stats["players"] = [
                {"user_id": r[0], "name": r[1], "games": r[3], "wins": r[4]} for r in rows
            ]
            return stats

        return await self._run(op, write=False)

    async def move_records(self, old_id: int, new_id: int) -> None:
        def op(conn: sqlite3.Connection) -> None:
            # One transaction; a game counted in both chats keeps the new chat's count.
            for table in ("results", "result_players"):
                conn.execute(
                    f"UPDATE OR IGNORE {table} SET chat_id = ? WHERE chat_id = ?", (new_id, old_id)
                )
                conn.execute(f"DELETE FROM {table} WHERE chat_id = ?", (old_id,))
            conn.execute("UPDATE archive SET chat_id = ? WHERE chat_id = ?", (new_id, old_id))

        await self._run(op)

    # -- /nextgame ---------------------------------------------------------------------------

    async def subscribe_next(self, chat_id: int, user_id: int) -> bool:
        now = self.clock()

        def op(conn: sqlite3.Connection) -> bool:
            conn.execute(
                "DELETE FROM subscribers WHERE chat_id = ? AND user_id = ? AND created_at <= ?",
                (chat_id, user_id, now - self.history_ttl),
            )
            cur = conn.execute(
                "INSERT OR IGNORE INTO subscribers (chat_id, user_id, created_at) VALUES (?, ?, ?)",
                (chat_id, user_id, now),
            )
            return cur.rowcount == 1

        return await self._run(op)

    async def pop_subscribers(self, chat_id: int) -> list[int]:
        now = self.clock()

        def op(conn: sqlite3.Connection) -> list[int]:
            rows = conn.execute(
                "SELECT user_id FROM subscribers WHERE chat_id = ? AND created_at > ?"
                " ORDER BY created_at, rowid",
                (chat_id, now - self.history_ttl),
            ).fetchall()
            conn.execute("DELETE FROM subscribers WHERE chat_id = ?", (chat_id,))
            return [r[0] for r in rows]

        return await self._run(op)

    # -- misc --------------------------------------------------------------------------------

    async def first_seen(self, key: str, ttl: float = 3600) -> bool:
        now = self.clock()
        self._seen_writes += 1
        purge = self._seen_writes % 256 == 1

        def op(conn: sqlite3.Connection) -> bool:
            if purge:
                conn.execute("DELETE FROM seen WHERE expires_at <= ?", (now,))
            row = conn.execute("SELECT expires_at FROM seen WHERE key = ?", (key,)).fetchone()
            if row is not None and row[0] > now:
                return False
            conn.execute(
                "INSERT OR REPLACE INTO seen (key, expires_at) VALUES (?, ?)", (key, now + ttl)
            )
            return True

        return await self._run(op)

    async def ping(self) -> None:
        await self._run(lambda c: c.execute("SELECT 1").fetchone(), write=False)

    async def close(self) -> None:
        if self._closed:
            return
        self._closed = True

        def shut() -> None:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

        loop = asyncio.get_running_loop()
        await loop.run_in_executor(self._executor, shut)
        self._executor.shutdown(wait=False)
