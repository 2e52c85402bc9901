"""A running game's record is stored compressed in Redis; records written as plain JSON by
an older version (a game that was running across the upgrade) still load, and are written
compressed from their next save on."""

from __future__ import annotations

import zlib

import orjson
import pytest
import redis.asyncio as aioredis

from shbot.storage import codec
from shbot.storage.redis import RedisStore
from tests.redis_server import RedisServer

CHAT = -1001
# Names in several scripts: their UTF-8 and the compressed bytes around them must come back.
RECORD = {
    "gid": "ab12cd34",
    "players": [{"id": 7, "name": name} for name in ("Ann", "Zoë", "名前", "Ярослава", "👩‍🚀")],
    "log": '["game_started",[5]]\n' * 40,
    "shown": {"round:1": 12, 3: 4},
}


def test_pack_is_compressed_and_round_trips() -> None:
    blob = codec.pack(RECORD)
    assert isinstance(blob, bytes) and blob[:1] != b"{"
    assert len(blob) < len(codec.dumps(RECORD).encode()) / 2
    assert codec.unpack(blob) == orjson.loads(codec.dumps(RECORD))  # int keys become str
    assert codec.unpack(blob)["shown"] == {"round:1": 12, "3": 4}


@pytest.mark.parametrize("form", ["str", "bytes", "json.dumps"])
def test_unpack_reads_plain_json_as_stored_before(form: str) -> None:
    import json

    text = json.dumps(RECORD) if form == "json.dumps" else codec.dumps(RECORD)
    blob = text.encode() if form == "bytes" else text
    assert codec.unpack(blob) == orjson.loads(codec.dumps(RECORD))


def test_unpack_reads_bytes_read_as_text_with_surrogates() -> None:
    """What redis-py hands back for the compressed bytes (encoding_errors=surrogateescape)."""
    blob = codec.pack(RECORD)
    text = blob.decode("utf-8", "surrogateescape")
    assert codec.unpack(text) == codec.unpack(blob)


#: The id (Adler-32) of ``shbot/storage/record.zdict``: records in Redis name it, so the
#: file must never change (a new dictionary is added beside it).
FIRST_DICTIONARY = 0x3AB05054


def test_pack_uses_the_dictionary_and_it_never_changes() -> None:
    blob = codec.pack(RECORD)
    assert blob[1] & 0x20 and int.from_bytes(blob[2:6], "big") == FIRST_DICTIONARY
    assert FIRST_DICTIONARY in codec._DICTIONARIES


def test_unpack_reads_records_packed_before_the_dictionary() -> None:
    """Level 1 with an 8 KB window and no dictionary, as packed until 2026-11-28."""
    deflate = zlib.compressobj(1, zlib.DEFLATED, 13, 6)
    blob = deflate.compress(orjson.dumps(RECORD, option=orjson.OPT_NON_STR_KEYS))
    blob += deflate.flush()
    assert codec.unpack(blob) == orjson.loads(codec.dumps(RECORD))


def test_the_dictionary_halves_a_records_own_strings() -> None:
    """What a record says once (its keys and names) costs little: a one-move record packs
    to far less than deflate alone makes of it."""
    small = {
        "gid": "ab12cd34",
        "players": [
            {"id": 100001 + i, "name": f"Player{i + 1}", "lang": "en", "ready": True}
            for i in range(7)
        ],
        "step": 3,
        "shown": {},
    }
    text = orjson.dumps(small)
    assert len(codec.pack(small)) < len(zlib.compress(text, 9)) * 0.6


def test_a_record_packed_with_an_unknown_dictionary_is_refused() -> None:
    deflate = zlib.compressobj(3, zlib.DEFLATED, 15, 8, zlib.Z_DEFAULT_STRATEGY, b"other" * 9)
    blob = deflate.compress(codec.dumps(RECORD).encode()) + deflate.flush()
    with pytest.raises(ValueError, match="dictionary"):
        codec.unpack(blob)


def test_a_corrupt_record_is_an_error_not_a_wrong_game() -> None:
    blob = bytearray(codec.pack(RECORD))
    blob[len(blob) // 2] ^= 0xFF
    with pytest.raises((zlib.error, orjson.JSONDecodeError)):
        codec.unpack(bytes(blob))


async def test_redis_loads_a_plain_json_record_and_saves_it_compressed(
    redis_server: RedisServer, redis_prefix: str
) -> None:
    raw = aioredis.Redis.from_url(redis_server.url)
    key = f"{redis_prefix}{{g{CHAT}}}:game"
    # The hash as the previous version wrote it: data is plain JSON text.
    await raw.hset(
        key,
        mapping={
            "game_id": "0123456789abcdef",
            "version": "4",
            "status": "running",
            "data": codec.dumps(RECORD),
            "saved_at": "1700000000.0",
        },
    )
    store = RedisStore(redis_server.url, prefix=redis_prefix)
    try:
        record = await store.get_game(CHAT)
        assert record is not None and record.version == 4
        assert record.data == orjson.loads(codec.dumps(RECORD))
        assert [g.data for g in await store.active_games()] == [record.data]
        record.data["step"] = 1
        saved = await store.save_game(record)
        stored = await raw.hget(key, "data")
        assert stored[:1] != b"{" and codec.unpack(stored) == saved.data
        again = await store.get_game(CHAT)
        assert again is not None and again.data == saved.data and again.version == 5
        # A finished game goes to the archive as plain JSON, as before.
        again.status = "finished"
        await store.save_game(again)
        [finished] = await store.finished_games(CHAT)
        assert finished.data == again.data
        [member] = await raw.zrange(f"{redis_prefix}{{g{CHAT}}}:archive", 0, -1)
        assert b'"data":{' in member
    finally:
        await store.close()
        await raw.aclose()
