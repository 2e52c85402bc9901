"""Helpers for the engine tests: build exact scenarios, drive random games, and check
what the rules (RULES-SPEC R1–R11) say must hold after every action.

Scenario helpers take a game and play whole steps of a round (nominate + vote, a full
legislative session, three failed elections…) so a test reads like the rule it checks.
The random driver and :class:`Referee` are shared by the property and secrecy tests.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import pytest

from shbot.engine import (
    FASCIST,
    HITLER,
    LIBERAL,
    PRIVATE_KINDS,
    Action,
    AnswerVeto,
    Condition,
    Discard,
    Enact,
    Event,
    Execute,
    Game,
    IllegalAction,
    Investigate,
    Kind,
    Nominate,
    Phase,
    Power,
    ProposeVeto,
    Reason,
    SpecialElection,
    Vote,
    Winner,
)

# ---------------------------------------------------------------------------- scenarios

DEFAULT_ROLES = {
    5: "LLLFH",
    6: "LLLLFH",
    7: "LLLLFFH",
    8: "LLLLLFFH",
    9: "LLLLLFFFH",
    10: "LLLLLLFFFH",
}
"""Fixed roles: Liberals first, then the ordinary Fascists, Hitler in the last seat."""

FLEXIBLE_DECK = "LFF" * 5 + "LF"
"""6 L + 11 F (R1.5). Each of the first five hands is L,F,F, so a government can enact
either party: discard L to pass F,F; discard F to pass L,F."""

# The powers table of R9, written out independently of shbot.engine.rules.
_P, _X, _I, _S = Power.PEEK, Power.EXECUTION, Power.INVESTIGATE, Power.SPECIAL_ELECTION
POWERS_TABLE: dict[int, tuple[Power | None, ...]] = {
    5: (None, None, _P, _X, _X, None),
    6: (None, None, _P, _X, _X, None),
    7: (None, _I, _S, _X, _X, None),
    8: (None, _I, _S, _X, _X, None),
    9: (_I, _I, _S, _X, _X, None),
    10: (_I, _I, _S, _X, _X, None),
}


def make(
    n: int = 5,
    *,
    roles: str | None = None,
    deck: str = FLEXIBLE_DECK,
    first: int = 0,
    seed: int = 0,
    **options: Any,
) -> tuple[Game, list[Event]]:
    """A game with fixed roles, a stacked deck (top tile first) and a fixed first
    presidential candidate."""
    return Game.new(
        n,
        seed,
        roles=roles or DEFAULT_ROLES[n],
        deck=deck,
        first_president=first,
        **options,
    )


def living(g: Game) -> list[int]:
    return [s for s in range(g.n) if g.alive[s]]


def kinds(events: Iterable[Event]) -> list[Kind]:
    return [e.kind for e in events]


def the(events: Iterable[Event], kind: Kind) -> Event:
    """The single event of ``kind`` among ``events``."""
    found = [e for e in events if e.kind is kind]
    assert len(found) == 1, f"expected one {kind}, got {kinds(events)}"
    return found[0]


def nominate(g: Game, chancellor: int) -> list[Event]:
    return g.apply(Nominate(g.president, chancellor))


def vote_all(g: Game, ja: bool | Sequence[bool]) -> list[Event]:
    """Every living player votes at once; ``ja`` is one ballot for all, or one per seat."""
    ballots = [ja] * g.n if isinstance(ja, bool) else list(ja)
    return g.apply_ballots([b if g.alive[s] else None for s, b in enumerate(ballots)])


def first_eligible(g: Game) -> int:
    targets = [a.target for a in g.legal_actions(g.president) if isinstance(a, Nominate)]
    return targets[0]


def elect(g: Game, chancellor: int) -> list[Event]:
    """Nominate ``chancellor`` and have everyone vote Ja (R4.2–R4.6)."""
    return nominate(g, chancellor) + vote_all(g, True)


def reject(g: Game, chancellor: int | None = None) -> list[Event]:
    """Nominate (the first eligible player by default) and have everyone vote Nein."""
    target = first_eligible(g) if chancellor is None else chancellor
    return nominate(g, target) + vote_all(g, False)


def legislate(g: Game, discard: str, enact: str) -> list[Event]:
    """The President discards ``discard``; the Chancellor enacts ``enact`` (R5.1, R5.2)."""
    events = g.apply(Discard(g.president, discard))
    return events + g.apply(Enact(g.chancellor, enact))


def govern(g: Game, chancellor: int, enact: str) -> list[Event]:
    """Elect a government and enact ``enact`` from a hand holding both parties or two of
    ``enact`` (the President discards the other party when possible)."""
    events = elect(g, chancellor)
    other = LIBERAL if enact == FASCIST else FASCIST
    discard = other if other in g.hand else enact
    return events + legislate(g, discard, enact)


def chaos(g: Game) -> list[Event]:
    """Fail elections until the tracker reaches 3 (R6.1)."""
    events: list[Event] = []
    while True:
        events += reject(g)
        if Kind.CHAOS in kinds(events):
            return events


def refused(g: Game, action: Action, reason: Reason) -> IllegalAction:
    """Assert ``action`` is refused for ``reason`` and leaves the state exactly as it was."""
    before = g.to_json()
    with pytest.raises(IllegalAction) as info:
        g.apply(action)
    assert info.value.reason is reason, f"{action}: {info.value.reason} != {reason}"
    assert g.to_json() == before, f"{action} changed the state although refused"
    return info.value


def hitler_seat(g: Game) -> int:
    return g.roles.index(HITLER)


def party(role: str) -> str:
    return LIBERAL if role == LIBERAL else FASCIST


# ---------------------------------------------------------------------------- secrecy (R11)

_POLICY = frozenset({LIBERAL, FASCIST})
PUBLIC_KEYS: dict[Kind, frozenset[str]] = {
    Kind.GAME_STARTED: frozenset({"players", "seating", "rebalanced", "fascist", "draw"}),
    Kind.ROUND_STARTED: frozenset({"round", "president", "special"}),
    Kind.NOMINATED: frozenset({"president", "chancellor"}),
    Kind.VOTE_CAST: frozenset({"seat", "voted", "needed", "changed"}),
    Kind.VOTE_RESULT: frozenset({"votes", "ja", "nein", "elected"}),
    Kind.GOVERNMENT_ELECTED: frozenset({"president", "chancellor"}),
    Kind.CONFIRMED_NOT_HITLER: frozenset({"seat"}),
    Kind.TRACKER_ADVANCED: frozenset({"tracker"}),
    Kind.SESSION_STARTED: frozenset({"president", "chancellor", "veto"}),
    Kind.PRESIDENT_DISCARDED: frozenset({"president", "chancellor"}),
    Kind.POLICY_ENACTED: frozenset({"policy", "liberal", "fascist", "chaos"}),
    Kind.CHAOS: frozenset({"policy", "liberal", "fascist", "chaos"}),
    Kind.DECK_RESHUFFLED: frozenset({"draw"}),
    Kind.VETO_UNLOCKED: frozenset(),
    Kind.VETO_PROPOSED: frozenset({"president", "chancellor"}),
    Kind.VETO_ACCEPTED: frozenset({"president", "chancellor"}),
    Kind.VETO_REFUSED: frozenset({"president", "chancellor"}),
    Kind.POWER_GRANTED: frozenset({"power", "president"}),
    Kind.INVESTIGATED: frozenset({"president", "target"}),
    Kind.SPECIAL_ELECTION: frozenset({"president", "target"}),
    Kind.PEEKED: frozenset({"president"}),
    Kind.EXECUTED: frozenset({"president", "target"}),
    Kind.GAME_OVER: frozenset({"winner", "condition", "roles"}),
}
"""The only keys each public event may carry (R11)."""

SECRET_KEYS = frozenset({"role", "roles", "party", "policies", "hand", "fascists", "hitler"})


def _is_seat_list(value: object) -> bool:
    return isinstance(value, list) and all(v is None or type(v) is int for v in value)


def check_public_event(ev: Event, n: int) -> None:
    """A public event before GAME_OVER tells nothing secret (R5.3, R9.2, R9.4, R9.5, R11):
    only the keys of its kind, only numbers/flags/seats as values; the only tile it may
    name is an enacted one, the only other string a power's name."""
    assert ev.to is None, ev
    assert ev.kind not in PRIVATE_KINDS, ev
    assert ev.kind is not Kind.GAME_OVER, "GAME_OVER is checked apart"
    data = ev.data
    assert set(data) == PUBLIC_KEYS[ev.kind], ev
    assert not SECRET_KEYS & set(data), ev
    for key, value in data.items():
        if key == "policy":
            assert ev.kind in (Kind.POLICY_ENACTED, Kind.CHAOS) and value in _POLICY, ev
        elif key == "power":
            assert ev.kind is Kind.POWER_GRANTED and isinstance(value, Power), ev
        elif key in ("votes", "seating"):
            assert _is_seat_list(value) and len(value) == n, ev
        elif key == "seat" and ev.kind is Kind.VOTE_CAST:
            assert value is None or type(value) is int, ev
        else:
            assert type(value) in (int, bool), ev


def check_private_event(ev: Event, g: Game, entitled: int) -> None:
    """A private event goes to exactly one entitled seat (R11)."""
    assert ev.kind in PRIVATE_KINDS, ev
    assert ev.to == (entitled,), f"{ev} should go to seat {entitled} only"


def check_role_events(events: Sequence[Event], n: int, roles: Sequence[str]) -> None:
    """R2: each player learns their own role and party; Fascists learn the team and Hitler;
    Hitler learns the Fascists only with 5–6 players; Liberals learn nobody."""
    role_events = [e for e in events if e.kind is Kind.ROLE]
    assert [e.to for e in role_events] == [(s,) for s in range(n)]
    fascists = [s for s in range(n) if roles[s] == FASCIST]
    hitler = list(roles).index(HITLER)
    for seat, ev in enumerate(role_events):
        role = roles[seat]
        assert ev.data["role"] == role and ev.data["party"] == party(role)
        assert ev.data["seat"] == seat
        if role == FASCIST:
            assert sorted(ev.data["fascists"]) == [f for f in fascists if f != seat]
            assert ev.data["hitler"] == hitler
        elif role == HITLER and n <= 6:
            assert sorted(ev.data["fascists"]) == fascists
            assert "hitler" not in ev.data
        else:
            assert "fascists" not in ev.data and "hitler" not in ev.data


def check_public_view(g: Game) -> None:
    view = g.public_view()
    if g.phase is Phase.GAME_OVER:
        assert view["roles"] == list(g.roles)
    else:
        assert not SECRET_KEYS & set(view), view
        text = repr(view)
        assert "role" not in text and "hitler" not in text.lower()


# ---------------------------------------------------------------------------- the referee


@dataclass
class Referee:
    """Follows a game through its events alone and checks, after every action, what the
    rules say must hold. It keeps its own account of the rotation (R4.1, R8), term limits
    (R4.2, R6.3), tracker (R4.5, R4.7, R5.5, R6, R7.3), veto (R7), investigations (R9.2),
    powers (R9), tiles (R1.5, R5) and the end (R10), and compares it with the engine."""

    g: Game
    total: int = 0
    composition: tuple[int, int] = (0, 0)
    anchor: int = -1
    special: int | None = None
    last_president: int = -1
    last_chancellor: int = -1
    tracker: int = 0
    board: tuple[int, int] = (0, 0)
    investigated: set[int] = field(default_factory=set)
    session_veto: bool = False
    veto_refused: bool = False
    peeked: list[str] | None = None
    pending_power: Power | None = None
    reshuffled: bool = False
    counts: dict[str, int] = field(default_factory=dict)

    @classmethod
    def start(cls, g: Game, events: list[Event]) -> Referee:
        ref = cls(g)
        ref.total = g.tiles_total()
        ref.composition = ref._composition()
        ref.board = (g.liberal, g.fascist)
        for ev in events:
            ref.count(ev.kind.value)
        started = the(events, Kind.GAME_STARTED)
        assert started.data["players"] == g.n and started.data["draw"] == len(g.draw)
        assert started.data["fascist"] == g.fascist
        check_role_events(events, g.n, g.roles)
        rnd = the(events, Kind.ROUND_STARTED).data
        ref.anchor = rnd["president"]
        assert rnd["round"] == 1 and rnd["special"] is False
        ref._check_public(events)
        ref._check_state()
        return ref

    def _composition(self) -> tuple[int, int]:
        g = self.g
        tiles = g.draw + g.discard + g.hand
        return tiles.count(LIBERAL) + g.liberal, tiles.count(FASCIST) + g.fascist

    def count(self, key: str) -> None:
        self.counts[key] = self.counts.get(key, 0) + 1

    # ------------------------------------------------------------------ per action

    def observe(self, move: Move, before: dict[str, Any], events: list[Event]) -> None:
        """Check the events of one move; ``before`` is what :func:`read_before` read from
        the game just before it."""
        g = self.g
        self.reshuffled = False
        for ev in events:
            self.count(ev.kind.value)
            self._event(ev, move, before)
        self._check_public(events)
        if len(events) == 1 and events[0].kind is Kind.VOTE_CAST:
            assert g.phase is Phase.VOTE  # a ballot, and more to come: nothing else moved
            return
        if Kind.CHAOS in kinds(events):
            assert Kind.POWER_GRANTED not in kinds(events), "R6.2: chaos grants no power"
        self._check_state()
        if g.phase is Phase.GAME_OVER:
            self._check_end(events)

    def _ballots_after(self, move: Move, before: dict[str, Any]) -> list[int]:
        votes = list(before["votes"])
        if move.ballots is not None:
            for seat, b in enumerate(move.ballots):
                if b is not None:
                    votes[seat] = int(b)
        else:
            vote = move.action
            assert type(vote) is Vote
            votes[vote.seat] = int(vote.ja)
        return votes

    def _event(self, ev: Event, move: Move, before: dict[str, Any]) -> None:
        g, d, k = self.g, ev.data, ev.kind
        pres = before["president"]
        if k is Kind.ROUND_STARTED:
            if self.special is not None:  # R8.2
                assert d["president"] == self.special and d["special"] is True
                self.special = None
            else:  # R4.1, R8.1: next living clockwise from the anchor
                expected = next_living(g.alive, self.anchor)
                assert d["president"] == expected and d["special"] is False, (d, expected)
                self.anchor = expected
            assert g.alive[d["president"]], "R9.5: the dead hold no office"
        elif k is Kind.VOTE_CAST:
            alive = before["alive"]
            votes = self._ballots_after(move, before)
            assert d["needed"] == sum(alive)
            assert d["voted"] == sum(1 for s in range(g.n) if alive[s] and votes[s] >= 0)
            if move.ballots is None:
                assert move.action is not None
                seat = move.action[0]
                assert d["seat"] == seat
                assert d["changed"] is (before["votes"][seat] >= 0)
                if d["changed"]:
                    self.count("vote changed")
            else:
                assert d["seat"] is None and d["changed"] is False
        elif k is Kind.VOTE_RESULT:
            alive = before["alive"]
            votes = self._ballots_after(move, before)
            assert d["votes"] == [v if alive[s] else None for s, v in enumerate(votes)]
            assert [v is not None for v in d["votes"]] == alive, "R4.3: the living vote"
            ja = sum(1 for v in d["votes"] if v == 1)
            assert d["ja"] == ja and d["nein"] == sum(alive) - ja
            assert d["elected"] is (2 * ja > sum(alive)), "R4.4: strict majority; a tie fails"
            if 2 * ja == sum(alive):
                self.count("tie")
            if not d["elected"]:
                self.tracker += 1
        elif k is Kind.GOVERNMENT_ELECTED:
            self.last_president, self.last_chancellor = d["president"], d["chancellor"]
            if d["chancellor"] == hitler_seat(g):  # R4.6, R10.4
                over = g.phase is Phase.GAME_OVER
                assert over is (g.fascist >= 3)
                self.count("hitler elected" if over else "hitler elected before 3F")
        elif k is Kind.CONFIRMED_NOT_HITLER:
            assert g.fascist >= 3 and g.roles[d["seat"]] != HITLER  # R4.6
        elif k is Kind.TRACKER_ADVANCED:
            assert d["tracker"] == self.tracker, (d, self.tracker)
        elif k is Kind.SESSION_STARTED:
            self.session_veto = g.fascist >= 5  # R7.1
            assert d["veto"] is self.session_veto
            self.veto_refused = False
        elif k is Kind.PRESIDENT_HAND:
            assert ev.to == (pres,)
            assert d["policies"] == before["top3"], "R5.1: the top 3 tiles, in order"
            if self.peeked is not None:  # R9.4: the peek showed exactly these
                assert d["policies"] == self.peeked
                self.peeked = None
        elif k is Kind.CHANCELLOR_HAND:
            assert ev.to == (g.chancellor,)
            hand = list(before["hand"])
            hand.remove(before["discarded"])
            assert d["policies"] == hand and d["veto"] is self.session_veto  # R5.1, R7.1
        elif k in (Kind.POLICY_ENACTED, Kind.CHAOS):
            self.tracker = 0  # R5.5, R6.3
            self.board = (d["liberal"], d["fascist"])
            chaos = k is Kind.CHAOS
            assert d["chaos"] is chaos
            if chaos:
                if not self.reshuffled:
                    assert d["policy"] == before["top3"][0], "R6.1: the top tile"
                if self.peeked is not None:
                    assert d["policy"] == self.peeked[0]
                    self.peeked = None
                self.last_president = self.last_chancellor = -1  # R6.3
                self.count(f"chaos {d['policy']}")
            else:
                assert d["policy"] == move.action[1] and d["policy"] in before["hand"]
            self.pending_power = None
            if d["policy"] == FASCIST:
                power = POWERS_TABLE[g.n][d["fascist"] - 1]
                if chaos and power is not None:
                    self.count("chaos ignored a power")
                elif d["fascist"] < 6:
                    self.pending_power = power
        elif k is Kind.POWER_GRANTED:
            assert d["power"] is self.pending_power is not None, "R9 powers table"
            assert d["president"] == pres
            self.pending_power = None
            self.count(f"power {d['power']}")
        elif k is Kind.VETO_PROPOSED:
            assert self.session_veto and not self.veto_refused  # R7.1, R7.4
        elif k is Kind.VETO_REFUSED:
            self.veto_refused = True
        elif k is Kind.VETO_ACCEPTED:
            self.tracker += 1  # R7.3
        elif k is Kind.INVESTIGATED:
            assert d["target"] not in self.investigated, "R9.2: once per player"
            assert d["target"] != d["president"] == pres
            self.investigated.add(d["target"])
        elif k is Kind.INVESTIGATION_RESULT:
            assert ev.to == (pres,)
            assert d["party"] == party(g.roles[d["target"]]), "R9.2: the party, never the role"
        elif k is Kind.PEEK_RESULT:
            assert ev.to == (pres,)
            assert d["policies"] == g.draw[-3:][::-1], "R9.4: top 3 in order"
            self.peeked = list(d["policies"])
        elif k is Kind.SPECIAL_ELECTION:
            assert d["target"] != d["president"] == pres and g.alive[d["target"]]
            self.special = d["target"]
            self.anchor = pres  # R8.2: resume after the calling President
        elif k is Kind.EXECUTED:
            assert not g.alive[d["target"]] and d["target"] != pres
        elif k is Kind.DECK_RESHUFFLED:
            # R5.4, R6.4, R7.5: everything that is neither enacted nor in a hand.
            assert d["draw"] == self.total - sum(self.board)
            self.reshuffled = True
        elif k is Kind.VETO_UNLOCKED:
            assert self.board[1] == 5

    def _check_public(self, events: list[Event]) -> None:
        for ev in events:
            if ev.to is None and ev.kind is not Kind.GAME_OVER:
                check_public_event(ev, self.g.n)
            else:
                assert ev.kind in PRIVATE_KINDS or ev.kind is Kind.GAME_OVER, ev
                if ev.kind is Kind.GAME_OVER:
                    assert ev.to is None

    def _check_state(self) -> None:
        g = self.g
        # R1.5: conservation, and the mix of the tiles never changes.
        assert g.tiles_total() == self.total
        assert len(g.draw) + len(g.discard) + len(g.hand) + g.liberal + g.fascist == self.total
        assert self._composition() == self.composition
        assert g.tracker == self.tracker and 0 <= g.tracker < 3
        assert (g.last_president, g.last_chancellor) == (self.last_president, self.last_chancellor)
        assert (g.liberal, g.fascist) == self.board
        assert g.investigated == [s in self.investigated for s in range(g.n)]
        phase = g.phase
        if phase is Phase.GAME_OVER:
            return
        assert g.liberal < 5 and g.fascist < 6 and g.alive[hitler_seat(g)]  # R10
        if phase not in (Phase.PRESIDENT_DISCARD, Phase.CHANCELLOR_ENACT, Phase.VETO_RESPONSE):
            assert len(g.draw) >= 3, "R5.4: the next session can always draw 3"
        pres = g.president
        if phase is Phase.NOMINATE:
            # R4.2 (with R6.3 and R9.5), computed here from the events alone.
            banned = {self.last_chancellor}
            if sum(g.alive) > 5:
                banned.add(self.last_president)
            expected = [s for s in range(g.n) if g.alive[s] and s != pres and s not in banned]
            offered = [a.target for a in g.legal_actions(pres)]  # type: ignore[union-attr]
            assert offered == expected, ("R4.2", offered, expected)
            assert expected, "someone is always eligible"
            assert not g.hand
        elif phase is Phase.CHANCELLOR_ENACT:
            acts = g.legal_actions(g.chancellor)
            has_veto = any(type(a) is ProposeVeto for a in acts)
            assert has_veto is (self.session_veto and not self.veto_refused), "R7.1, R7.4"
            assert len(g.hand) == 2
        elif phase is Phase.PRESIDENT_DISCARD:
            assert len(g.hand) == 3
        elif phase is Phase.INVESTIGATE:
            targets = [a.target for a in g.legal_actions(pres)]  # type: ignore[union-attr]
            assert targets == [
                s for s in range(g.n) if g.alive[s] and s != pres and s not in self.investigated
            ], "R9.2"
        elif phase in (Phase.SPECIAL_ELECTION, Phase.EXECUTION):
            targets = [a.target for a in g.legal_actions(pres)]  # type: ignore[union-attr]
            assert targets == [s for s in range(g.n) if g.alive[s] and s != pres], "R9"

    def _check_end(self, events: list[Event]) -> None:
        """R10: the winner agrees with the final board; every role is revealed."""
        g = self.g
        over = the(events, Kind.GAME_OVER)
        assert events[-1] is over, "nothing happens after the end (R3)"
        assert over.data["roles"] == list(g.roles)
        winner, condition = g.winner, g.condition
        assert over.data["winner"] == winner and over.data["condition"] == condition
        hitler = hitler_seat(g)
        if condition is Condition.FIVE_LIBERAL:
            assert g.liberal == 5 and winner is Winner.LIBERAL
        elif condition is Condition.HITLER_EXECUTED:
            assert not g.alive[hitler] and winner is Winner.LIBERAL
            assert g.liberal < 5 and g.fascist < 6
        elif condition is Condition.SIX_FASCIST:
            assert g.fascist == 6 and winner is Winner.FASCIST
        else:
            assert condition is Condition.HITLER_ELECTED and winner is Winner.FASCIST
            assert g.chancellor == hitler and g.fascist >= 3
            assert g.liberal < 5 and g.fascist < 6
        self.count(condition.value)
        assert g.to_act() == [] and all(not g.legal_actions(s) for s in range(g.n))


def next_living(alive: Sequence[bool], seat: int) -> int:
    n = len(alive)
    for step in range(1, n + 1):
        if alive[(seat + step) % n]:
            return (seat + step) % n
    raise AssertionError("nobody alive")


def read_before(g: Game, move: Move) -> dict[str, Any]:
    """What the referee needs to know from just before a move."""
    action = move.action
    return {
        "alive": list(g.alive),
        "votes": list(g.votes),
        "president": g.president,
        "top3": g.draw[-3:][::-1],
        "hand": list(g.hand),
        "discarded": action.policy if type(action) is Discard else None,
    }


# ---------------------------------------------------------------------------- random play


def random_action(r: random.Random, n: int) -> Action:
    """Any action at all, legal or not: seats and targets slightly out of range too."""
    seat = r.randrange(-1, n + 1)
    target = r.randrange(-1, n + 1)
    kind = r.randrange(9)
    if kind == 0:
        return Nominate(seat, target)
    if kind == 1:
        return Vote(seat, r.random() < 0.5)
    if kind == 2:
        return Discard(seat, r.choice("LFX"))
    if kind == 3:
        return Enact(seat, r.choice("LFX"))
    if kind == 4:
        return ProposeVeto(seat)
    if kind == 5:
        return AnswerVeto(seat, r.random() < 0.5)
    if kind == 6:
        return Investigate(seat, target)
    if kind == 7:
        return SpecialElection(seat, target)
    return Execute(seat, target)


def offered_actions(g: Game) -> set[Action]:
    out: set[Action] = set()
    for seat in range(g.n):
        out.update(g.legal_actions(seat))
    return out


@dataclass
class Settings:
    n: int
    rebalanced: bool
    shuffle_seats: bool
    seat_votes: bool
    ja: float


def settings_for(seed: int) -> Settings:
    """Player counts cycle 5–10; the variants and the way of voting vary with the seed."""
    r = random.Random(seed * 7919 + 1)
    return Settings(
        n=5 + seed % 6,
        rebalanced=(seed // 6) % 2 == 1,
        shuffle_seats=(seed // 12) % 3 == 0,
        seat_votes=r.random() < 0.25,
        ja=r.uniform(0.25, 0.9),
    )


class Move:
    """One step of a random game: an action, or a batch of simultaneous ballots."""

    __slots__ = ("action", "ballots")

    def __init__(self, action: Action | None, ballots: list[bool | None] | None) -> None:
        self.action = action
        self.ballots = ballots

    def play(self, g: Game) -> list[Event]:
        if self.ballots is not None:
            return g.apply_ballots(self.ballots)
        assert self.action is not None
        return g.apply(self.action)


def choose_move(g: Game, r: random.Random, s: Settings) -> Move:
    """A random legal move. Votes: mostly all ballots at once, sometimes in two partial
    batches; with ``seat_votes`` one :class:`Vote` at a time, sometimes changing a ballot
    already cast (allowed until the last living player has voted, R4.3)."""
    if g.phase is Phase.VOTE:
        pending = g.to_act()
        if s.seat_votes:
            voted = [v for v in range(g.n) if g.alive[v] and g.votes[v] >= 0]
            seat = r.choice(voted) if voted and r.random() < 0.3 else r.choice(pending)
            return Move(Vote(seat, r.random() < s.ja), None)
        batch = pending
        if len(pending) > 1 and r.random() < 0.2:
            batch = r.sample(pending, r.randrange(1, len(pending)))
        chosen = set(batch)
        return Move(None, [r.random() < s.ja if v in chosen else None for v in range(g.n)])
    seat = g.to_act()[0]
    acts = g.legal_actions(seat)
    return Move(acts[r.randrange(len(acts))], None)
