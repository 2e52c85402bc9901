"""What a player *says* they saw: public talk, never checked against hidden state.

A claim is table talk (the President says "I drew 🔴🔴🔵"). The engine never reads claims
and never verifies them; they live here, beside the rules, because both the computer
players (which make and read claims) and the table (which shows them and flags claims that
cannot all be true from public facts) need one shared shape, and both import the engine.

What can be said about claims without hidden state is here too: :func:`conflicts` reads
public facts and claims only, so its answer is the same for any two games that share their
public history and their claims.

Policies in a claim are a string of ``LIBERAL``/``FASCIST`` letters (``"FFL"``), sorted
Fascist first except for a peek, whose order (top of the pile first) is part of the claim.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum
from typing import NamedTuple

from .events import PRIVATE_KINDS, Event, Kind
from .rules import FASCIST, FASCIST_POLICIES, LIBERAL, LIBERAL_POLICIES

__all__ = [
    "CHOICES",
    "FACT_KINDS",
    "Claim",
    "ClaimKind",
    "Code",
    "Conflict",
    "Fact",
    "conflicts",
    "normalize",
    "valid",
]


class ClaimKind(StrEnum):
    """Which private sight a claim is about."""

    DRAWN = "drawn"  # President: the three policies drawn
    RECEIVED = "received"  # Chancellor: the two policies passed on
    INVESTIGATED = "investigated"  # President: the party card seen (target, party)
    PEEKED = "peeked"  # President: the top three policies, top first
    NONE = "none"  # "no claim": the seat chose to say nothing


class Claim(NamedTuple):
    """One public statement by ``seat`` about what it saw in ``round``.

    ``policies`` for DRAWN/RECEIVED/PEEKED; ``target`` and ``party`` (LIBERAL/FASCIST) for
    INVESTIGATED; neither for NONE.
    """

    round: int
    seat: int
    kind: ClaimKind
    policies: str = ""
    target: int | None = None
    party: str | None = None

    def to_list(self) -> list[object]:
        """A JSON-friendly form for storage."""
        return [self.round, self.seat, self.kind.value, self.policies, self.target, self.party]

    @classmethod
    def from_list(cls, data: list[object]) -> Claim:
        rnd, seat, kind, policies, target, party = data
        return cls(
            int(str(rnd)),
            int(str(seat)),
            ClaimKind(str(kind)),
            str(policies),
            None if target is None else int(str(target)),
            None if party is None else str(party),
        )


def normalize(kind: ClaimKind, policies: str) -> str:
    """The canonical form of a claimed hand: Fascist first, except a peek keeps its order."""
    if any(p not in (LIBERAL, FASCIST) for p in policies):
        raise ValueError(f"not a policy string: {policies!r}")
    if kind is ClaimKind.PEEKED:
        return policies
    return "".join(sorted(policies, key=lambda p: p != FASCIST))


# ---------------------------------------------------------------------------- choices

#: The claims offered for each sight, in one fixed order that never depends on what the
#: seat really saw (a button order or preselection following the truth would leak it).
CHOICES: dict[ClaimKind, tuple[str, ...]] = {
    ClaimKind.DRAWN: ("FFF", "FFL", "FLL", "LLL"),
    ClaimKind.RECEIVED: ("FF", "FL", "LL"),
    ClaimKind.PEEKED: tuple(a + b + c for a in "FL" for b in "FL" for c in "FL"),
    ClaimKind.INVESTIGATED: (FASCIST, LIBERAL),
}


def valid(kind: ClaimKind, value: str) -> bool:
    """Whether ``value`` is one of the claims offered for a sight of this kind."""
    return value in CHOICES.get(kind, ())


# ---------------------------------------------------------------------------- conflicts


class Fact(NamedTuple):
    """A public event (R11) in the round it happened in: the only input besides claims."""

    round: int
    event: Event


#: Public events the conflict rules read; the table keeps these (and only these).
FACT_KINDS = frozenset(
    {
        Kind.GAME_STARTED,
        Kind.SESSION_STARTED,
        Kind.POLICY_ENACTED,
        Kind.CHAOS,
        Kind.DECK_RESHUFFLED,
        Kind.VETO_ACCEPTED,
        Kind.INVESTIGATED,
        Kind.PEEKED,
    }
)


class Code(StrEnum):
    """Why claims cannot all be true."""

    PAIR = "pair"  # the Chancellor's two are not two of the President's three (R5.1)
    ENACTED = "enacted"  # the enacted policy is missing from a claimed hand (R5.1, R5.2)
    PARTY = "party"  # one player claimed of both parties (R1.3, R9.2)
    DECK = "deck"  # more tiles of a policy than the pile held since its shuffle (R1.5, R5.4):
    # one Conflict per claim sharing the blame (each claim of that policy since the shuffle)
    PEEK = "peek"  # the peek and the next draw (or chaos tile) disagree (R9.4, R6.1)


class Conflict(NamedTuple):
    """Claims that cannot all be true, shown in ``round``'s message next to ``seat``'s claim.

    ``other``: the other round involved (PARTY, PEEK); ``policy``: the policy in question
    (ENACTED: the enacted one; DECK: the one over-claimed; PEEK: a chaos tile);
    ``held``: DECK only, how many tiles of ``policy`` the pile held at its shuffle."""

    round: int
    code: Code
    seat: int
    other: int | None = None
    policy: str | None = None
    held: int | None = None


def _within(small: str, big: str) -> bool:
    """Multiset inclusion of policy strings."""
    return all(small.count(p) <= big.count(p) for p in (LIBERAL, FASCIST))


class _Session(NamedTuple):
    president: int
    chancellor: int
    enacted: str | None  # None: vetoed, or not over


def conflicts(facts: Sequence[Fact], claims: Sequence[Claim]) -> list[Conflict]:
    """Every conflict among ``claims`` and the public ``facts``, in a stable order.

    Takes public events only (a private one raises ValueError): the answer is the same
    for any two games with the same public history and the same claims."""
    for fact in facts:
        if not fact.event.public or fact.event.kind in PRIVATE_KINDS:
            raise ValueError(f"not a public fact: {fact.event.kind}")
    sessions = _sessions(facts)
    said: dict[tuple[int, ClaimKind], Claim] = {}
    for c in claims:
        if c.kind is not ClaimKind.NONE:
            said.setdefault((c.round, c.kind), c)
    drawn, received = _hands(sessions, said)
    out = _pairs(sessions, drawn, received)
    out += _parties([c for c in claims if c.kind is ClaimKind.INVESTIGATED])
    out += _deck(facts, sessions, drawn, received)
    out += _peeks(facts, sessions, said, drawn, received)
    return out


def _sessions(facts: Sequence[Fact]) -> dict[int, _Session]:
    sessions: dict[int, _Session] = {}
    for rnd, e in facts:
        if e.kind is Kind.SESSION_STARTED:
            sessions[rnd] = _Session(e.data["president"], e.data["chancellor"], None)
        elif e.kind is Kind.POLICY_ENACTED and not e.data.get("chaos") and rnd in sessions:
            sessions[rnd] = sessions[rnd]._replace(enacted=e.data["policy"])
    return sessions


def _hands(
    sessions: dict[int, _Session], said: dict[tuple[int, ClaimKind], Claim]
) -> tuple[dict[int, Claim], dict[int, Claim]]:
    """Claimed draws and received hands by round, from the session's own President and
    Chancellor only."""
    drawn, received = {}, {}
    for rnd, s in sessions.items():
        d = said.get((rnd, ClaimKind.DRAWN))
        if d is not None and d.seat == s.president and len(d.policies) == 3:
            drawn[rnd] = d
        r = said.get((rnd, ClaimKind.RECEIVED))
        if r is not None and r.seat == s.chancellor and len(r.policies) == 2:
            received[rnd] = r
    return drawn, received


def _pairs(
    sessions: dict[int, _Session], drawn: dict[int, Claim], received: dict[int, Claim]
) -> list[Conflict]:
    """R5.1: the Chancellor's two are the President's three minus one; R5.2: the enacted
    policy is one of the Chancellor's two (so one of the President's three)."""
    out = []
    for rnd, s in sorted(sessions.items()):
        d, r = drawn.get(rnd), received.get(rnd)
        if d is not None and r is not None and not _within(r.policies, d.policies):
            out.append(Conflict(rnd, Code.PAIR, r.seat))
        for claim in (d, r):
            if claim is not None and s.enacted and s.enacted not in claim.policies:
                out.append(Conflict(rnd, Code.ENACTED, claim.seat, policy=s.enacted))
    return out


def _parties(investigations: Sequence[Claim]) -> list[Conflict]:
    """R1.3/R9.2: a player has one party; two claims naming different ones conflict."""
    out = []
    first: dict[int, Claim] = {}
    for c in sorted(investigations, key=lambda c: c.round):
        if c.target is None or c.party is None:
            continue
        seen = first.setdefault(c.target, c)
        if seen.party != c.party:
            out.append(Conflict(c.round, Code.PARTY, c.seat, other=seen.round))
    return out


def _deck(
    facts: Sequence[Fact],
    sessions: dict[int, _Session],
    drawn: dict[int, Claim],
    received: dict[int, Claim],
) -> list[Conflict]:
    """R1.5/R5.4/R6.1: between two shuffles the Presidents' draws and chaos tiles are
    distinct tiles of one pile, which held 6 - L enacted Liberal and F total - F enacted
    Fascist tiles when shuffled; claims needing more than that cannot all be true."""
    out: list[Conflict] = []
    enacted = {LIBERAL: 0, FASCIST: 0}
    total_fascist = FASCIST_POLICIES
    pile = {LIBERAL: LIBERAL_POLICIES, FASCIST: FASCIST_POLICIES}
    used = {LIBERAL: 0, FASCIST: 0}
    flagged: set[str] = set()
    counted: list[Claim] = []  # the claims whose tiles were counted since the shuffle
    for rnd, e in facts:
        if e.kind is Kind.GAME_STARTED:
            enacted[FASCIST] = int(e.data.get("fascist", 0))
            total_fascist = int(e.data["draw"]) - LIBERAL_POLICIES + enacted[FASCIST]
        if e.kind in (Kind.GAME_STARTED, Kind.DECK_RESHUFFLED):
            pile = {
                LIBERAL: LIBERAL_POLICIES - enacted[LIBERAL],
                FASCIST: total_fascist - enacted[FASCIST],
            }
            used = {LIBERAL: 0, FASCIST: 0}
            flagged, counted = set(), []
            continue
        tiles = ""
        if e.kind is Kind.SESSION_STARTED and rnd in sessions:
            claim = drawn.get(rnd) or received.get(rnd)
            if claim is not None:
                counted.append(claim)
            tiles = claim.policies if claim else sessions[rnd].enacted or ""
        elif e.kind in (Kind.POLICY_ENACTED, Kind.CHAOS):
            enacted[e.data["policy"]] += 1
            if "liberal" in e.data:  # the board's totals, when the event carries them
                enacted = {LIBERAL: e.data["liberal"], FASCIST: e.data["fascist"]}
            tiles = e.data["policy"] if e.kind is Kind.CHAOS else ""
        for p in tiles:
            used[p] += 1
            blamed = [c for c in counted if p in c.policies]
            if used[p] > pile[p] and p not in flagged and blamed:
                # No one claim is the lie: every claim that counted a tile of ``p`` since
                # the shuffle shares the blame (an honest one included), each flagged.
                flagged.add(p)
                out += [
                    Conflict(c.round, Code.DECK, c.seat, policy=p, held=pile[p]) for c in blamed
                ]
    return out


def _peeks(
    facts: Sequence[Fact],
    sessions: dict[int, _Session],
    said: dict[tuple[int, ClaimKind], Claim],
    drawn: dict[int, Claim],
    received: dict[int, Claim],
) -> list[Conflict]:
    """R9.4: the peeked tiles are the next President's draw, unless chaos takes the top
    one first (R6.1: then it must be the peek's top tile) or a reshuffle comes between."""
    out = []
    for i, (rnd, e) in enumerate(facts):
        peek = said.get((rnd, ClaimKind.PEEKED))
        if e.kind is not Kind.PEEKED or peek is None or peek.seat != e.data["president"]:
            continue
        for later, f in facts[i + 1 :]:
            if f.kind is Kind.DECK_RESHUFFLED:
                break
            if f.kind is Kind.CHAOS:
                if f.data["policy"] != peek.policies[0]:
                    out.append(
                        Conflict(rnd, Code.PEEK, peek.seat, other=later, policy=f.data["policy"])
                    )
                break
            if f.kind is Kind.SESSION_STARTED and later in sessions:
                out += _peek_vs_draw(peek, later, sessions[later], drawn, received)
                break
    return out


def _peek_vs_draw(
    peek: Claim,
    rnd: int,
    session: _Session,
    drawn: dict[int, Claim],
    received: dict[int, Claim],
) -> list[Conflict]:
    d, r = drawn.get(rnd), received.get(rnd)
    if d is not None and normalize(ClaimKind.DRAWN, peek.policies) != d.policies:
        return [Conflict(rnd, Code.PEEK, d.seat, other=peek.round)]
    if r is not None and not _within(r.policies, peek.policies):
        return [Conflict(rnd, Code.PEEK, r.seat, other=peek.round)]
    if session.enacted and session.enacted not in peek.policies:
        return [Conflict(peek.round, Code.PEEK, peek.seat, other=rnd, policy=session.enacted)]
    return []
