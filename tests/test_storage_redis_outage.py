"""Redis going away mid-use: fail fast with StoreUnavailable, stay consistent, recover alone."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import pytest

from shbot.storage import GameRecord, StoreUnavailable
from shbot.storage.redis import RedisStore
from tests.redis_server import RedisServer

CHAT = -100
TIMEOUT = 0.5  # the stores under test use short socket timeouts to keep the suite fast


def result(game_id: str) -> dict[str, Any]:
    return {
        "game_id": game_id,
        "winner": "liberal",
        "condition": "hitler_executed",
        "players": [
            {"user_id": u, "name": f"P{u}", "role": "liberal", "won": True} for u in range(1, 6)
        ],
    }


def incr(rec: GameRecord) -> int:
    rec.data["counter"] += 1
    return int(rec.data["counter"])


def every_operation(store: RedisStore) -> dict[str, Callable[[], Awaitable[Any]]]:
    """One call of each Store method: none may leak a raw redis exception or hang."""
    rec = GameRecord(CHAT, 1, "running", {"counter": 0}, "x")
    return {
        "get_game": lambda: store.get_game(CHAT),
        "create_game": lambda: store.create_game(CHAT + 1, "lobby", {}),
        "save_game": lambda: store.save_game(rec),
        "delete_game": lambda: store.delete_game(CHAT, 1),
        "update_game": lambda: store.update_game(CHAT, incr),
        "active_games": store.active_games,
        "finished_games": lambda: store.finished_games(CHAT),
        "claim_player": lambda: store.claim_player(1, CHAT),
        "release_players": lambda: store.release_players(CHAT, [1, 2]),
        "player_chat": lambda: store.player_chat(1),
        "get_group": lambda: store.get_group(CHAT),
        "update_group": lambda: store.update_group(CHAT, {"lang": "fr"}),
        "get_user": lambda: store.get_user(1),
        "update_user": lambda: store.update_user(1, {"lang": "fr"}),
        "record_result": lambda: store.record_result(CHAT, result("g-outage")),
        "user_stats": lambda: store.user_stats(1),
        "group_stats": lambda: store.group_stats(CHAT),
        "subscribe_next": lambda: store.subscribe_next(CHAT, 1),
        "pop_subscribers": lambda: store.pop_subscribers(CHAT),
        "first_seen": lambda: store.first_seen("update:1"),
        "ping": store.ping,
    }


async def assert_unavailable_fast(op: Callable[[], Awaitable[Any]], limit: float) -> None:
    started = time.monotonic()
    with pytest.raises(StoreUnavailable):
        await op()
    assert time.monotonic() - started < limit


@pytest.fixture
async def store(restartable_redis: RedisServer, redis_prefix: str) -> AsyncIterator[RedisStore]:
    s = RedisStore(restartable_redis.url, prefix=redis_prefix, socket_timeout=TIMEOUT)
    yield s
    restartable_redis.ensure_running()
    await s.close()


async def test_stopped_redis_fails_fast_and_store_recovers_on_restart(
    restartable_redis: RedisServer, store: RedisStore
) -> None:
    await store.create_game(CHAT, "running", {"counter": 0})
    await store.update_game(CHAT, incr)
    assert await store.claim_player(1, CHAT) is None

    restartable_redis.stop(kill=True)  # a crash: connections in the pool are now dead
    for name, op in every_operation(store).items():
        try:
            await assert_unavailable_fast(op, limit=1.0)
        except BaseException as e:  # say which operation misbehaved
            raise AssertionError(f"{name}: {e!r}") from e

    restartable_redis.start()  # same port, empty (no persistence configured)
    await store.ping()
    rec = await store.create_game(CHAT, "running", {"counter": 0})
    saved, n = await store.update_game(CHAT, incr)  # its per-chat lock was not left held
    assert n == 1 and saved.version == rec.version + 1
    assert await store.claim_player(1, CHAT) is None
    assert await store.first_seen("after-restart") is True


async def test_hung_redis_times_out_and_nothing_is_half_written(
    restartable_redis: RedisServer, store: RedisStore
) -> None:
    loaded = await store.create_game(CHAT, "running", {"counter": 0, "log": []})
    await store.record_result(CHAT, result("g1"))

    restartable_redis.freeze()  # accepts connections, answers nothing
    loaded.data = {"counter": 1, "log": ["x" * 10_000]}
    started = time.monotonic()
    outcomes = await asyncio.gather(
        store.save_game(loaded),  # sent, but its reply never comes
        store.update_game(CHAT, incr),
        store.record_result(CHAT, result("g2")),
        store.claim_player(1, CHAT),
        store.ping(),
        return_exceptions=True,
    )
    elapsed = time.monotonic() - started
    assert all(isinstance(o, StoreUnavailable) for o in outcomes), outcomes
    assert elapsed < TIMEOUT * 4, f"took {elapsed:.2f}s"

    restartable_redis.thaw()
    await store.ping()
    # Whatever Redis did with the requests it had buffered, each was all-or-nothing.
    rec = await store.get_game(CHAT)
    assert rec is not None
    assert (rec.version, rec.data) in [
        (1, {"counter": 0, "log": []}),
        (2, {"counter": 1, "log": ["x" * 10_000]}),
    ]
    # The caller cannot know whether g2 was counted, so it records it again: exactly once.
    await store.record_result(CHAT, result("g2"))
    assert (await store.group_stats(CHAT))["games"] == 2
    for user in range(1, 6):
        assert (await store.user_stats(user))["games"] == 2
    saved, _ = await store.update_game(CHAT, incr)
    assert saved.version == rec.version + 1


async def test_default_timeouts_notice_a_hung_redis_within_seconds(
    restartable_redis: RedisServer, redis_prefix: str
) -> None:
    store = RedisStore(restartable_redis.url, prefix=redis_prefix)  # default socket timeout
    await store.ping()
    restartable_redis.freeze()
    try:
        await assert_unavailable_fast(lambda: store.get_game(CHAT), limit=3.0)
    finally:
        restartable_redis.thaw()
    await store.ping()
    await store.close()


async def test_store_opened_while_redis_is_down_works_once_it_is_up(
    restartable_redis: RedisServer, redis_prefix: str
) -> None:
    restartable_redis.stop()
    store = RedisStore(restartable_redis.url, prefix=redis_prefix, socket_timeout=TIMEOUT)
    await assert_unavailable_fast(store.ping, limit=1.0)
    restartable_redis.start()
    await store.ping()
    assert (await store.create_game(CHAT, "lobby", {})).version == 1
    await store.close()
