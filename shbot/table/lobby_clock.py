"""The lobby's join deadline: chosen by the host, shown in the lobby, and kept.

A lobby closes to joins at ``options["join_by"]`` (epoch seconds). A minute before, the
lobby message is edited to say so (an edit, never a new message). At the deadline the game
starts by itself with the players who can get their role in private, if they are at least
five; with fewer, the lobby is cancelled. A table that fills up (ten players, all reachable)
starts at once. The scheduler is the bot's (``bot/jobs.py``); these transitions refuse a
deadline that is no longer the table's, so late or duplicate jobs change nothing.
"""

from __future__ import annotations

import time
from typing import Any

from shbot.table.model import Table

from . import lobby
from .outcome import Outcome, Refusal

JOIN_BY, WARNED = "join_by", "join_warned"
DEFAULT_MINUTES, MAX_MINUTES = 10, 60
WARN_SECONDS = 60


def set_deadline(table: Table, minutes: int, now: float | None = None) -> None:
    """The host's choice (clamped to 1-60 minutes) from now."""
    minutes = max(1, min(MAX_MINUTES, minutes))
    table.options[JOIN_BY] = (now or time.time()) + minutes * 60
    table.options.pop(WARNED, None)


def join_by(table: Table) -> float | None:
    """When joining closes; None once the game started or the lobby closed."""
    at = table.options.get(JOIN_BY)
    if table.game is not None or table.ending or not isinstance(at, int | float):
        return None
    return float(at)


def warned(table: Table) -> bool:
    return bool(table.options.get(WARNED))


def describe(table: Table) -> dict[str, Any]:
    """What the job scheduler needs: when to warn, when to close, for which lobby."""
    at = join_by(table)
    if at is None:
        return {}
    out: dict[str, Any] = {"gid": table.gid, "at": at}
    if not warned(table):
        out["warn"] = at - WARN_SECONDS
    return out


def _current(table: Table, gid: str, at: float) -> None:
    if table.gid != gid or join_by(table) != at:
        raise Refusal("stale")


def warn(table: Table, gid: str, at: float) -> Outcome:
    """A minute left: the lobby message says so (an edit)."""
    _current(table, gid, at)
    if warned(table):
        raise Refusal("stale")
    table.options[WARNED] = True
    table.owe("lobby")
    return Outcome(table)


def ready_count(table: Table) -> int:
    return sum(1 for p in table.players if p.ready)


def full(table: Table) -> bool:
    """Ten players, each reachable in private: nobody else can join, so it may start."""
    return len(table.players) >= lobby.MAX_PLAYERS and ready_count(table) == len(table.players)


def expire(table: Table, gid: str, at: float, seed: int, options: dict[str, Any]) -> Outcome:
    """The deadline passed: start with the reachable players if they are five or more
    (the others, who never opened the private chat, are left out); else cancel."""
    _current(table, gid, at)
    people = [p for p in table.players if p.id > 0 and p.ready]
    if ready_count(table) < lobby.MIN_PLAYERS or not people:
        table.ending = "cancelled"
        table.owe("lobby", payload={"closed": "deadline"})
        return Outcome(table, ended=True, release=[p.id for p in table.players])
    left_out = [p.id for p in table.players if not p.ready]
    table.players = [p for p in table.players if p.ready]
    if table.player(table.host) is None:
        table.host = people[0].id
    outcome = lobby.start(table, table.host, True, seed, options)
    outcome.release = left_out
    return outcome
