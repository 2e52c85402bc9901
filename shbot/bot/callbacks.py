"""Callback data: short, self-describing, and checked before anything else happens.

Format ``<game id>:<step>:<op>[:<arg>]`` for game buttons (``k3x9q2:14:v:1``) and
``@<op>:<arg>`` for buttons that belong to no game (language picker, rules pages).
The game id and the step let a press on a stale or foreign button be recognised and
refused without changing anything. Telegram allows at most 64 bytes.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

MAX_BYTES = 64
_GAME_RE = re.compile(r"^([a-z0-9]{4,12}):(\d{1,6}):([a-z]{1,3})(?::([A-Za-z0-9_-]{1,16}))?$")
_FREE_RE = re.compile(r"^@([a-z]{1,8}):([A-Za-z0-9_-]{1,24})$")

# Game operations.
JOIN, LEAVE, START = "j", "l", "s"
NOMINATE, VOTE = "n", "v"
DISCARD, ENACT, VETO, VETO_ANSWER = "d", "e", "vp", "va"
TARGET = "p"
MY_ROLE = "r"
CLAIM = "c"  # <game id>:<round>:c:<kind letter><claim>, see shbot.table.claims
CANCEL_YES, CANCEL_NO = "cy", "cn"
ADD_BOT, REMOVE_BOT, TAKE_BACK = "ba", "br", "tb"  # computer seats (handlers/seats.py)
MYLOG, REMATCH = "k", "rm"  # "What I know" under the role message; "Rematch" on the end card
BACK = "bk"  # the way back to a basic group (no link to a message there): its name
GAME_OPS = frozenset(
    {JOIN, LEAVE, START, NOMINATE, VOTE, DISCARD, ENACT, VETO, VETO_ANSWER, TARGET, MY_ROLE}
    | {CANCEL_YES, CANCEL_NO, CLAIM, ADD_BOT, REMOVE_BOT, TAKE_BACK}
    | {MYLOG, REMATCH, BACK}
)
# Free operations.
LANG, RULES, SETTINGS = "lang", "rules", "set"
FREE_OPS = frozenset({LANG, RULES, SETTINGS})


@dataclass(frozen=True)
class GamePress:
    game_id: str
    step: int
    op: str
    arg: str | None


@dataclass(frozen=True)
class FreePress:
    op: str
    arg: str


def game_data(game_id: str, step: int, op: str, arg: object | None = None) -> str:
    data = f"{game_id}:{step}:{op}" if arg is None else f"{game_id}:{step}:{op}:{arg}"
    if len(data.encode()) > MAX_BYTES or parse(data) is None:
        raise ValueError(f"bad callback data {data!r}")
    return data


def free_data(op: str, arg: str) -> str:
    data = f"@{op}:{arg}"
    if len(data.encode()) > MAX_BYTES or parse(data) is None:
        raise ValueError(f"bad callback data {data!r}")
    return data


@functools.lru_cache(maxsize=4096)  # a pure function; every button is built and pressed often
def parse(data: str | None) -> GamePress | FreePress | None:
    """Decode callback data; None for anything malformed or unknown (forged buttons)."""
    if not data or len(data.encode()) > MAX_BYTES:
        return None
    m = _GAME_RE.match(data)
    if m:
        op = m.group(3)
        if op not in GAME_OPS:
            return None
        return GamePress(m.group(1), int(m.group(2)), op, m.group(4))
    m = _FREE_RE.match(data)
    if m and m.group(1) in FREE_OPS:
        return FreePress(m.group(1), m.group(2))
    return None
