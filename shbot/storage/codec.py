"""Game records as JSON text, with orjson: a game's record is parsed and written on every
press, and the standard library's json was a tenth of the bot's CPU time there.

The text is plain JSON (compact, UTF-8), readable by any JSON library, so records written
before (by ``json.dumps``) load unchanged. Integer keys become strings, as with ``json``.

A running game's record in Redis is also compressed (:func:`pack` / :func:`unpack`): its
JSON is repetitive (event names, slot names, the same seats again and again) and deflate
takes it to about a third, which is most of what a running game costs Redis in memory.
:func:`unpack` reads both forms, so a record written as plain JSON still loads.

Deflate on its own cannot shorten what a record says only once, and a small record is
mostly that: its keys, event and slot names. A preset dictionary (``record.zdict``: the
JSON of a few records of one 7-player game) gives deflate those strings before the first
byte, which halves a running game's record again (about 2.0 to 1.1 KB after 15 moves).
zlib's header names the dictionary it used (its Adler-32), so a dictionary, once records
are written with it, must stay in :data:`_DICTIONARIES` for as long as they may be read:
add a new file beside it rather than change it.
"""

from __future__ import annotations

import zlib
from importlib import resources
from typing import Any

import orjson

_OPTIONS = orjson.OPT_NON_STR_KEYS

# zlib's format (a two-byte header, the dictionary's id, a checksum): level 3, a 32 KB
# window (the dictionary fills half of it). Its first byte is 'x' (0x78), never the '{'
# that a record's plain JSON starts with. Records packed before the dictionary (level 1,
# an 8 KB window, first byte 'X') still unpack: the header says which.
_LEVEL, _WBITS, _MEMLEVEL = 3, 15, 8
_FDICT = 0x20  # the header's flag for a preset dictionary


def _dictionary(name: str) -> bytes:
    return resources.files(__package__).joinpath(name).read_bytes()


_DICTIONARY = _dictionary("record.zdict")
#: Every dictionary records may have been packed with, by the id zlib's header carries.
_DICTIONARIES = {zlib.adler32(_DICTIONARY): _DICTIONARY}


def dumps(data: Any) -> str:
    return orjson.dumps(data, option=_OPTIONS).decode()


def loads(text: str | bytes) -> Any:
    return orjson.loads(text)


def pack(data: dict[str, Any]) -> bytes:
    """A record as compressed bytes (zlib of its JSON) for :func:`unpack`."""
    deflate = zlib.compressobj(
        _LEVEL, zlib.DEFLATED, _WBITS, _MEMLEVEL, zlib.Z_DEFAULT_STRATEGY, _DICTIONARY
    )
    return deflate.compress(orjson.dumps(data, option=_OPTIONS)) + deflate.flush()


def unpack(blob: str | bytes) -> Any:
    """A record from :func:`pack`'s bytes or from plain JSON (text or bytes), as stored
    before records were compressed."""
    raw = blob.encode("utf-8", "surrogateescape") if isinstance(blob, str) else blob
    if raw[:1] in (b"{", b"[", b" ", b"\n", b"\t", b"\r"):
        return orjson.loads(raw)
    if len(raw) > 6 and raw[1] & _FDICT:
        found = _DICTIONARIES.get(int.from_bytes(raw[2:6], "big"))
        if found is None:
            raise ValueError("a record packed with a dictionary this version does not have")
        inflate = zlib.decompressobj(_WBITS, found)
        return orjson.loads(inflate.decompress(raw) + inflate.flush())
    return orjson.loads(zlib.decompress(raw))
