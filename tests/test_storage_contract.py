"""One behavioural contract, run against both storage backends (SQLite file and real Redis)."""

from __future__ import annotations

import asyncio
import sqlite3
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import redis.asyncio as aioredis

from shbot.storage import (
    GameExists,
    GameRecord,
    NoGame,
    Store,
    StoreUnavailable,
    VersionConflict,
    open_store,
)
from shbot.storage.redis import RedisStore
from shbot.storage.sqlite import SQLiteStore
from tests.redis_server import RedisServer

HOUR = 3600.0
DAY = 24 * HOUR
CHAT, OTHER_CHAT = -1001, -1002


class FakeClock:
    """Injected into the stores so expiry is tested without sleeping."""

    def __init__(self) -> None:
        self.now = 1_700_000_000.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@dataclass
class Backend:
    """Opens Store objects on one backend: several objects stand for several bot processes."""

    name: str
    clock: FakeClock
    sqlite_path: Path | None = None
    redis_url: str | None = None
    redis_prefix: str | None = None
    opened: list[Store] = field(default_factory=list)

    def open(self, **opts: Any) -> Store:
        opts.setdefault("clock", self.clock)
        store: Store
        if self.sqlite_path is not None:
            store = SQLiteStore(str(self.sqlite_path), **opts)
        else:
            assert self.redis_url and self.redis_prefix
            store = RedisStore(self.redis_url, prefix=self.redis_prefix, **opts)
        self.opened.append(store)
        return store

    def raw_redis(self) -> aioredis.Redis:
        assert self.redis_url
        return aioredis.Redis.from_url(self.redis_url, decode_responses=True)


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture(params=["sqlite", "redis"])
async def backend(
    request: pytest.FixtureRequest, tmp_path: Path, clock: FakeClock
) -> AsyncIterator[Backend]:
    if request.param == "sqlite":
        b = Backend("sqlite", clock, sqlite_path=tmp_path / "shbot.sqlite3")
    else:
        server: RedisServer = request.getfixturevalue("redis_server")
        prefix: str = request.getfixturevalue("redis_prefix")
        b = Backend("redis", clock, redis_url=server.url, redis_prefix=prefix)
    yield b
    for store in b.opened:
        await store.close()


@pytest.fixture
def store(backend: Backend) -> Store:
    return backend.open()


def result(game_id: str, winner: str, condition: str, *players: tuple[int, str, str]) -> dict:
    """A result dict; players are (user_id, name, role) and win with their side."""
    side = {"liberal": "liberal", "fascist": "fascist", "hitler": "fascist"}
    return {
        "game_id": game_id,
        "winner": winner,
        "condition": condition,
        "players": [
            {"user_id": u, "name": n, "role": r, "won": side[r] == winner} for u, n, r in players
        ],
    }


# -- games ---------------------------------------------------------------------------------


async def test_create_and_get(store: Store) -> None:
    created = await store.create_game(CHAT, "lobby", {"players": [1, 2], "msg": {"id": 7}})
    assert (created.chat_id, created.version, created.status) == (CHAT, 1, "lobby")
    assert created.game_id
    assert await store.get_game(CHAT) == created
    assert await store.get_game(OTHER_CHAT) is None


async def test_create_on_busy_chat_raises_game_exists(store: Store) -> None:
    await store.create_game(CHAT, "lobby", {})
    with pytest.raises(GameExists):
        await store.create_game(CHAT, "running", {})
    with pytest.raises(ValueError):
        await store.create_game(OTHER_CHAT, "finished", {})


async def test_save_is_compare_and_set(store: Store) -> None:
    v1 = await store.create_game(CHAT, "lobby", {"n": 0})
    v1.data["n"] = 1
    v2 = await store.save_game(v1)
    assert v2.version == 2 and v2.data == {"n": 1}
    assert v1.version == 1, "the input record is left alone"
    with pytest.raises(VersionConflict):
        await store.save_game(v1)  # stale: someone saved in between
    v2.status = "running"
    v3 = await store.save_game(v2)
    assert v3.version == 3
    assert await store.get_game(CHAT) == v3


async def test_save_without_game_raises_no_game(store: Store) -> None:
    with pytest.raises(NoGame):
        await store.save_game(GameRecord(CHAT, 1, "lobby", {}))
    assert issubclass(NoGame, LookupError)


async def test_stale_record_of_cancelled_game_cannot_overwrite_next_game(store: Store) -> None:
    old = await store.create_game(CHAT, "lobby", {"game": "old"})
    await store.delete_game(CHAT, 1)
    new = await store.create_game(CHAT, "lobby", {"game": "new"})
    assert new.version == old.version == 1
    with pytest.raises(VersionConflict):
        await store.save_game(old)
    assert (await store.get_game(CHAT)) == new


async def test_delete_game_is_compare_and_set(store: Store) -> None:
    await store.create_game(CHAT, "lobby", {})
    with pytest.raises(VersionConflict):
        await store.delete_game(CHAT, 2)
    await store.delete_game(CHAT, 1)
    assert await store.get_game(CHAT) is None
    with pytest.raises(NoGame):
        await store.delete_game(CHAT, 1)


async def test_finished_game_is_archived_and_frees_the_chat(store: Store, clock: FakeClock) -> None:
    for i in range(3):
        rec = await store.create_game(CHAT, "running", {"i": i})
        rec.status = "finished"
        done = await store.save_game(rec)
        assert (done.version, done.status) == (2, "finished")
        assert await store.get_game(CHAT) is None
        clock.advance(60)
    history = await store.finished_games(CHAT)
    assert [g.data["i"] for g in history] == [2, 1, 0], "newest first"
    assert all(g.status == "finished" and g.version == 2 and g.chat_id == CHAT for g in history)
    assert [g.data["i"] for g in await store.finished_games(CHAT, limit=2)] == [2, 1]
    assert await store.finished_games(OTHER_CHAT) == []
    # finishing within one clock tick still keeps the order
    for i in (3, 4):
        rec = await store.create_game(CHAT, "running", {"i": i})
        rec.status = "finished"
        await store.save_game(rec)
    assert [g.data["i"] for g in await store.finished_games(CHAT, 2)] == [4, 3]


async def test_active_games_lists_lobbies_and_running_games_only(
    store: Store, clock: FakeClock
) -> None:
    await store.create_game(1, "lobby", {"a": 1})
    await store.create_game(2, "running", {"b": 2})
    finished = await store.create_game(3, "running", {})
    finished.status = "finished"
    await store.save_game(finished)
    await store.create_game(4, "running", {})
    await store.delete_game(4, 1)
    assert [(g.chat_id, g.status, g.data) for g in await store.active_games()] == [
        (1, "lobby", {"a": 1}),
        (2, "running", {"b": 2}),
    ]
    clock.advance(2 * HOUR)  # the lobby expires, the running game does not
    assert [g.chat_id for g in await store.active_games()] == [2]


async def test_lobby_expires_unless_saved(backend: Backend, clock: FakeClock) -> None:
    store = backend.open(lobby_ttl=HOUR)
    rec = await store.create_game(CHAT, "lobby", {})
    clock.advance(HOUR - 10)
    rec = await store.save_game(rec)  # saving keeps it alive for another lobby_ttl
    clock.advance(HOUR - 10)
    assert await store.get_game(CHAT) == rec
    clock.advance(20)
    assert await store.get_game(CHAT) is None
    with pytest.raises(NoGame):
        await store.save_game(rec)
    fresh = await store.create_game(CHAT, "lobby", {"new": True})
    assert fresh.version == 1 and (await store.get_game(CHAT)) == fresh
    # a running game never expires
    fresh.status = "running"
    running = await store.save_game(fresh)
    clock.advance(60 * DAY)
    assert await store.get_game(CHAT) == running


async def test_archive_expires_after_history_ttl(backend: Backend, clock: FakeClock) -> None:
    store = backend.open(history_ttl=DAY)
    rec = await store.create_game(CHAT, "running", {})
    rec.status = "finished"
    await store.save_game(rec)
    clock.advance(DAY - 1)
    assert len(await store.finished_games(CHAT)) == 1
    clock.advance(2)
    assert await store.finished_games(CHAT) == []


async def test_lobby_expires_in_real_time(backend: Backend) -> None:
    """With the real clock: in Redis this is the key's own EXPIRE at work."""
    store = backend.open(clock=time.time, lobby_ttl=0.3)
    await store.create_game(CHAT, "lobby", {})
    assert await store.get_game(CHAT) is not None
    await asyncio.sleep(0.4)
    assert await store.get_game(CHAT) is None
    if backend.name == "redis":
        raw = backend.raw_redis()
        assert await raw.exists(f"{backend.redis_prefix}{{g{CHAT}}}:game") == 0
        await raw.aclose()


async def test_redis_keys_carry_real_ttls(redis_server: RedisServer, redis_prefix: str) -> None:
    """Redis also garbage-collects by EXPIRE, so a lobby forgotten by every process goes."""
    store = RedisStore(redis_server.url, prefix=redis_prefix, lobby_ttl=HOUR, history_ttl=DAY)
    raw = aioredis.Redis.from_url(redis_server.url, decode_responses=True)
    game_key = f"{redis_prefix}{{g{CHAT}}}:game"
    rec = await store.create_game(CHAT, "lobby", {})
    assert HOUR * 1000 - 5000 < await raw.pttl(game_key) <= HOUR * 1000
    rec.status = "running"
    rec = await store.save_game(rec)
    assert await raw.pttl(game_key) == -1, "running games do not expire"
    rec.status = "finished"
    await store.save_game(rec)
    archive_ttl = await raw.pttl(f"{redis_prefix}{{g{CHAT}}}:archive")
    assert DAY * 1000 - 5000 < archive_ttl <= DAY * 1000
    # one game's keys share a hash tag, i.e. one Redis Cluster slot
    keys = [k async for k in raw.scan_iter(match=f"{redis_prefix}*")]
    assert keys and all(f"{{g{CHAT}}}" in k for k in keys)
    await raw.aclose()
    await store.close()


# -- update_game ---------------------------------------------------------------------------


async def test_update_game_mutates_saves_and_returns(store: Store) -> None:
    await store.create_game(CHAT, "lobby", {"players": []})

    def join(rec: GameRecord) -> int:
        rec.data["players"].append(42)
        rec.status = "running"
        return len(rec.data["players"])

    saved, n = await store.update_game(CHAT, join)
    assert n == 1 and saved.version == 2 and saved.status == "running"
    assert await store.get_game(CHAT) == saved


async def test_update_game_saves_nothing_if_fn_raises(store: Store) -> None:
    await store.create_game(CHAT, "lobby", {"n": 0})

    def boom(rec: GameRecord) -> None:
        rec.data["n"] = 99
        raise RuntimeError("illegal move")

    with pytest.raises(RuntimeError, match="illegal move"):
        await store.update_game(CHAT, boom)
    stored = await store.get_game(CHAT)
    assert stored is not None and stored.version == 1 and stored.data == {"n": 0}


async def test_update_game_without_game_raises(store: Store) -> None:
    with pytest.raises(NoGame):
        await store.update_game(CHAT, lambda rec: None)
    with pytest.raises(LookupError):
        await store.update_game(CHAT, lambda rec: None)


async def test_update_game_retries_after_losing_the_race(backend: Backend) -> None:
    store, other = backend.open(), backend.open()
    stale = await store.create_game(CHAT, "lobby", {"n": 0})
    fresh = await other.save_game(GameRecord(CHAT, 1, "lobby", {"n": 10}, stale.game_id))
    real_get = store.get_game
    loads = 0

    async def get_stale_first(chat_id: int) -> GameRecord | None:
        nonlocal loads
        loads += 1
        return stale if loads == 1 else await real_get(chat_id)

    store.get_game = get_stale_first  # type: ignore[method-assign]
    calls = 0

    def incr(rec: GameRecord) -> int:
        nonlocal calls
        calls += 1
        rec.data["n"] += 1
        return rec.data["n"]

    saved, n = await store.update_game(CHAT, incr)
    assert calls == 2, "fn ran again on the reloaded record"
    assert n == 11 and saved.version == fresh.version + 1


async def _hammer(stores: list[Store], n: int) -> None:
    def incr(rec: GameRecord) -> None:
        rec.data["counter"] += 1

    await asyncio.gather(*(stores[i % len(stores)].update_game(CHAT, incr) for i in range(n)))


async def test_50_concurrent_updates_one_store(store: Store) -> None:
    await store.create_game(CHAT, "running", {"counter": 0})
    await _hammer([store], 50)
    rec = await store.get_game(CHAT)
    assert rec is not None and rec.data["counter"] == 50 and rec.version == 51


async def test_50_concurrent_updates_two_processes(backend: Backend) -> None:
    """Two Store objects on one backend stand for two bot processes: only CAS protects."""
    a, b = backend.open(), backend.open()
    await a.create_game(CHAT, "running", {"counter": 0})
    await _hammer([a, b], 50)
    for s in (a, b):
        rec = await s.get_game(CHAT)
        assert rec is not None and rec.data["counter"] == 50 and rec.version == 51


# -- players -------------------------------------------------------------------------------


async def test_claim_player_is_exclusive(store: Store) -> None:
    await store.create_game(CHAT, "running", {})
    await store.create_game(OTHER_CHAT, "running", {})
    assert await store.claim_player(7, CHAT) is None
    assert await store.claim_player(7, CHAT) is None, "claiming again for the same chat is fine"
    assert await store.claim_player(7, OTHER_CHAT) == CHAT
    assert await store.player_chat(7) == CHAT
    await store.release_players(OTHER_CHAT, [7])  # not OTHER_CHAT's to release
    assert await store.player_chat(7) == CHAT
    await store.release_players(CHAT, [7, 8])
    assert await store.player_chat(7) is None
    assert await store.claim_player(7, OTHER_CHAT) is None
    assert await store.player_chat(7) == OTHER_CHAT
    await store.release_players(CHAT, [])


async def test_concurrent_claims_only_one_wins(backend: Backend) -> None:
    stores = [backend.open(), backend.open()]
    chats = list(range(100, 120))
    for c in chats:
        await stores[0].create_game(c, "running", {})
    answers = await asyncio.gather(*(stores[i % 2].claim_player(5, c) for i, c in enumerate(chats)))
    winners = [c for c, a in zip(chats, answers, strict=True) if a is None]
    assert len(winners) == 1
    assert all(a == winners[0] for a in answers if a is not None)


async def test_leaked_claim_is_ignored_after_grace(store: Store, clock: FakeClock) -> None:
    # the bot crashed between finishing CHAT's game and releasing its players
    await store.create_game(CHAT, "running", {})
    assert await store.claim_player(9, CHAT) is None
    rec = await store.get_game(CHAT)
    assert rec is not None
    rec.status = "finished"
    await store.save_game(rec)
    assert await store.claim_player(9, OTHER_CHAT) == CHAT, "within the grace period"
    clock.advance(HOUR)
    assert await store.player_chat(9) is None
    assert await store.claim_player(9, OTHER_CHAT) is None
    assert await store.player_chat(9) == OTHER_CHAT
    # a claim on a game that is still running is never stale
    await store.create_game(OTHER_CHAT, "running", {})
    clock.advance(30 * DAY)
    assert await store.claim_player(9, CHAT) == OTHER_CHAT


# -- settings ------------------------------------------------------------------------------


async def test_settings_are_merged(store: Store) -> None:
    assert await store.get_group(CHAT) == {}
    assert await store.update_group(CHAT, {"lang": "fr"}) == {"lang": "fr"}
    assert await store.update_group(CHAT, {"timer": 90, "roles": {"x": [1]}}) == {
        "lang": "fr",
        "timer": 90,
        "roles": {"x": [1]},
    }
    assert await store.update_group(CHAT, {"lang": None}) == {"timer": 90, "roles": {"x": [1]}}
    assert await store.get_group(CHAT) == {"timer": 90, "roles": {"x": [1]}}
    assert await store.get_group(OTHER_CHAT) == {}
    assert await store.get_user(7) == {}
    assert await store.update_user(7, {"lang": "ja"}) == {"lang": "ja"}
    assert await store.update_user(7, {"dm": False}) == {"lang": "ja", "dm": False}
    assert await store.get_user(7) == {"lang": "ja", "dm": False}
    assert await store.get_user(CHAT) == {}, "users and groups are separate namespaces"


async def test_a_settings_change_reads_what_it_changes(store: Store) -> None:
    """Issue 31: a default is written only where nothing was chosen, whatever came first."""

    def default_lang(current: dict[str, Any]) -> dict[str, Any]:
        return {} if current.get("lang") else {"lang": "en", "title": "G"}

    await store.update_group(CHAT, {"lang": "ja"})
    assert await store.change_group(CHAT, default_lang) == {"lang": "ja"}
    assert await store.change_group(OTHER_CHAT, default_lang) == {"lang": "en", "title": "G"}
    assert await store.change_group(OTHER_CHAT, lambda cur: {"title": None}) == {"lang": "en"}
    assert await store.change_user(7, lambda cur: {"told_in": "g1"}) == {"told_in": "g1"}
    assert await store.change_user(7, lambda cur: None) == {"told_in": "g1"}
    assert await store.get_user(7) == {"told_in": "g1"}
    assert await store.get_group(CHAT) == {"lang": "ja"}


async def test_settings_changes_at_once_lose_nothing(backend: Backend) -> None:
    """Two processes, each changing the same settings many times at once: every change
    counts (a read, then a write, would lose most of them)."""
    stores = [backend.open(), backend.open()]

    def bump(current: dict[str, Any]) -> dict[str, Any]:
        return {"n": int(current.get("n", 0)) + 1}

    await asyncio.gather(
        *(s.change_group(CHAT, bump) for s in stores for _ in range(15)),
        *(s.change_user(7, bump) for s in stores for _ in range(15)),
    )
    assert await stores[0].get_group(CHAT) == {"n": 30}
    assert await stores[1].get_user(7) == {"n": 30}


# -- statistics ----------------------------------------------------------------------------


async def test_stats_count_once_per_game(store: Store) -> None:
    g1 = result("g1", "liberal", "five_liberal", (1, "Ann", "liberal"), (2, "Bob", "hitler"))
    g2 = result("g2", "fascist", "hitler_elected", (1, "Ann", "fascist"), (2, "Bobby", "liberal"))
    await store.record_result(CHAT, g1)
    await store.record_result(CHAT, g2)
    await store.record_result(CHAT, g1)  # duplicate delivery
    ann = await store.user_stats(1)
    assert ann["games"] == 2 and ann["wins"] == 2
    assert ann["by_role"]["liberal"] == {"games": 1, "wins": 1}
    assert ann["by_role"]["fascist"] == {"games": 1, "wins": 1}
    assert ann["by_role"]["hitler"] == {"games": 0, "wins": 0}
    assert ann["by_condition"] == {
        "five_liberal": 1,
        "hitler_executed": 0,
        "six_fascist": 0,
        "hitler_elected": 1,
    }
    bob = await store.user_stats(2)
    assert (bob["games"], bob["wins"]) == (2, 0)
    group = await store.group_stats(CHAT)
    assert group["games"] == 2
    assert group["wins"] == {"liberal": 1, "fascist": 1}
    assert group["by_condition"]["five_liberal"] == 1
    assert group["by_condition"]["hitler_elected"] == 1
    assert group["players"] == [
        {"user_id": 1, "name": "Ann", "games": 2, "wins": 2},
        {"user_id": 2, "name": "Bobby", "games": 2, "wins": 0},  # latest name
    ]
    assert (await store.group_stats(OTHER_CHAT))["games"] == 0
    assert (await store.user_stats(3))["games"] == 0


async def test_group_stats_top_ten_by_games(store: Store) -> None:
    for g in range(12):
        # player u plays the games g >= u, so player 0 played most
        players = [(u, f"P{u}", "liberal") for u in range(12) if g >= u]
        await store.record_result(CHAT, result(f"g{g}", "liberal", "five_liberal", *players))
    top = (await store.group_stats(CHAT))["players"]
    assert [p["user_id"] for p in top] == list(range(10))
    assert [p["games"] for p in top] == list(range(12, 2, -1))


async def test_a_migrated_group_takes_its_statistics_and_history_along(
    store: Store, clock: FakeClock
) -> None:
    """Issue 13: a group upgraded to a supergroup keeps /stats and /history under its new
    id, added to what the new id has; a second call (a crash half-way) counts nothing twice."""
    old, new = -100, -1_000_000_000_100
    await store.record_result(old, result("g1", "liberal", "five_liberal", (1, "Ann", "liberal")))
    await store.record_result(
        old, result("g2", "fascist", "hitler_elected", (1, "Ann", "liberal"), (2, "Bo", "hitler"))
    )
    await store.record_result(
        new, result("g3", "liberal", "hitler_executed", (2, "Bob", "liberal"))
    )
    rec = await store.create_game(old, "running", {"i": 1})
    rec.status = "finished"
    await store.save_game(rec)
    clock.advance(5)
    before_user = await store.user_stats(1)
    for _ in range(2):
        await store.move_records(old, new)
    stats = await store.group_stats(new)
    assert stats["games"] == 3
    assert {k: n for k, n in stats["wins"].items() if n} == {"liberal": 2, "fascist": 1}
    assert {k: n for k, n in stats["by_condition"].items() if n} == {
        "five_liberal": 1,
        "hitler_elected": 1,
        "hitler_executed": 1,
    }
    players = {p["user_id"]: (p["games"], p["wins"]) for p in stats["players"]}
    assert players == {1: (2, 1), 2: (2, 2)}
    assert (await store.group_stats(old))["games"] == 0
    assert [g.data["i"] for g in await store.finished_games(new)] == [1]
    assert await store.finished_games(old) == []
    assert await store.user_stats(1) == before_user, "per-user statistics do not change"


async def test_bad_result_is_rejected(store: Store) -> None:
    with pytest.raises(ValueError):
        await store.record_result(CHAT, result("g", "communist", "five_liberal"))
    with pytest.raises(ValueError):
        await store.record_result(CHAT, result("g", "liberal", "coup"))
    assert (await store.group_stats(CHAT))["games"] == 0


# -- /nextgame, dedup ----------------------------------------------------------------------


async def test_subscriptions(store: Store) -> None:
    assert await store.subscribe_next(CHAT, 3) is True
    assert await store.subscribe_next(CHAT, 1) is True
    assert await store.subscribe_next(CHAT, 3) is False
    assert await store.subscribe_next(CHAT, 2) is True
    assert await store.subscribe_next(OTHER_CHAT, 3) is True
    assert await store.pop_subscribers(CHAT) == [3, 1, 2], "subscription order"
    assert await store.pop_subscribers(CHAT) == []
    assert await store.subscribe_next(CHAT, 3) is True
    assert await store.pop_subscribers(OTHER_CHAT) == [3]


async def test_first_seen(store: Store, clock: FakeClock) -> None:
    assert await store.first_seen("update:1", ttl=60) is True
    assert await store.first_seen("update:1", ttl=60) is False
    assert await store.first_seen("update:2", ttl=60) is True
    clock.advance(61)
    assert await store.first_seen("update:1", ttl=60) is True
    results = await asyncio.gather(*(store.first_seen("update:3") for _ in range(10)))
    assert results.count(True) == 1


# -- restart, misc -------------------------------------------------------------------------


async def test_everything_survives_reopening(backend: Backend, clock: FakeClock) -> None:
    """For SQLite: the same file after a restart. For Redis: a new process, same server."""
    first = backend.open()
    lobby = await first.create_game(CHAT, "lobby", {"x": [1, 2]})
    running = await first.create_game(OTHER_CHAT, "running", {})
    assert await first.claim_player(4, OTHER_CHAT) is None
    await first.update_group(CHAT, {"lang": "ja"})
    await first.update_user(4, {"lang": "fr"})
    await first.record_result(CHAT, result("g1", "fascist", "six_fascist", (4, "D", "hitler")))
    await first.subscribe_next(CHAT, 4)
    await first.first_seen("u1")
    running.status = "finished"
    await first.save_game(running)
    await first.close()

    second = backend.open()
    assert await second.get_game(CHAT) == lobby
    assert [g.chat_id for g in await second.active_games()] == [CHAT]
    assert [g.chat_id for g in await second.finished_games(OTHER_CHAT)] == [OTHER_CHAT]
    assert await second.player_chat(4) == OTHER_CHAT
    assert await second.get_group(CHAT) == {"lang": "ja"}
    assert await second.get_user(4) == {"lang": "fr"}
    assert (await second.user_stats(4))["by_role"]["hitler"] == {"games": 1, "wins": 1}
    await second.record_result(CHAT, result("g1", "fascist", "six_fascist", (4, "D", "hitler")))
    assert (await second.group_stats(CHAT))["games"] == 1
    assert await second.first_seen("u1") is False
    assert await second.pop_subscribers(CHAT) == [4]
    assert await second.save_game(lobby)


async def test_ping(store: Store) -> None:
    await store.ping()


def test_open_store_picks_backend(tmp_path: Path) -> None:
    assert isinstance(open_store(sqlite_path=str(tmp_path / "x.db")), SQLiteStore)
    assert isinstance(open_store("redis://127.0.0.1:1/0", str(tmp_path / "y.db")), RedisStore)
    with pytest.raises(ValueError):
        open_store()


# -- SQLite specifics ----------------------------------------------------------------------


async def test_sqlite_locked_too_long_is_unavailable(tmp_path: Path) -> None:
    path = str(tmp_path / "locked.db")
    store = SQLiteStore(path, busy_timeout=0.2)
    await store.ping()
    blocker = sqlite3.connect(path, isolation_level=None)
    blocker.execute("BEGIN IMMEDIATE")
    started = time.monotonic()
    with pytest.raises(StoreUnavailable):
        await store.create_game(CHAT, "lobby", {})
    assert time.monotonic() - started < 2
    blocker.execute("ROLLBACK")
    blocker.close()
    assert (await store.create_game(CHAT, "lobby", {})).version == 1
    await store.close()


async def test_sqlite_uses_wal(tmp_path: Path) -> None:
    store = SQLiteStore(str(tmp_path / "wal.db"))
    await store.ping()
    await store.close()
    conn = sqlite3.connect(tmp_path / "wal.db")
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    conn.close()
