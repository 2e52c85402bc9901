"""Redis backend: production storage shared by several bot processes.

Every multi-key operation touches keys of one hash tag only (``{g<chat>}`` for a group,
``{u<user>}`` for a user), so each runs as one atomic Lua script and the layout is ready for
Redis Cluster. Keys with a lifetime get a real EXPIRE as garbage collection; the expiry the
bot observes is decided from timestamps of the injectable clock, so it is testable and the
same in both backends.

Any connection problem surfaces as StoreUnavailable, fast (short socket timeouts, no
automatic retries: a retried write whose first attempt did land would be applied twice), and
the connection pool reconnects on its own once Redis is back.
"""

from __future__ import annotations

import asyncio
import json
import random
import secrets
import time
from collections.abc import AsyncIterator, Callable, Iterable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any

import redis.asyncio as aioredis
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.exceptions import (
    BusyLoadingError,
    ClusterDownError,
    ReadOnlyError,
    RedisError,
    TryAgainError,
    WatchError,
)
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

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
)

# How long record_result remembers a game_id per group/user to stay idempotent.
RESULT_DEDUP_TTL = 90 * 24 * 3600.0

_UNAVAILABLE = (
    RedisConnectionError,
    RedisTimeoutError,
    BusyLoadingError,
    ReadOnlyError,
    ClusterDownError,
    TryAgainError,
    OSError,
    TimeoutError,
)

# A game hash is alive unless it is a lobby not saved for lobby_ttl (by the bot's clock).
_ALIVE = """
local function alive(status, saved_at, now, lobby_ttl)
  if not status then return false end
  return status ~= 'lobby' or tonumber(saved_at) + tonumber(lobby_ttl) > tonumber(now)
end
"""

# KEYS: game. ARGV: now, lobby_ttl, status, data, game_id, lobby_ttl_ms
_CREATE = (
    _ALIVE
    + """
local cur = redis.call('HMGET', KEYS[1], 'status', 'saved_at')
if alive(cur[1], cur[2], ARGV[1], ARGV[2]) then return 0 end
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'game_id', ARGV[5], 'version', '1', 'status', ARGV[3],
           'data', ARGV[4], 'saved_at', ARGV[1])
if ARGV[3] == 'lobby' then redis.call('PEXPIRE', KEYS[1], ARGV[6]) end
return 1
"""
)

# KEYS: game, archive, archive_seq.
# ARGV: now, lobby_ttl, version, game_id, status, data, lobby_ttl_ms, history_cutoff,
#       history_ttl_ms, history_max
_SAVE = (
    _ALIVE
    + """
local cur = redis.call('HMGET', KEYS[1], 'status', 'saved_at', 'version', 'game_id')
if not alive(cur[1], cur[2], ARGV[1], ARGV[2]) then return {'nogame'} end
if cur[3] ~= ARGV[3] or (ARGV[4] ~= '' and cur[4] ~= ARGV[4]) then
  return {'conflict', cur[3]}
end
local version = tonumber(cur[3]) + 1
if ARGV[5] == 'finished' then
  redis.call('DEL', KEYS[1])
  local seq = redis.call('INCR', KEYS[3])
  redis.call('PEXPIRE', KEYS[3], ARGV[9])
  -- the zero-padded sequence orders games finished within the same clock tick
  local member = string.format('%016d', seq) .. '{"game_id":"' .. cur[4] .. '","version":'
    .. version .. ',"data":' .. ARGV[6] .. '}'
  redis.call('ZADD', KEYS[2], ARGV[1], member)
  redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[8])
  redis.call('ZREMRANGEBYRANK', KEYS[2], 0, -1 - tonumber(ARGV[10]))
  redis.call('PEXPIRE', KEYS[2], ARGV[9])
else
  redis.call('HSET', KEYS[1], 'version', tostring(version), 'status', ARGV[5],
             'data', ARGV[6], 'saved_at', ARGV[1])
  if ARGV[5] == 'lobby' then
    redis.call('PEXPIRE', KEYS[1], ARGV[7])
  else
    redis.call('PERSIST', KEYS[1])
  end
end
return {'ok', cur[4]}
"""
)

# KEYS: game. ARGV: now, lobby_ttl, version
_DELETE = (
    _ALIVE
    + """
local cur = redis.call('HMGET', KEYS[1], 'status', 'saved_at', 'version')
if not alive(cur[1], cur[2], ARGV[1], ARGV[2]) then return 'nogame' end
if cur[3] ~= ARGV[3] then return 'conflict' end
redis.call('DEL', KEYS[1])
return 'ok'
"""
)

# KEYS: claim. ARGV: chat, claim value, value to overwrite (a leaked claim) or ''.
# Returns 'ok' or the current value of someone else's claim.
_CLAIM = """
local v = redis.call('GET', KEYS[1])
if v and v ~= ARGV[3] then
  if string.match(v, '^[^|]+') == ARGV[1] then return 'ok' end
  return v
end
redis.call('SET', KEYS[1], ARGV[2])
return 'ok'
"""

# KEYS: claim. ARGV: chat
_RELEASE = """
local v = redis.call('GET', KEYS[1])
if v and string.match(v, '^[^|]+') == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 0
"""

# KEYS: marker, stats, players. ARGV: marker_ttl_ms, winner, condition, (uid, name, won)*
_GROUP_RESULT = """
if not redis.call('SET', KEYS[1], '1', 'NX', 'PX', ARGV[1]) then return 0 end
redis.call('HINCRBY', KEYS[2], 'games', 1)
redis.call('HINCRBY', KEYS[2], 'wins:' .. ARGV[2], 1)
redis.call('HINCRBY', KEYS[2], 'cond:' .. ARGV[3], 1)
for i = 4, #ARGV, 3 do
  redis.call('HINCRBY', KEYS[3], ARGV[i] .. ':games', 1)
  redis.call('HINCRBY', KEYS[3], ARGV[i] .. ':wins', ARGV[i + 2])
  redis.call('HSET', KEYS[3], ARGV[i] .. ':name', ARGV[i + 1])
end
return 1
"""

# KEYS: marker, stats. ARGV: marker_ttl_ms, role, won, condition
_USER_RESULT = """
if not redis.call('SET', KEYS[1], '1', 'NX', 'PX', ARGV[1]) then return 0 end
redis.call('HINCRBY', KEYS[2], 'games', 1)
redis.call('HINCRBY', KEYS[2], 'wins', ARGV[3])
redis.call('HINCRBY', KEYS[2], 'role:' .. ARGV[2] .. ':games', 1)
redis.call('HINCRBY', KEYS[2], 'role:' .. ARGV[2] .. ':wins', ARGV[3])
redis.call('HINCRBY', KEYS[2], 'cond:' .. ARGV[4], 1)
return 1
"""

# KEYS: subscribers zset. ARGV: now, cutoff, user, ttl_ms
_SUBSCRIBE = """
local s = redis.call('ZSCORE', KEYS[1], ARGV[3])
if s and tonumber(s) > tonumber(ARGV[2]) then return 0 end
local score = tonumber(ARGV[1])
local top = redis.call('ZREVRANGE', KEYS[1], 0, 0, 'WITHSCORES')
-- keep subscription order even when the clock did not move
if top[2] and tonumber(top[2]) >= score then score = tonumber(top[2]) + 0.001 end
redis.call('ZADD', KEYS[1], score, ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return 1
"""

# KEYS: seen key. ARGV: now, expires_at, ttl_ms
# Adds a migrated group's records to its new chat's keys (one hash slot), once: the marker
# makes a second call after a crash half-way a no-op (the old keys are deleted after this).
_MOVE_IN = """
if not redis.call('SET', KEYS[4], '1', 'NX', 'PX', ARGV[1]) then return 0 end
for f, n in pairs(cjson.decode(ARGV[2])) do redis.call('HINCRBY', KEYS[1], f, n) end
for f, v in pairs(cjson.decode(ARGV[3])) do
    if string.sub(f, -5) == ':name' then redis.call('HSET', KEYS[2], f, v)
    else redis.call('HINCRBY', KEYS[2], f, v) end
end
for _, m in ipairs(cjson.decode(ARGV[4])) do redis.call('ZADD', KEYS[3], m[2], m[1]) end
return 1
"""

_FIRST_SEEN = """
local v = redis.call('GET', KEYS[1])
if v and tonumber(v) > tonumber(ARGV[1]) then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
return 1
"""


def _ms(seconds: float) -> int:
    return max(1, int(seconds * 1000))


def _dumps(data: Any) -> str:
    return codec.dumps(data)


def _glob_escape(text: str) -> str:
    return "".join("\\" + c if c in "*?[]\\" else c for c in text)


@asynccontextmanager
async def _bounded(seconds: float | None) -> AsyncIterator[None]:
    """One store operation: done within ``seconds`` as a whole (redis-py's own socket
    timeouts cost a task per command on Python 3.11), and every redis-py exception turned
    into a StoreError so none leaks to the bot. A command cut short closes its connection
    (redis-py drops a connection whose reply was not read)."""
    try:
        async with asyncio.timeout(seconds):
            yield
    except StoreError:
        raise
    except (*_UNAVAILABLE, TimeoutError) as e:
        raise StoreUnavailable(f"redis: {e or 'no answer in time'}") from e
    except RedisError as e:
        raise StoreError(f"redis: {e}") from e


class RedisStore(Store):
    """Store on Redis; several processes may share it (same url and prefix)."""

    def __init__(
        self,
        url: str,
        *,
        prefix: str = "shbot:",
        history_ttl: float = DEFAULT_HISTORY_TTL,
        lobby_ttl: float = DEFAULT_LOBBY_TTL,
        claim_grace: float = DEFAULT_CLAIM_GRACE,
        clock: Callable[[], float] = time.time,
        socket_timeout: float = 2.0,
        max_connections: int = 50,
    ) -> None:
        super().__init__()
        if "{" in prefix or "}" in prefix:
            raise ValueError("prefix must not contain braces: they would break the hash tags")
        self.prefix = prefix
        self.history_ttl = history_ttl
        self.lobby_ttl = lobby_ttl
        self.claim_grace = claim_grace
        self.clock = clock
        # Typed as Any: redis-py types every reply as bytes | str whatever decode_responses
        # says, which would need a cast at each call; with decode_responses=True they are str.
        self.socket_timeout = socket_timeout  # for one whole operation (see _guard)
        self._r: Any = aioredis.Redis.from_url(
            url,
            decode_responses=True,
            # A running game's record is compressed bytes (codec.pack): read as text, its
            # bytes that are not UTF-8 come back as lone surrogates, which give back the
            # same bytes (codec.unpack); every other value is UTF-8 text as before.
            encoding_errors="surrogateescape",
            socket_connect_timeout=socket_timeout,
            socket_timeout=None,  # redis-py's default is 5 s per socket call: _guard times instead
            # One retry on a new connection: after Redis restarted, pooled connections it
            # closed fail once; the retry reaches the running server instead of reporting
            # "unavailable" to a player while Redis answers.
            retry=Retry(NoBackoff(), 1, supported_errors=(RedisConnectionError,)),
            retry_on_error=[RedisConnectionError],
            max_connections=max_connections,
        )
        reg = self._r.register_script
        self._create = reg(_CREATE)
        self._save = reg(_SAVE)
        self._delete = reg(_DELETE)
        self._claim = reg(_CLAIM)
        self._release = reg(_RELEASE)
        self._group_result = reg(_GROUP_RESULT)
        self._user_result = reg(_USER_RESULT)
        self._subscribe = reg(_SUBSCRIBE)
        self._first_seen = reg(_FIRST_SEEN)
        self._move_in = reg(_MOVE_IN)

    def _guard(self, *, long: bool = False) -> AbstractAsyncContextManager[None]:
        """The time limit and error mapping of one operation (``long``: a scan of every
        game, ten times the limit)."""
        return _bounded(self.socket_timeout * (10 if long else 1))

    # -- keys --------------------------------------------------------------------------------

    def _g(self, chat_id: int, what: str) -> str:
        return f"{self.prefix}{{g{chat_id}}}:{what}"

    def _u(self, user_id: int, what: str) -> str:
        return f"{self.prefix}{{u{user_id}}}:{what}"

    # -- games -------------------------------------------------------------------------------

    def _alive(self, h: dict[str, str], now: float) -> bool:
        if "status" not in h:
            return False
        return h["status"] != LOBBY or float(h["saved_at"]) + self.lobby_ttl > now

    async def get_game(self, chat_id: int) -> GameRecord | None:
        now = self.clock()
        async with self._guard():
            h = await self._r.hgetall(self._g(chat_id, "game"))
        if not self._alive(h, now):
            return None
        return GameRecord(
            chat_id, int(h["version"]), h["status"], codec.unpack(h["data"]), h["game_id"]
        )

    async def create_game(self, chat_id: int, status: str, data: dict[str, Any]) -> GameRecord:
        check_status(status, allow_finished=False)
        blob = codec.pack(data)
        game_id = secrets.token_hex(8)
        args: list[str | bytes] = [repr(self.clock()), repr(self.lobby_ttl), status, blob, game_id]
        async with self._guard():
            ok = await self._create(
                keys=[self._g(chat_id, "game")], args=[*args, str(_ms(self.lobby_ttl))]
            )
        if not ok:
            raise GameExists(f"chat {chat_id} already has a game")
        return GameRecord(chat_id, 1, status, codec.unpack(blob), game_id)

    async def save_game(self, record: GameRecord) -> GameRecord:
        check_status(record.status, allow_finished=True)
        # A finished game's record goes into the archive as plain JSON (inside the archive
        # entry's own JSON, see _SAVE); a game still going on is stored compressed.
        blob = _dumps(record.data) if record.status == FINISHED else codec.pack(record.data)
        now = self.clock()
        chat_id = record.chat_id
        async with self._guard():
            res = await self._save(
                keys=[
                    self._g(chat_id, "game"),
                    self._g(chat_id, "archive"),
                    self._g(chat_id, "archive_seq"),
                ],
                args=[
                    repr(now),
                    repr(self.lobby_ttl),
                    str(record.version),
                    record.game_id,
                    record.status,
                    blob,
                    _ms(self.lobby_ttl),
                    repr(now - self.history_ttl),
                    _ms(self.history_ttl),
                    HISTORY_MAX_PER_CHAT,
                ],
            )
        if res[0] == "nogame":
            raise NoGame(f"no active game in chat {chat_id}")
        if res[0] == "conflict":
            raise VersionConflict(
                f"chat {chat_id}: stored version {res[1]}, saving {record.version}"
            )
        return GameRecord(chat_id, record.version + 1, record.status, record.data, res[1])

    async def delete_game(self, chat_id: int, version: int) -> None:
        async with self._guard():
            res = await self._delete(
                keys=[self._g(chat_id, "game")],
                args=[repr(self.clock()), repr(self.lobby_ttl), str(version)],
            )
        if res == "nogame":
            raise NoGame(f"no active game in chat {chat_id}")
        if res == "conflict":
            raise VersionConflict(f"chat {chat_id}: game is not at version {version}")

    async def active_games(self) -> list[GameRecord]:
        now = self.clock()
        head = f"{self.prefix}{{g"
        pattern = _glob_escape(head) + "*}:game"
        async with self._guard(long=True):
            keys = [k async for k in self._r.scan_iter(match=pattern, count=1000)]
            async with self._r.pipeline(transaction=False) as pipe:
                for key in keys:
                    pipe.hgetall(key)
                hashes = await pipe.execute()
        games = []
        for key, h in zip(keys, hashes, strict=True):
            chat = key[len(head) : key.index("}", len(head))]
            if self._alive(h, now):
                data = codec.unpack(h["data"])
                games.append(
                    GameRecord(int(chat), int(h["version"]), h["status"], data, h["game_id"])
                )
        return sorted(games, key=lambda g: g.chat_id)

    async def finished_games(self, chat_id: int, limit: int = 10) -> list[GameRecord]:
        if limit <= 0:
            return []
        cutoff = self.clock() - self.history_ttl
        async with self._guard():
            members = await self._r.zrevrangebyscore(
                self._g(chat_id, "archive"), "+inf", f"({cutoff!r}", start=0, num=limit
            )
        out = []
        for m in members:
            d = codec.loads(m[16:])
            out.append(GameRecord(chat_id, d["version"], FINISHED, d["data"], d["game_id"]))
        return out

    # -- players -----------------------------------------------------------------------------

    async def _leaked(self, claim: str, now: float) -> bool:
        """A claim older than the grace whose chat has no lobby/running game any more."""
        chat, _, claimed_at = claim.partition("|")
        if float(claimed_at or 0) + self.claim_grace > now:
            return False
        h = await self._r.hgetall(self._g(int(chat), "game"))
        return not self._alive(h, now)

    async def claim_player(self, user_id: int, chat_id: int) -> int | None:
        now = self.clock()
        key = self._u(user_id, "claim")
        value = f"{chat_id}|{now!r}"
        replace = ""
        async with self._guard():
            for _ in range(5):
                res = await self._claim(keys=[key], args=[str(chat_id), value, replace])
                if res == "ok":
                    return None
                if not await self._leaked(res, now):
                    return int(res.partition("|")[0])
                replace = res  # overwrite only if it is still that same leaked claim
        raise StoreUnavailable(f"claim of user {user_id} keeps changing")  # pragma: no cover

    async def release_players(self, chat_id: int, user_ids: Iterable[int]) -> None:
        users = list(user_ids)
        if not users:
            return
        async with self._guard(), self._r.pipeline(transaction=False) as pipe:
            for u in users:
                await self._release(keys=[self._u(u, "claim")], args=[str(chat_id)], client=pipe)
            await pipe.execute()

    async def player_chat(self, user_id: int) -> int | None:
        now = self.clock()
        async with self._guard():
            claim = await self._r.get(self._u(user_id, "claim"))
            if claim is None or await self._leaked(claim, now):
                return None
        return int(claim.partition("|")[0])

    # -- settings ----------------------------------------------------------------------------

    async def _get_settings(self, key: str) -> dict[str, Any]:
        async with self._guard():
            h = await self._r.hgetall(key)
        return {k: codec.loads(v) for k, v in h.items()}

    async def _update_settings(self, key: str, changes: dict[str, Any]) -> dict[str, Any]:
        sets = {k: _dumps(v) for k, v in changes.items() if v is not None}
        dels = [k for k, v in changes.items() if v is None]
        async with self._guard(), self._r.pipeline(transaction=True) as pipe:
            if sets:
                pipe.hset(key, mapping=sets)
            if dels:
                pipe.hdel(key, *dels)
            pipe.hgetall(key)
            res = await pipe.execute()
        return {k: codec.loads(v) for k, v in res[-1].items()}

    async def _change_settings(self, kind: str, key: int, fn: SettingsChange) -> dict[str, Any]:
        name = self._g(key, "settings") if kind == "group" else self._u(key, "settings")
        for attempt in range(self.update_retries + 1):
            async with self._guard(), self._r.pipeline(transaction=True) as pipe:
                await pipe.watch(name)  # the compare-and-set: EXEC fails if it changed
                current = {k: codec.loads(v) for k, v in (await pipe.hgetall(name)).items()}
                changes = fn(dict(current))
                if not changes:
                    await pipe.unwatch()
                    return current
                sets = {k: _dumps(v) for k, v in changes.items() if v is not None}
                dels = [k for k, v in changes.items() if v is None]
                pipe.multi()
                if sets:
                    pipe.hset(name, mapping=sets)
                if dels:
                    pipe.hdel(name, *dels)
                pipe.hgetall(name)
                try:
                    res = await pipe.execute()
                except WatchError:
                    res = None
            if res is not None:
                return {k: codec.loads(v) for k, v in res[-1].items()}
            await asyncio.sleep(random.uniform(0, 0.002 * min(attempt + 1, 10)))
        raise VersionConflict(f"{kind} {key}: too many concurrent settings changes")

    async def get_group(self, chat_id: int) -> dict[str, Any]:
        return await self._get_settings(self._g(chat_id, "settings"))

    async def update_group(self, chat_id: int, changes: dict[str, Any]) -> dict[str, Any]:
        return await self._update_settings(self._g(chat_id, "settings"), changes)

    async def get_user(self, user_id: int) -> dict[str, Any]:
        return await self._get_settings(self._u(user_id, "settings"))

    async def update_user(self, user_id: int, changes: dict[str, Any]) -> dict[str, Any]:
        return await self._update_settings(self._u(user_id, "settings"), changes)

    # -- statistics --------------------------------------------------------------------------

    async def record_result(self, chat_id: int, result: dict[str, Any]) -> None:
        check_result(result)
        game_id, condition = result["game_id"], result["condition"]
        ttl = _ms(max(RESULT_DEDUP_TTL, self.history_ttl))
        players = list(result.get("players", ()))
        group_args: list[Any] = [ttl, result["winner"], condition]
        for p in players:
            group_args += [p["user_id"], str(p.get("name", "")), int(bool(p["won"]))]
        # The group and each player are counted by separate atomic scripts, each with its own
        # "already counted" marker: a crash in between is repaired by recording again.
        async with self._guard(), self._r.pipeline(transaction=False) as pipe:
            await self._group_result(
                keys=[
                    self._g(chat_id, f"result:{game_id}"),
                    self._g(chat_id, "stats"),
                    self._g(chat_id, "players"),
                ],
                args=group_args,
                client=pipe,
            )
            for p in players:
                uid = p["user_id"]
                await self._user_result(
                    keys=[self._u(uid, f"result:{chat_id}:{game_id}"), self._u(uid, "stats")],
                    args=[ttl, p["role"], int(bool(p["won"])), condition],
                    client=pipe,
                )
            await pipe.execute()

    async def user_stats(self, user_id: int) -> dict[str, Any]:
        async with self._guard():
            h = await self._r.hgetall(self._u(user_id, "stats"))
        stats = empty_user_stats()
        for field, raw in h.items():
            n = int(raw)
            parts = field.split(":")
            if field in ("games", "wins"):
                stats[field] = n
            elif parts[0] == "role" and len(parts) == 3:
                stats["by_role"].setdefault(parts[1], {"games": 0, "wins": 0})[parts[2]] = n
            elif parts[0] == "cond":
                stats["by_condition"][parts[1]] = n
        return stats

    async def group_stats(self, chat_id: int) -> dict[str, Any]:
        async with self._guard(), self._r.pipeline(transaction=True) as pipe:
            pipe.hgetall(self._g(chat_id, "stats"))
            pipe.hgetall(self._g(chat_id, "players"))
            totals, per_player = await pipe.execute()
        stats = empty_group_stats()
        for field, raw in totals.items():
            kind, _, name = field.partition(":")
            if kind == "games":
                stats["games"] = int(raw)
            elif kind == "wins":
                stats["wins"][name] = int(raw)
            elif kind == "cond":
                stats["by_condition"][name] = int(raw)
        players: dict[int, dict[str, Any]] = {}
        for field, raw in per_player.items():
            uid, _, what = field.partition(":")
            entry = players.setdefault(
                int(uid), {"user_id": int(uid), "name": "", "games": 0, "wins": 0}
            )
            entry[what] = raw if what == "name" else int(raw)
        ranked = sorted(players.values(), key=lambda p: (-p["games"], -p["wins"], p["user_id"]))
        stats["players"] = ranked[:10]
        return stats

    async def move_records(self, old_id: int, new_id: int) -> None:
        old = [self._g(old_id, w) for w in ("stats", "players", "archive")]
        async with self._guard(long=True):
            async with self._r.pipeline(transaction=True) as pipe:
                pipe.hgetall(old[0])
                pipe.hgetall(old[1])
                pipe.zrange(old[2], 0, -1, withscores=True)
                stats, players, archive = await pipe.execute()
            await self._move_in(
                keys=[
                    *(self._g(new_id, w) for w in ("stats", "players", "archive")),
                    self._g(new_id, f"moved:{old_id}"),
                ],
                args=[
                    _ms(max(RESULT_DEDUP_TTL, self.history_ttl)),
                    json.dumps({k: int(v) for k, v in stats.items()}),
                    json.dumps(
                        {k: v if k.endswith(":name") else int(v) for k, v in players.items()}
                    ),
                    json.dumps([[m, repr(score)] for m, score in archive]),
                ],
            )
            await self._r.delete(*old)

    # -- /nextgame ---------------------------------------------------------------------------

    async def subscribe_next(self, chat_id: int, user_id: int) -> bool:
        now = self.clock()
        async with self._guard():
            added = await self._subscribe(
                keys=[self._g(chat_id, "next")],
                args=[repr(now), repr(now - self.history_ttl), str(user_id), _ms(self.history_ttl)],
            )
        return bool(added)

    async def pop_subscribers(self, chat_id: int) -> list[int]:
        key = self._g(chat_id, "next")
        cutoff = self.clock() - self.history_ttl
        async with self._guard(), self._r.pipeline(transaction=True) as pipe:
            pipe.zrangebyscore(key, f"({cutoff!r}", "+inf")
            pipe.delete(key)
            members, _ = await pipe.execute()
        return [int(m) for m in members]

    # -- misc --------------------------------------------------------------------------------

    async def first_seen(self, key: str, ttl: float = 3600) -> bool:
        now = self.clock()
        async with self._guard():
            fresh = await self._first_seen(
                keys=[f"{self.prefix}seen:{key}"], args=[repr(now), repr(now + ttl), _ms(ttl)]
            )
        return bool(fresh)

    async def ping(self) -> None:
        async with self._guard():
            await self._r.ping()

    async def close(self) -> None:
        async with self._guard():
            await self._r.aclose()
