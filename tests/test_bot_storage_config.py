"""The storage settings of issue 5 reach the store the bot opens, and a game's Redis keys
are prefixed and share one Redis Cluster slot."""

from __future__ import annotations

import redis
from redis.crc import key_slot

from shbot.bot.config import load_config
from shbot.bot.main import open_configured_store
from shbot.storage.redis import RedisStore
from shbot.storage.sqlite import SQLiteStore
from tests.botplay import play_planned, running_bot
from tests.harness import make_users
from tests.redis_server import RedisServer

TOKEN = "123456:" + "A" * 35


async def test_defaults_keep_history_30_days_and_lobbies_an_hour() -> None:
    store = open_configured_store(load_config({"BOT_TOKEN": TOKEN}))
    assert isinstance(store, SQLiteStore) and store.path == "shbot.sqlite3"
    assert (store.history_ttl, store.lobby_ttl) == (30 * 86400, 3600)
    await store.close()
    store = open_configured_store(load_config({"BOT_TOKEN": TOKEN, "REDIS_URL": "redis://x:1/0"}))
    assert isinstance(store, RedisStore) and store.prefix == "shbot:"
    assert (store.history_ttl, store.lobby_ttl) == (30 * 86400, 3600)
    await store.close()


async def test_settings_reach_the_store() -> None:
    env = {
        "BOT_TOKEN": TOKEN,
        "REDIS_URL": "redis://x:1/0",
        "SHBOT_REDIS_PREFIX": "sh2:",
        "SHBOT_HISTORY_DAYS": "7",
        "SHBOT_LOBBY_MINUTES": "15",
    }
    store = open_configured_store(load_config(env))
    assert isinstance(store, RedisStore) and store.prefix == "sh2:"
    assert (store.history_ttl, store.lobby_ttl) == (7 * 86400, 15 * 60)
    await store.close()


async def test_a_games_redis_keys_share_one_slot(
    redis_server: RedisServer, redis_prefix: str
) -> None:
    store = RedisStore(redis_server.url, prefix=redis_prefix)
    users = make_users(5)
    async with running_bot(store) as bot:
        played = await play_planned(
            bot, users, ["F", "L", "x", "F", "F", "F"], targets=["H"], hitler=3
        )
    client = redis.Redis.from_url(redis_server.url, decode_responses=True)
    try:
        keys = list(client.scan_iter(match=redis_prefix + "*", count=1000))
    finally:
        client.close()
    await store.close()
    group = f"{{g{played.group.id}}}"
    game_keys = [k for k in keys if group in k]
    # The archived game, its statistics and the group's settings live under the group's tag.
    assert {k.rsplit(":", 1)[-1] for k in game_keys} >= {"archive", "stats", "settings"}
    assert len({key_slot(k.encode()) for k in game_keys}) == 1, game_keys
    for user in users:
        tagged = [k for k in keys if f"{{u{user.id}}}" in k]
        assert tagged and len({key_slot(k.encode()) for k in tagged}) == 1, tagged
