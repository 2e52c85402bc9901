"""Computer players talk too: after a session, an investigation or a peek they claim.

The table opens a *sight* for every seat entitled to a claim (:mod:`shbot.table.claims`);
a person answers with the private buttons, a computer player answers here, through the
same transition (:func:`shbot.table.claims.claim`), so its claim reads in the group exactly
like a person's. What it says comes from its agent, which saw only its own seat (a Liberal
tells the truth; a Fascist may not). A computer standing in for a person claims for the
seat, and the absent person is not asked.

:func:`record` is what a computer seat took in, read back from the table (the event log of
:mod:`shbot.table.knowledge`, filtered by audience, and the claims where they were made):
an agent built mid-game recalls it and decides as one that played from the start.
"""

from __future__ import annotations

import zlib
from collections.abc import Collection, Sequence

from shbot.engine import Discard, Event, Kind
from shbot.engine.claims import Claim, ClaimKind, valid
from shbot.players import Agent, Memory
from shbot.players.talk import ClaimRequest

from . import claims, knowledge
from .model import Table
from .outcome import Outcome, Refusal
from .seats import SeatView, computer_seat

_KINDS = {k.value: k for k in Kind}


def due(table: Table) -> list[str]:
    """Open sights of computer players that have no claim yet (their keys)."""
    game = table.game
    if game is None or game.is_over or table.ending:
        return []
    said = table.talk.get("claims", {})
    return [
        k for k, seat, _ in claims.sights(table) if k not in said and computer_seat(table, seat)
    ]


def pause(table: Table, k: str) -> float:
    """A few seconds, varied per sight (stable across a restart), as a person would take."""
    return 2.0 + 4.0 * (zlib.crc32(f"{table.gid}:{k}".encode()) % 1000 / 1000)


def speak(table: Table, gid: str, k: str, agent: Agent) -> Outcome:
    """The computer at sight ``k`` states its claim (or says nothing); late or repeated
    calls are refused and change nothing."""
    if table.gid != gid or k not in due(table):
        raise Refusal("stale")
    assert table.game is not None
    seat, target, step = table.talk["sights"][k]
    rnd, kind = claims.parse_key(k)
    request = ClaimRequest(rnd, int(seat), kind, target)
    try:
        said = agent.claim(SeatView(table.game), request)
    except Exception:  # a computer that fails to talk stays silent; the game goes on
        said = request.none()
    value = _value(said, request)
    return claims.claim(table, gid, int(step), table.at(int(seat)).id, claims.encode(kind, value))


def _value(said: Claim, request: ClaimRequest) -> str | None:
    """The claimed value in the button's form, None for silence or a malformed claim."""
    if said.kind is not request.kind or said.seat != request.seat:
        return None
    value = said.party if request.kind is ClaimKind.INVESTIGATED else said.policies
    return value if value and valid(request.kind, value) else None


def heard(table: Table, known: set[str]) -> Sequence[tuple[str, Claim]]:
    """Claims on the table that are not in ``known`` yet (to tell the agents)."""
    said = table.talk.get("claims", {})
    return [(k, Claim.from_list(v)) for k, v in said.items() if k not in known]


def record(
    table: Table, seat: int, since: int = 0, heard: Collection[str] = ()
) -> tuple[list[Memory], int, list[str]]:
    """What ``seat`` took in from log line ``since`` on, claims in ``heard`` left out: the
    events it may see, its own discards, and each claim just before the first log line
    written after it. Returns the items, the log's line count and the claims' keys."""
    lines = table.log.splitlines()
    said = table.talk.get("claims", {})
    at = table.talk.get("at", {})
    due = sorted((int(at.get(k, len(lines))), i, k) for i, k in enumerate(said) if k not in heard)
    out: list[Memory] = []
    j = 0
    for i in range(since, len(lines)):
        while j < len(due) and due[j][0] <= i:
            out.append(Claim.from_list(said[due[j][2]]))
            j += 1
        for entry in knowledge.read(lines[i]):
            if not entry.seen_by(seat):
                continue
            if entry.kind == knowledge.ACT:
                action = entry.data["action"]
                if action[0] == "Discard" and int(action[1]) == seat:
                    out.append(Discard(seat, str(action[2])))
            elif entry.kind in _KINDS:
                out.append(Event(_KINDS[entry.kind], entry.data, entry.to))
    out += [Claim.from_list(said[k]) for _, _, k in due[j:]]
    return out, len(lines), [k for _, _, k in due]
