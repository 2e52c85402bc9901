"""What one seat knows of its game: the engine's events, filtered by their audience.

The table keeps every event of its game in ``Table.log``: one JSON line per event, the
values of its data in the engine's key order. One string, because the table is loaded and
saved at every press and a string costs next to nothing to parse; it is read only for
/mylog. Beside the events it keeps each President's own discard, addressed to that seat:
the engine tells the Chancellor what they got, but only the President's own choice says
what the President passed on.

:func:`knowledge` turns that log into the facts one seat may know (RULES-SPEC R2, R11):
public events and those whose audience names the seat, never anything else. Each fact
names the log entry it comes from, so a test can check the audience of every private fact.
Pure: no Telegram, no storage, no languages.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any, NamedTuple

from shbot.engine import Discard, Event, Kind
from shbot.engine.actions import Action

from .model import Table

__all__ = ["ACT", "Entry", "Fact", "events", "knowledge", "read", "record"]

#: The kind of a log entry that records a seat's own action (its audience: that seat).
ACT = "act"
#: Events not kept: a ballot cast says nothing the vote result does not say later.
SKIP = frozenset({Kind.VOTE_CAST})
#: The engine's key order per event kind (shbot/engine/events.py). An event whose keys
#: differ from these is stored as a dict, so a change of the engine loses nothing.
KEYS: dict[str, tuple[str, ...]] = {
    Kind.GAME_STARTED: ("players", "seating", "rebalanced", "fascist", "draw"),
    Kind.ROUND_STARTED: ("round", "president", "special"),
    Kind.NOMINATED: ("president", "chancellor"),
    Kind.VOTE_RESULT: ("votes", "ja", "nein", "elected"),
    Kind.GOVERNMENT_ELECTED: ("president", "chancellor"),
    Kind.CONFIRMED_NOT_HITLER: ("seat",),
    Kind.TRACKER_ADVANCED: ("tracker",),
    Kind.SESSION_STARTED: ("president", "chancellor", "veto"),
    Kind.PRESIDENT_HAND: ("policies",),
    Kind.PRESIDENT_DISCARDED: ("president", "chancellor"),
    Kind.CHANCELLOR_HAND: ("policies", "veto"),
    Kind.POLICY_ENACTED: ("policy", "liberal", "fascist", "chaos"),
    Kind.CHAOS: ("policy", "liberal", "fascist", "chaos"),
    Kind.DECK_RESHUFFLED: ("draw",),
    Kind.VETO_PROPOSED: ("president", "chancellor"),
    Kind.VETO_ACCEPTED: ("president", "chancellor"),
    Kind.VETO_REFUSED: ("president", "chancellor"),
    Kind.POWER_GRANTED: ("power", "president"),
    Kind.INVESTIGATED: ("president", "target"),
    Kind.INVESTIGATION_RESULT: ("target", "party"),
    Kind.SPECIAL_ELECTION: ("president", "target"),
    Kind.PEEKED: ("president",),
    Kind.PEEK_RESULT: ("policies",),
    Kind.EXECUTED: ("president", "target"),
    Kind.GAME_OVER: ("winner", "condition", "roles"),
}


class Entry(NamedTuple):
    """One log entry: an engine event (``kind`` a :class:`Kind` value) or a seat's own
    action (``kind`` ``ACT``, ``data["action"]`` as :func:`action_to_list` writes it)."""

    kind: str
    data: dict[str, Any]
    to: tuple[int, ...] | None

    def seen_by(self, seat: int) -> bool:
        """The engine's audience rule (events.py): public, or addressed to ``seat``."""
        return self.to is None or seat in self.to


class Fact(NamedTuple):
    """One thing a seat knows. ``kind`` is an event kind for the public record, else one
    of "role", "drew", "discarded", "received", "enacted", "investigation", "peek",
    "vote". ``source`` is the index of the log entry it comes from."""

    kind: str
    data: dict[str, Any]
    source: int
    private: bool


def _plain(value: Any) -> Any:
    """JSON-ready: the engine's enums are strings, tuples become lists."""
    if isinstance(value, str):
        return str(value)
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


def encode(kind: str, data: dict[str, Any], to: Sequence[int] | None) -> str:
    """One log line: ``[kind, values]`` for a public event, ``[kind, values, to]`` else."""
    keys = KEYS.get(kind)
    body: Any
    if keys is not None and tuple(data) == keys:
        body = [_plain(v) for v in data.values()]
    else:
        body = {k: _plain(v) for k, v in data.items()}
    item = [kind, body] if to is None else [kind, body, list(to)]
    return json.dumps(item, separators=(",", ":"), ensure_ascii=False)


def record(table: Table, events: Iterable[Event], action: Action | None = None) -> None:
    """Keep ``events`` in the table's log; a President's discard is kept for that seat."""
    lines = []
    if isinstance(action, Discard):  # the choice first, then what it caused
        act = {"action": ["Discard", action.seat, action.policy]}
        lines.append(json.dumps([ACT, act, [action.seat]], separators=(",", ":")))
    lines += [encode(e.kind.value, e.data, e.to) for e in events if e.kind not in SKIP]
    if lines:
        table.log = "\n".join([table.log, *lines]) if table.log else "\n".join(lines)


def read(log: str) -> list[Entry]:
    """The stored log as entries (an unreadable line is skipped, never guessed at)."""
    out = []
    for line in log.splitlines():
        try:
            item = json.loads(line)
            kind, body, to = item if len(item) == 3 else (*item, None)
            keys = KEYS.get(kind, ())
            data = dict(zip(keys, body, strict=True)) if isinstance(body, list) else dict(body)
            out.append(Entry(str(kind), data, None if to is None else tuple(int(s) for s in to)))
        except (TypeError, ValueError):
            continue
    return out


def events(entries: Iterable[Entry]) -> list[Event]:
    """The engine events of the log (own actions left out), for a whole-game transcript."""
    kinds = {k.value: k for k in Kind}
    return [Event(kinds[e.kind], e.data, e.to) for e in entries if e.kind in kinds]


def _without(hand: Sequence[str], policy: str) -> list[str]:
    rest = list(hand)
    if policy in rest:
        rest.remove(policy)
    return rest


def knowledge(entries: Sequence[Entry], seat: int) -> list[Fact]:
    """What ``seat`` knows, in the order it learned it. Only entries the seat saw are read:
    the facts depend on nothing else (a property test changes the rest and compares)."""
    facts: list[Fact] = []
    drawn: list[str] = []
    received: tuple[int, list[str]] | None = None  # (source, hand) until the session ends
    for i, e in enumerate(entries):
        if not e.seen_by(seat):
            continue
        kind, d = e.kind, e.data
        if kind == Kind.ROLE:
            facts.append(Fact("role", d, i, True))
        elif kind == Kind.PRESIDENT_HAND:
            drawn = list(d["policies"])
            facts.append(Fact("drew", {"policies": drawn}, i, True))
        elif kind == ACT and d["action"][0] == "Discard":
            policy = d["action"][2]
            facts.append(
                Fact("discarded", {"policy": policy, "passed": _without(drawn, policy)}, i, True)
            )
        elif kind == Kind.CHANCELLOR_HAND:
            received = (i, list(d["policies"]))
            facts.append(Fact("received", {"policies": received[1], "veto": d["veto"]}, i, True))
        elif kind == Kind.INVESTIGATION_RESULT:
            facts.append(Fact("investigation", d, i, True))
        elif kind == Kind.PEEK_RESULT:
            facts.append(Fact("peek", d, i, True))
        elif e.to is None:
            if kind == Kind.POLICY_ENACTED and received is not None:  # my choice, then its result
                rest = _without(received[1], d["policy"])
                enacted = {"policy": d["policy"], "discarded": rest[0] if rest else None}
                facts.append(Fact("enacted", enacted, received[0], True))
            facts.append(Fact(kind, d, i, False))
            if kind == Kind.VOTE_RESULT and seat < len(d["votes"]):
                facts.append(Fact("vote", {"ja": d["votes"][seat]}, i, False))
            if kind in (Kind.POLICY_ENACTED, Kind.VETO_ACCEPTED, Kind.ROUND_STARTED):
                received = None
    return facts
