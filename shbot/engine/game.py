"""The Secret Hitler rules engine (RULES-SPEC R1–R11).

A :class:`Game` is the whole state of one game: it says whose move it is
(:meth:`Game.to_act`), what each seat may do (:meth:`Game.legal_actions`), applies one
action (:meth:`Game.apply`) and returns the events it caused, each with its audience.
It knows nothing of Telegram, storage or languages: seats are numbers 0..n-1 and the
caller maps them to people.

``apply`` validates completely before it changes anything, so a refused action
(:class:`IllegalAction`) never leaves a half-changed state. It mutates in place for speed
(the simulator plays thousands of games a second); :func:`step` is the pure form.
All randomness comes from the generator state stored in the game, so the same seed and the
same actions replay the same game.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from enum import StrEnum
from functools import partial
from typing import Any

from . import rng
from .actions import (
    Action,
    AnswerVeto,
    Discard,
    Enact,
    Execute,
    Investigate,
    Nominate,
    ProposeVeto,
    SpecialElection,
    Vote,
)
from .errors import BadSetup, IllegalAction, Reason
from .events import Condition, Event, Kind, Winner
from .rules import (
    CHAOS_AT,
    FASCIST,
    FASCIST_POLICIES,
    FASCIST_TRACK,
    HITLER,
    HITLER_ZONE,
    LIBERAL,
    LIBERAL_POLICIES,
    LIBERAL_TRACK,
    MAX_PLAYERS,
    MIN_PLAYERS,
    ROLE_COUNTS,
    TERM_LIMIT_EXCEPTION_ALIVE,
    VETO_AT,
    Power,
    fascist_track,
    rebalanced_setup,
)

SCHEMA = 1
NOBODY = -1


class Phase(StrEnum):
    NOMINATE = "nominate"
    VOTE = "vote"
    PRESIDENT_DISCARD = "president_discard"
    CHANCELLOR_ENACT = "chancellor_enact"
    VETO_RESPONSE = "veto_response"
    INVESTIGATE = "investigate"
    SPECIAL_ELECTION = "special_election"
    EXECUTION = "execution"
    GAME_OVER = "game_over"


POWER_PHASES = {
    Power.INVESTIGATE: Phase.INVESTIGATE,
    Power.SPECIAL_ELECTION: Phase.SPECIAL_ELECTION,
    Power.EXECUTION: Phase.EXECUTION,
}
TARGET_ACTIONS: dict[Phase, type[Investigate] | type[SpecialElection] | type[Execute]] = {
    Phase.INVESTIGATE: Investigate,
    Phase.SPECIAL_ELECTION: SpecialElection,
    Phase.EXECUTION: Execute,
}
_PRIVATE_PHASES = (Phase.PRESIDENT_DISCARD, Phase.CHANCELLOR_ENACT, Phase.VETO_RESPONSE)
# Hot-path constants: module globals are about ten times cheaper to reach than enum class
# attributes, and the simulator goes through these millions of times.
_NOMINATE = Phase.NOMINATE
_VOTE = Phase.VOTE
_DISCARD = Phase.PRESIDENT_DISCARD
_ENACT = Phase.CHANCELLOR_ENACT
_VETO = Phase.VETO_RESPONSE
_INVESTIGATE = Phase.INVESTIGATE
_SPECIAL = Phase.SPECIAL_ELECTION
_OVER = Phase.GAME_OVER
# Event kinds, for the same reason.
_K_CHANCELLOR_HAND = Kind.CHANCELLOR_HAND
_K_CHAOS = Kind.CHAOS
_K_CONFIRMED_NOT_HITLER = Kind.CONFIRMED_NOT_HITLER
_K_DECK_RESHUFFLED = Kind.DECK_RESHUFFLED
_K_EXECUTED = Kind.EXECUTED
_K_GAME_OVER = Kind.GAME_OVER
_K_GAME_STARTED = Kind.GAME_STARTED
_K_GOVERNMENT_ELECTED = Kind.GOVERNMENT_ELECTED
_K_INVESTIGATED = Kind.INVESTIGATED
_K_INVESTIGATION_RESULT = Kind.INVESTIGATION_RESULT
_K_NOMINATED = Kind.NOMINATED
_K_PEEKED = Kind.PEEKED
_K_PEEK_RESULT = Kind.PEEK_RESULT
_K_POLICY_ENACTED = Kind.POLICY_ENACTED
_K_POWER_GRANTED = Kind.POWER_GRANTED
_K_PRESIDENT_DISCARDED = Kind.PRESIDENT_DISCARDED
_K_PRESIDENT_HAND = Kind.PRESIDENT_HAND
_K_ROLE = Kind.ROLE
_K_ROUND_STARTED = Kind.ROUND_STARTED
_K_SESSION_STARTED = Kind.SESSION_STARTED
_K_SPECIAL_ELECTION = Kind.SPECIAL_ELECTION
_K_TRACKER_ADVANCED = Kind.TRACKER_ADVANCED
_K_VETO_ACCEPTED = Kind.VETO_ACCEPTED
_K_VETO_PROPOSED = Kind.VETO_PROPOSED
_K_VETO_REFUSED = Kind.VETO_REFUSED
_K_VETO_UNLOCKED = Kind.VETO_UNLOCKED
_K_VOTE_CAST = Kind.VOTE_CAST
_K_VOTE_RESULT = Kind.VOTE_RESULT
_PEEK = Power.PEEK
_BALLOT_CHARS = {-1: "-", 0: "n", 1: "j"}
_event = partial(tuple.__new__, Event)
"""``_event((kind, data, to))`` is ``Event(kind, data, to)`` without the call into Python
code a NamedTuple's constructor makes (the engine builds a hundred events a game)."""

# Every action a seat can be offered is built once: legal_actions picks from these tables
# instead of building new tuples on each call (actions are immutable, so sharing is safe).
_SEATS = range(MAX_PLAYERS)
_VOTES: tuple[tuple[Vote, Vote], ...] = tuple((Vote(s, True), Vote(s, False)) for s in _SEATS)
_NOMINATIONS = tuple(tuple(Nominate(s, t) for t in _SEATS) for s in _SEATS)
_TARGETED: dict[Phase, tuple[tuple[Action, ...], ...]] = {
    phase: tuple(tuple(cls(s, t) for t in _SEATS) for s in _SEATS)
    for phase, cls in TARGET_ACTIONS.items()
}
# Discard and Enact choices, Fascist first (the order of ``sorted(set(hand))``).
_DISCARDS = tuple((Discard(s, FASCIST), Discard(s, LIBERAL)) for s in _SEATS)
_ENACTS = tuple((Enact(s, FASCIST), Enact(s, LIBERAL)) for s in _SEATS)
_PROPOSE_VETO = tuple(ProposeVeto(s) for s in _SEATS)
_ANSWERS = tuple((AnswerVeto(s, True), AnswerVeto(s, False)) for s in _SEATS)


_FULL_TABLE_NOMINATIONS: dict[tuple[int, int, int, int], tuple[Nominate, ...]] = {}
"""(players, candidate, last chancellor, last president) → nominations open while every
player lives: under 8,000 keys in all, filled as they come up."""
_BALLOT_FORMS: dict[tuple[int, ...], tuple[tuple[int | None, ...], str, int]] = {}
"""Vote patterns seen so far → (ballots for the VOTE_RESULT event, history letters, Ja
count). Capped: the 2,016 full-table patterns of 5–10 players cover most elections."""
_BALLOT_FORMS_MAX = 8192


def _ballot_forms(votes: tuple[int, ...]) -> tuple[tuple[int | None, ...], str, int]:
    ballots = tuple(v if v >= 0 else None for v in votes)
    return ballots, "".join([_BALLOT_CHARS[v] for v in votes]), votes.count(1)


def _choices(pair: tuple[Action, Action], hand: list[str]) -> list[Action]:
    """The (Fascist, Liberal) pair of a seat's choices, kept for the parties in ``hand``."""
    out = []
    if FASCIST in hand:
        out.append(pair[0])
    if LIBERAL in hand:
        out.append(pair[1])
    return out


def party_of(role: str) -> str:
    """Party membership (R1.3): Hitler belongs to the Fascist party."""
    return LIBERAL if role == LIBERAL else FASCIST


#: How :meth:`Game.clone` copies each field: immutable values, flat lists, the rest by hand.
_SCALARS = (
    "anchor",
    "chancellor",
    "condition",
    "last_chancellor",
    "last_president",
    "liberal",
    "fascist",
    "n",
    "phase",
    "president",
    "rng",
    "round",
    "special",
    "tracker",
    "veto_refused",
    "winner",
)
_LISTS = (
    "alive",
    "confirmed",
    "discard",
    "draw",
    "hand",
    "investigated",
    "roles",
    "seating",
    "votes",
)


class Game:
    """One game's complete state. Attributes are public for reading; change it only
    through :meth:`apply`."""

    __slots__ = (
        "alive",
        "anchor",
        "chancellor",
        "condition",
        "confirmed",
        "discard",
        "draw",
        "fascist",
        "hand",
        "history",
        "investigated",
        "last_chancellor",
        "last_president",
        "liberal",
        "n",
        "options",
        "phase",
        "president",
        "rng",
        "roles",
        "round",
        "seating",
        "special",
        "tracker",
        "veto_refused",
        "votes",
        "winner",
    )

    n: int
    roles: list[str]
    seating: list[int]
    alive: list[bool]
    confirmed: list[bool]
    investigated: list[bool]
    phase: Phase
    round: int
    president: int
    chancellor: int
    last_president: int
    last_chancellor: int
    anchor: int
    special: int
    votes: list[int]
    tracker: int
    liberal: int
    fascist: int
    draw: list[str]
    discard: list[str]
    hand: list[str]
    veto_refused: bool
    winner: Winner | None
    condition: Condition | None
    rng: int
    options: dict[str, Any]
    history: list[list[Any]]

    # ------------------------------------------------------------------ set-up (R1)

    @classmethod
    def new(
        cls,
        players: int,
        seed: int,
        *,
        shuffle_seats: bool = False,
        rebalanced: bool = False,
        roles: str | list[str] | None = None,
        deck: str | list[str] | None = None,
        first_president: int | None = None,
    ) -> tuple[Game, list[Event]]:
        """Deal a new game and return it with its opening events (roles, first round).

        ``roles`` (one letter per seat, e.g. ``"LLFHL"``), ``deck`` (top tile first) and
        ``first_president`` fix what is otherwise random, for tests and replays.
        """
        if not isinstance(players, int) or not MIN_PLAYERS <= players <= MAX_PLAYERS:
            raise BadSetup(
                f"Secret Hitler needs {MIN_PLAYERS} to {MAX_PLAYERS} players", players=players
            )
        g = cls.__new__(cls)
        g.n = players
        g.rng = rng.seed_state(seed)
        g.options = {"shuffle_seats": bool(shuffle_seats), "rebalanced": bool(rebalanced)}
        removed, preset = rebalanced_setup(players) if rebalanced else (0, 0)

        g.seating = list(range(players))
        if shuffle_seats:
            g.rng = rng.shuffle(g.rng, g.seating)

        if roles is None:
            libs, fascists, _ = ROLE_COUNTS[players]
            dealt = [LIBERAL] * libs + [FASCIST] * fascists + [HITLER]
            g.rng = rng.shuffle(g.rng, dealt)
        else:
            dealt = list(roles)
            expected = sorted(
                [LIBERAL] * ROLE_COUNTS[players][0] + [FASCIST] * ROLE_COUNTS[players][1] + [HITLER]
            )
            if sorted(dealt) != expected:
                raise BadSetup(f"roles {roles!r} do not fit {players} players", players=players)
        g.roles = dealt

        total_fascist = FASCIST_POLICIES - removed
        if deck is None:
            pile = [LIBERAL] * LIBERAL_POLICIES + [FASCIST] * (total_fascist - preset)
            g.rng = rng.shuffle(g.rng, pile)
        else:
            pile = list(reversed(list(deck)))  # stored with the top tile last
            if any(p not in (LIBERAL, FASCIST) for p in pile) or len(pile) < 3:
                raise BadSetup("a deck is a string of L and F, at least 3 tiles")
        g.draw = pile
        g.discard = []
        g.hand = []

        if first_president is None:
            first, g.rng = rng.below(g.rng, players)
        elif 0 <= first_president < players:
            first = first_president
        else:
            raise BadSetup("first president out of range", players=players)

        g.alive = [True] * players
        g.confirmed = [False] * players
        g.investigated = [False] * players
        g.votes = [-1] * players
        g.phase = _NOMINATE
        g.round = 0
        g.president = NOBODY
        g.chancellor = NOBODY
        g.last_president = NOBODY
        g.last_chancellor = NOBODY
        g.special = NOBODY
        g.tracker = 0
        g.liberal = 0
        g.fascist = preset
        g.veto_refused = False
        g.winner = None
        g.condition = None
        g.history = []

        started = {
            "players": players,
            "seating": list(g.seating),
            "rebalanced": g.options["rebalanced"],
            "fascist": g.fascist,
            "draw": len(g.draw),
        }
        events = [_event((_K_GAME_STARTED, started, None))]
        events.extend(g._role_events())
        g.anchor = (first - 1) % players  # so the first "next living" is `first`
        g._start_round(events)
        return g, events

    def _role_events(self) -> list[Event]:
        """Private knowledge at the start (R2)."""
        roles = self.roles
        fascists = [s for s, r in enumerate(roles) if r == FASCIST]
        hitler = roles.index(HITLER)
        out = []
        for seat, role in enumerate(roles):
            data: dict[str, Any]
            if role == LIBERAL:  # R2.5
                data = {"role": role, "party": LIBERAL, "seat": seat}
            elif role == FASCIST:  # R2.2
                others = [s for s in fascists if s != seat]
                data = {"role": role, "party": FASCIST, "seat": seat, "fascists": others}
                data["hitler"] = hitler
            else:
                data = {"role": role, "party": FASCIST, "seat": seat}
                if self.n <= 6:  # R2.3
                    data["fascists"] = fascists
            out.append(_event((_K_ROLE, data, (seat,))))
        return out

    # ------------------------------------------------------------------ queries

    @property
    def is_over(self) -> bool:
        return self.phase is _OVER

    @property
    def alive_count(self) -> int:
        return sum(self.alive)

    @property
    def veto_unlocked(self) -> bool:
        return self.fascist >= VETO_AT

    @property
    def powers(self) -> tuple[Power | None, ...]:
        return fascist_track(self.n)

    def _barred(self) -> tuple[int, int]:
        """(last elected chancellor, last elected president or NOBODY): the seats R4.2
        term-limits. With 5 or fewer players alive the last president is eligible."""
        if self.alive.count(True) > TERM_LIMIT_EXCEPTION_ALIVE:
            return self.last_chancellor, self.last_president
        return self.last_chancellor, NOBODY

    def term_limited(self) -> list[int]:
        """Living seats that cannot be nominated chancellor for term reasons (R4.2)."""
        alive = self.alive
        return [s for s in self._barred() if s >= 0 and alive[s]]

    def eligible_chancellors(self) -> list[int]:
        """Living seats the presidential candidate may nominate (R4.2)."""
        chan, pres_limited = self._barred()
        pres = self.president
        alive = self.alive
        return [
            s for s in range(self.n) if alive[s] and s != pres and s != chan and s != pres_limited
        ]

    def power_targets(self) -> list[int]:
        """Legal targets of the pending power: other living players, and for Investigate
        only those never investigated (R9.2)."""
        pres = self.president
        alive = self.alive
        if self.phase is _INVESTIGATE:
            inv = self.investigated
            return [s for s in range(self.n) if alive[s] and s != pres and not inv[s]]
        return [s for s in range(self.n) if alive[s] and s != pres]

    def to_act(self) -> list[int]:
        """Seats whose move the game is waiting for (several during a vote)."""
        phase = self.phase
        if phase is _VOTE:
            votes = self.votes
            alive = self.alive
            return [s for s in range(self.n) if alive[s] and votes[s] < 0]
        if phase is _ENACT:
            return [self.chancellor]
        if phase is _OVER:
            return []
        return [self.president]

    def legal_actions(self, seat: int) -> Sequence[Action]:
        """Every action ``seat`` may take now; empty when it is not that seat's move.

        During a vote a living player who already voted may still change the ballot."""
        phase = self.phase
        if phase is _VOTE:
            if 0 <= seat < self.n and self.alive[seat]:
                return _VOTES[seat]
            return ()
        if phase is _OVER:
            return ()
        if phase is _ENACT:
            if seat != self.chancellor:
                return []
            acts = _choices(_ENACTS[seat], self.hand)
            if self.fascist >= VETO_AT and not self.veto_refused:
                acts.append(_PROPOSE_VETO[seat])
            return acts
        if seat != self.president:
            return []
        if phase is _NOMINATE:  # eligible_chancellors() and _barred(), inlined
            alive = self.alive
            n = self.n
            living = alive.count(True)
            chan = self.last_chancellor
            pres = self.last_president if living > TERM_LIMIT_EXCEPTION_ALIVE else seat
            if living == n:  # nobody executed yet: the usual case, answered from a table
                key = (n, seat, chan, pres)
                try:
                    return list(_FULL_TABLE_NOMINATIONS[key])
                except KeyError:
                    pass
            noms = _NOMINATIONS[seat]
            offered = [
                noms[t] for t in range(n) if alive[t] and t != seat and t != chan and t != pres
            ]
            if living == n:
                _FULL_TABLE_NOMINATIONS[key] = tuple(offered)
            return offered
        if phase is _DISCARD:
            return _choices(_DISCARDS[seat], self.hand)
        if phase is _VETO:
            return list(_ANSWERS[seat])
        row = _TARGETED[phase][seat]
        return [row[t] for t in self.power_targets()]

    # ------------------------------------------------------------------ apply

    def apply(self, action: Action) -> list[Event]:
        """Apply one action in place and return the events it caused.

        Raises :class:`IllegalAction` (state untouched) for anything the rules forbid."""
        if self.phase is _OVER:
            raise IllegalAction(Reason.GAME_OVER)
        handler = _HANDLERS.get(type(action))
        if handler is None:
            raise IllegalAction(Reason.BAD_ACTION, repr(action))
        return handler(self, action)

    def _check_seat(self, seat: object) -> None:
        if type(seat) is not int or not 0 <= seat < self.n:
            raise IllegalAction(Reason.NO_SUCH_SEAT, repr(seat))

    def _expect(self, phase: Phase, seat: int, actor: int) -> None:
        if type(seat) is not int or not 0 <= seat < self.n:  # _check_seat, inlined
            raise IllegalAction(Reason.NO_SUCH_SEAT, repr(seat))
        if self.phase is not phase:
            raise IllegalAction(Reason.WRONG_PHASE, f"{self.phase.value}")
        if seat != actor:
            raise IllegalAction(Reason.NOT_YOUR_TURN)

    # R4.2
    def _nominate(self, a: Nominate) -> list[Event]:
        seat, t = a
        if self.phase is not _NOMINATE or seat != self.president or type(seat) is not int:
            self._expect(_NOMINATE, seat, self.president)  # raises the precise reason
        if type(t) is not int or not 0 <= t < self.n:  # _check_seat, inlined
            raise IllegalAction(Reason.NO_SUCH_SEAT, repr(t))
        if t == seat:
            raise IllegalAction(Reason.SELF_TARGET)
        if not self.alive[t]:
            raise IllegalAction(Reason.DEAD_PLAYER)
        if t == self.last_chancellor or (
            t == self.last_president
            and self.alive.count(True) > TERM_LIMIT_EXCEPTION_ALIVE  # _barred(), inlined
        ):
            raise IllegalAction(Reason.NOT_ELIGIBLE)
        self.chancellor = t
        self.phase = _VOTE
        return [_event((_K_NOMINATED, {"president": self.president, "chancellor": t}, None))]

    # R4.3–R4.7
    def _vote(self, a: Vote) -> list[Event]:
        seat, ja = a
        if self.phase is not _VOTE:
            raise IllegalAction(Reason.WRONG_PHASE, self.phase.value)
        if type(seat) is not int or not 0 <= seat < self.n:
            raise IllegalAction(Reason.NO_SUCH_SEAT, repr(seat))
        alive = self.alive
        if not alive[seat]:
            raise IllegalAction(Reason.DEAD_PLAYER)
        if ja is not True and ja is not False:
            raise IllegalAction(Reason.BAD_ACTION, "ballot must be a bool")
        votes = self.votes
        changed = votes[seat] >= 0
        votes[seat] = 1 if ja else 0
        living = alive.count(True)
        # Dead seats keep -1, so pending living voters = all -1 minus the dead.
        voted = living - (votes.count(-1) - (self.n - living))
        cast = {"seat": seat, "voted": voted, "needed": living, "changed": changed}
        events = [_event((_K_VOTE_CAST, cast, None))]
        if voted == living:
            self._tally(events, living)
        return events

    def apply_ballots(self, ballots: Sequence[bool | None]) -> list[Event]:
        """Record several ballots at once, indexed by seat (``None``: no ballot from that
        seat now). The simultaneous-move form of a vote, used by the simulator and AI seats:
        one call per election instead of one per voter. Everything is validated before any
        ballot is recorded; the result is tallied once every living player has voted."""
        if self.phase is not _VOTE:
            raise IllegalAction(
                Reason.GAME_OVER if self.phase is _OVER else Reason.WRONG_PHASE,
                self.phase.value,
            )
        n = self.n
        if len(ballots) != n:
            raise IllegalAction(Reason.BAD_ACTION, "one entry per seat")
        alive = self.alive
        # One pass that validates into a copy, committed only if every entry is valid.
        votes = self.votes[:]
        for seat, b in enumerate(ballots):
            if b is True:
                if not alive[seat]:
                    raise IllegalAction(Reason.DEAD_PLAYER)
                votes[seat] = 1
            elif b is False:
                if not alive[seat]:
                    raise IllegalAction(Reason.DEAD_PLAYER)
                votes[seat] = 0
            elif b is not None:
                raise IllegalAction(Reason.BAD_ACTION, "ballot must be a bool")
        self.votes = votes
        living = alive.count(True)
        voted = living - (votes.count(-1) - (n - living))
        cast = {"seat": None, "voted": voted, "needed": living, "changed": False}
        events = [_event((_K_VOTE_CAST, cast, None))]
        if voted == living:
            self._tally(events, living)
        return events

    def close_vote(self, missing_count_as_nein: bool = True) -> list[Event]:
        """End a vote that some living players never answered (the bot's deadline, a house
        rule outside RULES-SPEC): their ballots count as Nein!, or, with
        ``missing_count_as_nein=False``, are not counted and the government needs a strict
        majority of the ballots cast."""
        if self.phase is not _VOTE:
            raise IllegalAction(
                Reason.GAME_OVER if self.phase is _OVER else Reason.WRONG_PHASE,
                self.phase.value,
            )
        votes, alive = self.votes, self.alive
        events: list[Event] = []
        if missing_count_as_nein:
            for seat in range(self.n):
                if alive[seat] and votes[seat] < 0:
                    votes[seat] = 0
            self._tally(events, alive.count(True))
        else:
            self._tally(events, sum(1 for v in votes if v >= 0))
        return events

    def _tally(self, events: list[Event], living: int) -> None:
        """Count the ballots; ``living`` is the electorate whose strict majority elects."""
        key = tuple(self.votes)
        try:
            ballots, ballot_chars, ja = _BALLOT_FORMS[key]
        except KeyError:
            ballots, ballot_chars, ja = forms = _ballot_forms(key)
            if len(_BALLOT_FORMS) < _BALLOT_FORMS_MAX:
                _BALLOT_FORMS[key] = forms
        elected = ja * 2 > living  # strict majority of living players; a tie fails (R4.4)
        result = {"votes": list(ballots), "ja": ja, "nein": living - ja, "elected": elected}
        events.append(_event((_K_VOTE_RESULT, result, None)))
        self.history.append(["e", self.round, self.president, self.chancellor, ballot_chars])
        if not elected:  # R4.5
            self._advance_tracker(events)
            if self.phase is not _OVER:
                self._start_round(events)
            return
        pres, chan = self.president, self.chancellor
        self.last_president, self.last_chancellor = pres, chan  # R4.6
        events.append(
            _event((_K_GOVERNMENT_ELECTED, {"president": pres, "chancellor": chan}, None))
        )
        if self.fascist >= HITLER_ZONE:
            if self.roles[chan] == HITLER:  # R10.4
                self._finish(events, Winner.FASCIST, Condition.HITLER_ELECTED)
                return
            if not self.confirmed[chan]:
                self.confirmed[chan] = True
                events.append(_event((_K_CONFIRMED_NOT_HITLER, {"seat": chan}, None)))
        # R5.1: draw pile always holds 3 here, thanks to the reshuffle check of R5.4.
        draw = self.draw
        self.hand = hand = draw[-3:]  # the top three, top first (the top is last in draw)
        hand.reverse()
        del draw[-3:]
        self.veto_refused = False
        self.phase = _DISCARD
        veto = self.fascist >= VETO_AT  # R7.1
        events.append(
            _event(
                (_K_SESSION_STARTED, {"president": pres, "chancellor": chan, "veto": veto}, None)
            )
        )
        events.append(_event((_K_PRESIDENT_HAND, {"policies": list(hand)}, (pres,))))

    # R5.1
    def _discard(self, a: Discard) -> list[Event]:
        seat, policy = a
        if self.phase is not _DISCARD or seat != self.president or type(seat) is not int:
            self._expect(_DISCARD, seat, self.president)  # raises the precise reason
        hand = self.hand
        if policy not in hand:
            raise IllegalAction(Reason.NOT_IN_HAND)
        hand.remove(policy)
        self.discard.append(policy)
        self.phase = _ENACT
        chan = self.chancellor
        return [
            _event(
                (_K_PRESIDENT_DISCARDED, {"president": self.president, "chancellor": chan}, None)
            ),
            _event(
                (
                    _K_CHANCELLOR_HAND,
                    {"policies": list(self.hand), "veto": self.fascist >= VETO_AT},
                    (chan,),
                )
            ),
        ]

    # R5.2–R5.6
    def _enact(self, a: Enact) -> list[Event]:
        seat, policy = a
        if self.phase is not _ENACT or seat != self.chancellor or type(seat) is not int:
            self._expect(_ENACT, seat, self.chancellor)  # raises the precise reason
        hand = self.hand
        if policy not in hand:
            raise IllegalAction(Reason.NOT_IN_HAND)
        hand.remove(policy)
        self.discard.extend(hand)
        self.hand = []
        events: list[Event] = []
        self.history.append(["p", policy])
        self._place(policy, events, chaos=False)
        if self.phase is _OVER:
            return events
        if len(self.draw) < 3:
            self._reshuffle_if_needed(events)  # R5.4
        power = fascist_track(self.n)[self.fascist - 1] if policy == FASCIST else None
        if power is None:
            self._start_round(events)
            return events
        events.append(
            _event((_K_POWER_GRANTED, {"power": power, "president": self.president}, None))
        )
        if power is _PEEK:  # R9.4: nothing to choose, so it happens at once
            top = self.draw[-3:][::-1]
            self.history.append(["peek", self.president])
            events.append(_event((_K_PEEKED, {"president": self.president}, None)))
            events.append(_event((_K_PEEK_RESULT, {"policies": top}, (self.president,))))
            self._start_round(events)
        else:
            self.phase = POWER_PHASES[power]
        return events

    def _place(self, policy: str, events: list[Event], chaos: bool) -> None:
        """Put a policy on its track, reset the tracker (R5.5, R6.3), check R10.1/R10.3."""
        if policy == LIBERAL:
            self.liberal += 1
        else:
            self.fascist += 1
        self.tracker = 0
        data = {"policy": policy, "liberal": self.liberal, "fascist": self.fascist, "chaos": chaos}
        events.append(_event((_K_CHAOS if chaos else _K_POLICY_ENACTED, data, None)))
        if self.liberal >= LIBERAL_TRACK:
            self._finish(events, Winner.LIBERAL, Condition.FIVE_LIBERAL)
        elif self.fascist >= FASCIST_TRACK:
            self._finish(events, Winner.FASCIST, Condition.SIX_FASCIST)
        elif policy == FASCIST and self.fascist == VETO_AT:
            events.append(_event((_K_VETO_UNLOCKED, {}, None)))

    def _reshuffle_if_needed(self, events: list[Event]) -> None:
        if len(self.draw) < 3:
            pile = self.draw + self.discard
            self.discard = []
            self.rng = rng.shuffle(self.rng, pile)
            self.draw = pile
            events.append(_event((_K_DECK_RESHUFFLED, {"draw": len(pile)}, None)))

    # R7
    def _propose_veto(self, a: ProposeVeto) -> list[Event]:
        self._expect(_ENACT, a.seat, self.chancellor)
        if self.fascist < VETO_AT:
            raise IllegalAction(Reason.VETO_LOCKED)
        if self.veto_refused:
            raise IllegalAction(Reason.VETO_ALREADY_REFUSED)
        self.phase = _VETO
        gov = {"president": self.president, "chancellor": self.chancellor}
        return [_event((_K_VETO_PROPOSED, gov, None))]

    def _answer_veto(self, a: AnswerVeto) -> list[Event]:
        self._expect(_VETO, a.seat, self.president)
        if type(a.accept) is not bool:
            raise IllegalAction(Reason.BAD_ACTION, "answer must be a bool")
        gov = {"president": self.president, "chancellor": self.chancellor}
        if not a.accept:  # R7.4
            self.veto_refused = True
            self.phase = _ENACT
            self.history.append(["vr"])
            return [_event((_K_VETO_REFUSED, gov, None))]
        events = [_event((_K_VETO_ACCEPTED, gov, None))]
        self.history.append(["v"])
        self.discard.extend(self.hand)  # R7.3
        self.hand = []
        self._reshuffle_if_needed(events)  # R7.5
        self._advance_tracker(events)
        if self.phase is not _OVER:
            self._start_round(events)
        return events

    # R6
    def _advance_tracker(self, events: list[Event]) -> None:
        self.tracker += 1
        events.append(_event((_K_TRACKER_ADVANCED, {"tracker": self.tracker}, None)))
        if self.tracker < CHAOS_AT:
            return
        policy = self.draw.pop()
        self.history.append(["c", policy])
        self._place(policy, events, chaos=True)  # power ignored (R6.2), tracker reset
        self.last_president = self.last_chancellor = NOBODY  # R6.3
        if self.phase is not _OVER:
            self._reshuffle_if_needed(events)  # R6.4

    # R9
    def _power(self, a: Investigate | SpecialElection | Execute) -> list[Event]:
        phase = self.phase
        if TARGET_ACTIONS.get(phase) is not type(a):
            self._check_seat(a.seat)
            raise IllegalAction(Reason.WRONG_PHASE, phase.value)
        self._expect(phase, a.seat, self.president)
        self._check_seat(a.target)
        t = a.target
        if t == a.seat:
            raise IllegalAction(Reason.SELF_TARGET)
        if not self.alive[t]:
            raise IllegalAction(Reason.DEAD_PLAYER)
        pres = self.president
        events: list[Event] = []
        if phase is _INVESTIGATE:
            if self.investigated[t]:
                raise IllegalAction(Reason.ALREADY_INVESTIGATED)
            self.investigated[t] = True
            self.history.append(["i", pres, t])
            events.append(_event((_K_INVESTIGATED, {"president": pres, "target": t}, None)))
            result = {"target": t, "party": party_of(self.roles[t])}
            events.append(_event((_K_INVESTIGATION_RESULT, result, (pres,))))
        elif phase is _SPECIAL:
            self.special = t
            self.anchor = pres  # R8.2: rotation resumes after the calling President
            self.history.append(["s", pres, t])
            events.append(_event((_K_SPECIAL_ELECTION, {"president": pres, "target": t}, None)))
        else:
            self.alive[t] = False
            self.history.append(["x", pres, t])
            events.append(_event((_K_EXECUTED, {"president": pres, "target": t}, None)))
            if self.roles[t] == HITLER:  # R9.5, R10.2
                self._finish(events, Winner.LIBERAL, Condition.HITLER_EXECUTED)
                return events
        self._start_round(events)
        return events

    # R4.1, R8
    def _start_round(self, events: list[Event]) -> None:
        special = self.special >= 0
        if special:
            candidate = self.special
            self.special = NOBODY
        else:
            candidate = self.anchor + 1  # _next_living(), inlined for the usual case
            if candidate == self.n:
                candidate = 0
            if not self.alive[candidate]:
                candidate = self._next_living(candidate)
            self.anchor = candidate
        self.round += 1
        self.president = candidate
        self.chancellor = NOBODY
        self.votes = [-1] * self.n
        self.phase = _NOMINATE
        data = {"round": self.round, "president": candidate, "special": special}
        events.append(_event((_K_ROUND_STARTED, data, None)))

    def _next_living(self, seat: int) -> int:
        """The next living seat clockwise after ``seat`` (someone is always alive, R9.5)."""
        n = self.n
        alive = self.alive
        seat = seat + 1 if seat + 1 < n else 0
        while not alive[seat]:
            seat = seat + 1 if seat + 1 < n else 0
        return seat

    def _finish(self, events: list[Event], winner: Winner, condition: Condition) -> None:
        self.phase = _OVER
        self.winner = winner
        self.condition = condition
        self.history.append(["end", winner.value, condition.value])
        data = {"winner": winner, "condition": condition, "roles": list(self.roles)}
        events.append(_event((_K_GAME_OVER, data, None)))

    # ------------------------------------------------------------------ views (R11)

    def public_view(self) -> dict[str, Any]:
        """Everything the whole group may know now — the board and the seats. Roles only
        once the game is over (R10)."""
        in_office = self.phase in _PRIVATE_PHASES or self.phase in TARGET_ACTIONS
        view: dict[str, Any] = {
            "players": self.n,
            "phase": self.phase.value,
            "round": self.round,
            "president": self.president,
            "chancellor": self.chancellor,
            "in_office": in_office,
            "last_president": self.last_president,
            "last_chancellor": self.last_chancellor,
            "term_limited": self.term_limited(),
            "alive": list(self.alive),
            "confirmed": list(self.confirmed),
            "investigated": list(self.investigated),
            "voted": [v >= 0 for v in self.votes] if self.phase is Phase.VOTE else [],
            "liberal": self.liberal,
            "fascist": self.fascist,
            "tracker": self.tracker,
            "draw": len(self.draw),
            "discard": len(self.discard),
            "powers": [p.value if p else None for p in self.powers],
            "veto_unlocked": self.veto_unlocked,
            "veto_refused": self.veto_refused,
            "seating": list(self.seating),
            "winner": self.winner.value if self.winner else None,
            "condition": self.condition.value if self.condition else None,
        }
        if self.is_over:
            view["roles"] = list(self.roles)
        return view

    def private_view(self, seat: int) -> dict[str, Any]:
        """What ``seat`` alone knows: role and party, the knowledge of R2, the tiles in
        their hand now, and the results of their own investigations."""
        self._check_seat(seat)
        view: dict[str, Any] = dict(self._role_events()[seat].data)
        phase = self.phase
        if (phase is Phase.PRESIDENT_DISCARD and seat == self.president) or (
            phase in (Phase.CHANCELLOR_ENACT, Phase.VETO_RESPONSE) and seat == self.chancellor
        ):
            view["hand"] = list(self.hand)
        view["investigations"] = {
            h[2]: party_of(self.roles[h[2]]) for h in self.history if h[0] == "i" and h[1] == seat
        }
        return view

    def tiles_total(self) -> int:
        """Tiles in the game: draw + discard + hand + enacted (R1.5 conservation)."""
        return len(self.draw) + len(self.discard) + len(self.hand) + self.liberal + self.fascist

    # ------------------------------------------------------------------ serialization

    def to_dict(self) -> dict[str, Any]:
        """A compact JSON-ready form with a schema version; see :meth:`from_dict`. It is a
        snapshot: it shares no list with the game, so it stays as it is when play goes on."""
        return {
            "schema": SCHEMA,
            "n": self.n,
            "roles": "".join(self.roles),
            "seating": list(self.seating),
            "alive": "".join("1" if a else "0" for a in self.alive),
            "confirmed": "".join("1" if c else "0" for c in self.confirmed),
            "investigated": "".join("1" if i else "0" for i in self.investigated),
            "phase": self.phase.value,
            "round": self.round,
            "president": self.president,
            "chancellor": self.chancellor,
            "last": [self.last_president, self.last_chancellor],
            "anchor": self.anchor,
            "special": self.special,
            "votes": "".join("-" if v < 0 else str(v) for v in self.votes),
            "tracker": self.tracker,
            "liberal": self.liberal,
            "fascist": self.fascist,
            "draw": "".join(self.draw),
            "discard": "".join(self.discard),
            "hand": "".join(self.hand),
            "veto_refused": self.veto_refused,
            "winner": self.winner.value if self.winner else None,
            "condition": self.condition.value if self.condition else None,
            "rng": format(self.rng, "x"),
            "options": dict(self.options),
            "history": [list(h) for h in self.history],
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Game:
        """Rebuild a game saved by :meth:`to_dict`. Raises ValueError on a foreign schema."""
        if d.get("schema") != SCHEMA:
            raise ValueError(f"unsupported game schema {d.get('schema')!r}")
        g = cls.__new__(cls)
        g.n = int(d["n"])
        g.roles = list(d["roles"])
        g.seating = [int(s) for s in d["seating"]]
        g.alive = [c == "1" for c in d["alive"]]
        g.confirmed = [c == "1" for c in d["confirmed"]]
        g.investigated = [c == "1" for c in d["investigated"]]
        g.phase = Phase(d["phase"])
        g.round = int(d["round"])
        g.president = int(d["president"])
        g.chancellor = int(d["chancellor"])
        g.last_president, g.last_chancellor = (int(x) for x in d["last"])
        g.anchor = int(d["anchor"])
        g.special = int(d["special"])
        g.votes = [-1 if c == "-" else int(c) for c in d["votes"]]
        g.tracker = int(d["tracker"])
        g.liberal = int(d["liberal"])
        g.fascist = int(d["fascist"])
        g.draw = list(d["draw"])
        g.discard = list(d["discard"])
        g.hand = list(d["hand"])
        g.veto_refused = bool(d["veto_refused"])
        g.winner = Winner(d["winner"]) if d.get("winner") else None
        g.condition = Condition(d["condition"]) if d.get("condition") else None
        g.rng = int(d["rng"], 16)
        g.options = dict(d.get("options", {}))
        g.history = [list(h) for h in d.get("history", [])]
        return g

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str) -> Game:
        return cls.from_dict(json.loads(text))

    def clone(self) -> Game:
        """An independent copy: lists and dicts copied, field by field (the bot copies its
        game a few times a press). History entries are shared: one is never changed once
        written (play only appends), and a long game holds a few hundred."""
        g = Game.__new__(Game)
        for name in _SCALARS:
            setattr(g, name, getattr(self, name))
        for name in _LISTS:
            setattr(g, name, getattr(self, name).copy())
        g.options = dict(self.options)
        g.history = list(self.history)
        return g

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Game) and self.to_dict() == other.to_dict()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return (
            f"<Game n={self.n} round={self.round} phase={self.phase.value} "
            f"L={self.liberal} F={self.fascist} tracker={self.tracker}>"
        )


_HANDLERS: dict[type, Callable[[Game, Any], list[Event]]] = {
    Vote: Game._vote,
    Nominate: Game._nominate,
    Discard: Game._discard,
    Enact: Game._enact,
    ProposeVeto: Game._propose_veto,
    AnswerVeto: Game._answer_veto,
    Investigate: Game._power,
    SpecialElection: Game._power,
    Execute: Game._power,
}
"""Which method applies each type of action (see :meth:`Game.apply`)."""


def step(game: Game, action: Action) -> tuple[Game, list[Event]]:
    """Pure form of :meth:`Game.apply`: the input game is left untouched."""
    nxt = game.clone()
    events = nxt.apply(action)
    return nxt, events
