"""Game records as JSON text, with orjson: a game's record is parsed and written on every
press, and the standard library's json was a tenth of the bot's CPU time there.

The text is plain JSON (compact, UTF-8), readable by any JSON library, so records written
before (by ``json.dumps``) load unchanged. Integer keys become strings, as with ``json``.

A running game's record in Redis is also compressed (:func:`pack` / :func:`unpack`): its
JSON is repetitive (event names, slot names, the same seats again and again) and deflate
takes it to about a third, which is most of what a running game costs Redis in memory.
:func:`unpack` reads both forms, so a record written as plain JSON still loads.
"""

from __future__ import annotations

import zlib
from typing import Any

import orjson

_OPTIONS = orjson.OPT_NON_STR_KEYS

# zlib's format (a two-byte header and a checksum), level 1 with an 8 KB window and a small
# hash table: for records of 2-10 KB nearly the ratio of level 6, at a third of its time,
# most of which is setting the compressor up (a 32 KB window costs more to clear than to
# fill). Its first byte is 'X' (0x58), never the '{' that a record's plain JSON starts with.
_LEVEL, _WBITS, _MEMLEVEL = 1, 13, 6


def dumps(data: Any) -> str:
    return orjson.dumps(data, option=_OPTIONS).decode()


def loads(text: str | bytes) -> Any:
    return orjson.loads(text)


def pack(data: dict[str, Any]) -> bytes:
    """A record as compressed bytes (zlib of its JSON) for :func:`unpack`."""
    deflate = zlib.compressobj(_LEVEL, zlib.DEFLATED, _WBITS, _MEMLEVEL)
    return deflate.compress(orjson.dumps(data, option=_OPTIONS)) + deflate.flush()


def unpack(blob: str | bytes) -> Any:
    """A record from :func:`pack`'s bytes or from plain JSON (text or bytes), as stored
    before records were compressed."""
    raw = blob.encode("utf-8", "surrogateescape") if isinstance(blob, str) else blob
    if raw[:1] in (b"{", b"[", b" ", b"\n", b"\t", b"\r"):
        return orjson.loads(raw)
    return orjson.loads(zlib.decompress(raw))
