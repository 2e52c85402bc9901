"""The storage interface the bot codes against, shared by the SQLite and Redis backends.

Everything the bot persists goes through :class:`Store`, so that a bot process can be
restarted (or several can share one Redis) without losing games, settings or statistics.
"""

from __future__ import annotations

import asyncio
import random
import weakref
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

T = TypeVar("T")

#: A read-modify-write of settings: the current ones in, the changes out (None deletes a key;
#: None or {}: nothing to write). It may run several times: no side effects.
SettingsChange = Callable[[dict[str, Any]], Mapping[str, Any] | None]

LOBBY = "lobby"
RUNNING = "running"
FINISHED = "finished"
ACTIVE_STATUSES = frozenset({LOBBY, RUNNING})
STATUSES = frozenset({LOBBY, RUNNING, FINISHED})

DEFAULT_HISTORY_TTL = 30 * 24 * 3600.0
DEFAULT_LOBBY_TTL = 3600.0
# A claim pointing at a chat without a lobby/running game is treated as leaked (crash between
# finishing and releasing, lobby expiry) once it is older than this: the grace covers a bot
# that claims players just before creating the game.
DEFAULT_CLAIM_GRACE = 120.0
# How many finished games one chat keeps at most, whatever history_ttl says, so one busy chat
# cannot grow the archive without bound.
HISTORY_MAX_PER_CHAT = 100

WINNERS = ("liberal", "fascist")
ROLES = ("liberal", "fascist", "hitler")
CONDITIONS = ("five_liberal", "hitler_executed", "six_fascist", "hitler_elected")


class StoreError(Exception):
    """Base of every error a Store raises on purpose."""


class StoreUnavailable(StoreError):
    """The backend cannot be reached right now; the bot answers "temporarily unavailable"."""


class VersionConflict(StoreError):
    """A compare-and-set lost: someone else saved the game in between."""


class GameExists(StoreError):
    """create_game on a chat that already has a lobby or running game."""


class NoGame(StoreError, LookupError):
    """The chat has no lobby/running game (never created, finished, cancelled or expired)."""

    #: The game as a caller last knew it, if any (the bot's cache of a game the store lost).
    last_known: GameRecord | None = None


@dataclass
class GameRecord:
    """One game of one group chat, as stored.

    ``game_id`` is unique per created game: the compare-and-set checks it together with
    ``version`` so a stale record of a cancelled game can never overwrite the chat's next game
    (both start at version 1). It is a fine ``game_id`` for :meth:`Store.record_result` too.
    """

    chat_id: int
    version: int
    status: str
    data: dict[str, Any]
    game_id: str = ""


def check_status(status: str, *, allow_finished: bool) -> None:
    """Reject unknown statuses early: a typo would otherwise make a game invisible."""
    allowed = STATUSES if allow_finished else ACTIVE_STATUSES
    if status not in allowed:
        raise ValueError(f"invalid game status {status!r}, expected one of {sorted(allowed)}")


def check_result(result: Mapping[str, Any]) -> None:
    """Validate a result before counting it: bad input must not poison the statistics."""
    if not isinstance(result.get("game_id"), str) or not result["game_id"]:
        raise ValueError("result needs a non-empty string game_id")
    if result.get("winner") not in WINNERS:
        raise ValueError(f"invalid winner {result.get('winner')!r}")
    if result.get("condition") not in CONDITIONS:
        raise ValueError(f"invalid condition {result.get('condition')!r}")
    seen: set[int] = set()
    for p in result.get("players", ()):
        if not isinstance(p.get("user_id"), int) or p.get("role") not in ROLES:
            raise ValueError(f"invalid player entry {p!r}")
        if p["user_id"] in seen:
            raise ValueError(f"player {p['user_id']} listed twice")
        seen.add(p["user_id"])


def empty_user_stats() -> dict[str, Any]:
    """The shape of user_stats for someone who never played, so callers need no key checks."""
    return {
        "games": 0,
        "wins": 0,
        "by_role": {r: {"games": 0, "wins": 0} for r in ROLES},
        "by_condition": dict.fromkeys(CONDITIONS, 0),
    }


def empty_group_stats() -> dict[str, Any]:
    """The shape of group_stats for a chat without results."""
    return {
        "games": 0,
        "wins": dict.fromkeys(WINNERS, 0),
        "by_condition": dict.fromkeys(CONDITIONS, 0),
        "players": [],
    }


def merge_settings(current: dict[str, Any], changes: Mapping[str, Any]) -> dict[str, Any]:
    """Shallow merge; a value of None removes the key (how a setting is reset to default)."""
    merged = dict(current)
    for key, value in changes.items():
        if value is None:
            merged.pop(key, None)
        else:
            merged[key] = value
    return merged


class Store(ABC):
    """Persistence for games, player claims, settings, statistics and small bot bookkeeping."""

    #: How often update_game reloads and retries after losing a compare-and-set.
    update_retries: int = 50

    def __init__(self) -> None:
        # Locks live only while some update holds or awaits them, so this does not grow with
        # the number of chats ever seen.
        self._game_locks: weakref.WeakValueDictionary[int, asyncio.Lock] = (
            weakref.WeakValueDictionary()
        )
        self._settings_locks: weakref.WeakValueDictionary[tuple[str, int], asyncio.Lock] = (
            weakref.WeakValueDictionary()
        )

    # -- games -------------------------------------------------------------------------------

    @abstractmethod
    async def get_game(self, chat_id: int) -> GameRecord | None:
        """The chat's lobby/running game, or None (finished games live in the archive)."""

    @abstractmethod
    async def create_game(self, chat_id: int, status: str, data: dict[str, Any]) -> GameRecord:
        """Start a game at version 1; GameExists if the chat already has an active one."""

    @abstractmethod
    async def save_game(self, record: GameRecord) -> GameRecord:
        """Compare-and-set on (game_id, version); returns the record at version + 1, which
        holds ``record.data`` itself (handed over, not copied: the bot parses and writes a
        record on every press and keeps no other reference to what it saved).

        Raises VersionConflict if someone saved in between and NoGame if the game is gone.
        Status "finished" moves the game to the archive and frees the chat.
        """

    @abstractmethod
    async def delete_game(self, chat_id: int, version: int) -> None:
        """Cancel the chat's game if it is still at ``version`` (VersionConflict / NoGame)."""

    @abstractmethod
    async def active_games(self) -> list[GameRecord]:
        """All lobby/running games, to re-arm timers after a restart."""

    @abstractmethod
    async def finished_games(self, chat_id: int, limit: int = 10) -> list[GameRecord]:
        """The chat's finished games within history_ttl, newest first."""

    async def update_game(
        self, chat_id: int, fn: Callable[[GameRecord], T]
    ) -> tuple[GameRecord, T]:
        """Load, let ``fn`` mutate the record in place, save; retry on VersionConflict.

        The in-process lock keeps one process's handlers from racing each other; the
        compare-and-set plus retry handles other processes. ``fn`` may run several times, so it
        must not have side effects beyond the record. If it raises, nothing is saved.
        """
        lock = self._game_locks.get(chat_id)
        if lock is None:
            lock = self._game_locks[chat_id] = asyncio.Lock()
        async with lock:
            for attempt in range(self.update_retries + 1):
                record = await self.get_game(chat_id)
                if record is None:
                    raise NoGame(f"no active game in chat {chat_id}")
                result = fn(record)
                try:
                    saved = await self.save_game(record)
                except VersionConflict:
                    if attempt == self.update_retries:
                        raise
                    # Jitter so two processes that keep colliding drift apart.
                    await asyncio.sleep(random.uniform(0, 0.002 * min(attempt + 1, 10)))
                    continue
                return saved, result
        raise AssertionError("unreachable")  # pragma: no cover

    # -- players -----------------------------------------------------------------------------

    @abstractmethod
    async def claim_player(self, user_id: int, chat_id: int) -> int | None:
        """Atomically bind the user to this chat; returns the other chat if they are busy."""

    @abstractmethod
    async def release_players(self, chat_id: int, user_ids: Iterable[int]) -> None:
        """Unbind users, but only those bound to ``chat_id``."""

    @abstractmethod
    async def player_chat(self, user_id: int) -> int | None:
        """The chat the user is bound to, if any."""

    # -- settings ----------------------------------------------------------------------------

    @abstractmethod
    async def get_group(self, chat_id: int) -> dict[str, Any]:
        """The group's settings ({} if none)."""

    @abstractmethod
    async def update_group(self, chat_id: int, changes: dict[str, Any]) -> dict[str, Any]:
        """Merge ``changes`` (None deletes a key) and return the new settings."""

    async def change_group(self, chat_id: int, fn: SettingsChange) -> dict[str, Any]:
        """Change the group's settings from what they are now, losing no change made at the
        same time (two commands or presses at once): the changes ``fn`` returns from the
        current settings are written only if nobody wrote in between, else ``fn`` runs
        again on the newer settings. The discipline of games: a lock per chat in this
        process, a compare-and-set against the others. Returns the new settings."""
        return await self._locked_change("group", chat_id, fn)

    async def change_user(self, user_id: int, fn: SettingsChange) -> dict[str, Any]:
        """:meth:`change_group` for a user's settings."""
        return await self._locked_change("user", user_id, fn)

    async def _locked_change(self, kind: str, key: int, fn: SettingsChange) -> dict[str, Any]:
        lock = self._settings_locks.get((kind, key))
        if lock is None:
            lock = self._settings_locks[(kind, key)] = asyncio.Lock()
        async with lock:
            return await self._change_settings(kind, key, fn)

    @abstractmethod
    async def _change_settings(self, kind: str, key: int, fn: SettingsChange) -> dict[str, Any]:
        """One backend's atomic read-modify-write of ``kind`` ("group" or "user")
        settings (see :meth:`change_group`)."""

    @abstractmethod
    async def get_user(self, user_id: int) -> dict[str, Any]:
        """The user's settings ({} if none)."""

    @abstractmethod
    async def update_user(self, user_id: int, changes: dict[str, Any]) -> dict[str, Any]:
        """Merge ``changes`` (None deletes a key) and return the new settings."""

    # -- statistics --------------------------------------------------------------------------

    @abstractmethod
    async def record_result(self, chat_id: int, result: dict[str, Any]) -> None:
        """Count a finished game; recording the same game_id again changes nothing."""

    @abstractmethod
    async def user_stats(self, user_id: int) -> dict[str, Any]:
        """{"games", "wins", "by_role": {role: {"games", "wins"}}, "by_condition": {cond: n}}."""

    @abstractmethod
    async def group_stats(self, chat_id: int) -> dict[str, Any]:
        """{"games", "wins": {side: n}, "by_condition", "players": top 10 by games}."""

    @abstractmethod
    async def move_records(self, old_id: int, new_id: int) -> None:
        """A group became a supergroup (a new chat id): its statistics and finished games
        (/stats, /history) move to ``new_id``, added to what ``new_id`` has. Safe to call
        again after a crash half-way: nothing is counted twice."""

    # -- /nextgame ---------------------------------------------------------------------------

    @abstractmethod
    async def subscribe_next(self, chat_id: int, user_id: int) -> bool:
        """Remember to ping the user at the chat's next game; False if already subscribed."""

    @abstractmethod
    async def pop_subscribers(self, chat_id: int) -> list[int]:
        """Take (and forget) the chat's subscribers, in subscription order."""

    # -- misc --------------------------------------------------------------------------------

    @abstractmethod
    async def first_seen(self, key: str, ttl: float = 3600) -> bool:
        """True only the first time ``key`` is seen within ``ttl`` seconds (dedup guard)."""

    @abstractmethod
    async def ping(self) -> None:
        """Raise StoreUnavailable if the backend is down."""

    @abstractmethod
    async def close(self) -> None:
        """Release connections; the store is unusable afterwards."""
