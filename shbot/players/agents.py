"""Computer players behind one small interface, shared by the simulator and the bot.

An agent plays one seat and may know only what that seat may know (RULES-SPEC R11). It
reads the game through :class:`GameView` — ``legal_actions(seat)``, ``public_view()`` and
``private_view(seat)``, nothing else — and remembers what it was shown through
:meth:`Agent.observe`, which the caller feeds with :func:`deliver` (public events and
events addressed to that seat only). Typing the game as :class:`GameView` lets mypy prove
that no agent peeks at hidden state such as ``game.roles``.

Lifecycle, in the simulator and in the bot alike::

    agent = AGENTS["heuristic"](rng)
    agent.reset(seat, game)              # right after Game.new (or after a bot restart)
    deliver(agent, seat, opening_events)
    ...  agent.act(game, seat) / agent.ballot(game, seat), deliver(...) after every step

``reset`` rebuilds what the seat knows from the views (role, team, own investigations), so
an agent recreated mid-game (a restarted bot) still plays sensibly, only with less memory.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Protocol, cast

from shbot.engine import (
    FASCIST,
    HITLER,
    LIBERAL,
    Action,
    AnswerVeto,
    Discard,
    Enact,
    Event,
    Execute,
    Investigate,
    Kind,
    Nominate,
    ProposeVeto,
    SpecialElection,
)

__all__ = [
    "AGENTS",
    "Agent",
    "AgentFactory",
    "GameView",
    "HeuristicAgent",
    "RandomAgent",
    "deliver",
    "visible",
]


class GameView(Protocol):
    """The part of :class:`shbot.engine.Game` an agent may read (a Game satisfies it)."""

    def legal_actions(self, seat: int) -> Sequence[Action]: ...

    def public_view(self) -> dict[str, Any]: ...

    def private_view(self, seat: int) -> dict[str, Any]: ...


class Agent(Protocol):
    """One computer player. ``observes`` False lets callers skip :func:`deliver` entirely
    (the random agent remembers nothing, and the simulator's hot loop should not pay for
    filtering events nobody reads)."""

    observes: bool

    def reset(self, seat: int, game: GameView) -> None:
        """Start (or resume) playing ``seat``; forget any previous game."""
        ...

    def observe(self, events: Sequence[Event]) -> None:
        """Remember events this seat was shown (already filtered by :func:`deliver`)."""
        ...

    def act(self, game: GameView, seat: int) -> Action:
        """Choose one of ``game.legal_actions(seat)`` (never called during a vote)."""
        ...

    def ballot(self, game: GameView, seat: int) -> bool:
        """Ja (True) or Nein (False) on the government now proposed."""
        ...


Targeted = Nominate | Investigate | SpecialElection | Execute
"""Actions whose second field is a target seat."""

AgentFactory = Callable[[random.Random], Agent]


def visible(events: Iterable[Event], seat: int) -> list[Event]:
    """The events ``seat`` is entitled to see: public ones and those addressed to it."""
    return [e for e in events if e.to is None or seat in e.to]


def deliver(agent: Agent, seat: int, events: Iterable[Event]) -> None:
    """Show ``agent`` (playing ``seat``) what that seat may see of ``events``, nothing more."""
    if agent.observes:
        agent.observe(visible(events, seat))


# --------------------------------------------------------------------------- random


class RandomAgent:
    """Uniform over the legal actions, a fair coin for ballots: the baseline to beat."""

    observes = False

    def __init__(self, rng: random.Random | None = None, *, vetoes: bool = True) -> None:
        self.rng = rng or random.Random()
        self.vetoes = vetoes  # False: never propose a veto (the timers' default move)

    def reset(self, seat: int, game: GameView) -> None:
        """Nothing to remember."""

    def observe(self, events: Sequence[Event]) -> None:
        """Nothing to remember."""

    def act(self, game: GameView, seat: int) -> Action:
        acts = game.legal_actions(seat)
        if not self.vetoes:
            acts = [a for a in acts if not isinstance(a, ProposeVeto)]
        return acts[int(self.rng.random() * len(acts))]

    def ballot(self, game: GameView, seat: int) -> bool:
        return bool(self.rng.getrandbits(1))


# --------------------------------------------------------------------------- heuristic

KNOWN = 10.0
"""Score of a player whose party this seat knows: +KNOWN Fascist, -KNOWN trusted."""
DISTRUST = 1.0
"""Ballot threshold: a Liberal votes Nein when a candidate's score reaches this."""
HITLER_RISK = 0.6
"""Extra distrust, once 3 Fascist policies are out, for a chancellor who might be Hitler."""
BOLDNESS = 0.3
"""How often a Fascist risks an exposing Fascist play in front of a Liberal."""


class HeuristicAgent:
    """Plays for its team with simple, cheap rules.

    Liberals (and Hitler, who must look Liberal) keep a suspicion score per seat: a
    government that enacts a Fascist policy gains suspicion, a Liberal policy earns trust,
    and first-hand evidence (an investigation, a chancellor who enacted Fascist although
    this President passed a Liberal tile) is decisive. They nominate the most trusted, vote
    Nein when a candidate is suspect (or, once Hitler can win by election, merely
    unconfirmed) and shoot the most suspect. Ordinary Fascists know their team: they vote
    for governments with a teammate, nominate teammates (Hitler once 3 Fascist policies are
    out), pass Fascist tiles when that cannot expose them (partner in office, or no Liberal
    tile to hide) and only sometimes otherwise, and never harm a teammate.
    """

    observes = True

    def __init__(self, rng: random.Random | None = None) -> None:
        self.rng = rng or random.Random()
        self.seat = -1
        self.n = 0
        self.role = LIBERAL
        self.team: set[int] = set()
        self.known: dict[int, str] = {}
        self.susp: list[float] = []
        self.confirmed: list[bool] = []
        self.liberal = self.fascist = self.tracker = 0
        self.president = self.chancellor = -1
        self.hitler = -1
        self.hand: list[str] = []
        self.passed: list[str] = []
        self.peek: list[str] = []
        self.session_peek: list[str] = []

    # ---------------------------------------------------------------- memory

    def reset(self, seat: int, game: GameView) -> None:
        mine = game.private_view(seat)
        board = game.public_view()
        self.seat = seat
        self.n = board["players"]
        self.role = mine["role"]
        self.team = {seat}
        self.hitler = seat if mine["role"] == HITLER else mine.get("hitler", -1)
        if mine["role"] != LIBERAL:
            self.team.update(mine.get("fascists", ()))
            self.team.add(self.hitler)
        self.known = {int(s): party for s, party in mine.get("investigations", {}).items()}
        self.susp = [0.0] * self.n
        self.confirmed = list(board["confirmed"])
        self.liberal, self.fascist = board["liberal"], board["fascist"]
        self.tracker = board["tracker"]
        self.president, self.chancellor = board["president"], board["chancellor"]
        self.hand = list(mine.get("hand", ()))
        self.passed = []
        self.peek = []
        self.session_peek = []

    def observe(self, events: Sequence[Event]) -> None:
        for kind, data, _ in events:
            if kind is Kind.ROUND_STARTED:
                self.president, self.chancellor = data["president"], -1
                self.hand, self.passed, self.session_peek = [], [], []
            elif kind is Kind.NOMINATED:
                self.chancellor = data["chancellor"]
            elif kind is Kind.PRESIDENT_HAND or kind is Kind.CHANCELLOR_HAND:
                self.hand = list(data["policies"])
            elif kind is Kind.SESSION_STARTED:
                self.session_peek, self.peek = self.peek, []
            elif kind is Kind.POLICY_ENACTED:
                self._judge(data["policy"])
                self.liberal, self.fascist, self.tracker = data["liberal"], data["fascist"], 0
            elif kind is Kind.CHAOS:
                self.liberal, self.fascist, self.tracker = data["liberal"], data["fascist"], 0
                self.peek = []  # the top tile is gone: the peek no longer predicts a hand
            elif kind is Kind.DECK_RESHUFFLED:
                self.peek = []
            elif kind is Kind.TRACKER_ADVANCED:
                self.tracker = data["tracker"]
            elif kind is Kind.CONFIRMED_NOT_HITLER:
                self.confirmed[data["seat"]] = True
            elif kind is Kind.VETO_PROPOSED:
                if self.seat == self.president and LIBERAL in self.passed:
                    self.susp[self.chancellor] += 3  # vetoing a hand that held a Liberal
            elif kind is Kind.INVESTIGATION_RESULT:
                self.known[data["target"]] = data["party"]
            elif kind is Kind.PEEK_RESULT:
                self.peek = list(data["policies"])

    def _judge(self, policy: str) -> None:
        """Update suspicion of the government that just enacted ``policy``."""
        p, c, susp = self.president, self.chancellor, self.susp
        if policy == LIBERAL:
            susp[p] -= 0.5
            susp[c] -= 0.5
            return
        susp[p] += 1
        susp[c] += 1
        if self.seat == p and LIBERAL in self.passed:
            susp[c] += KNOWN  # first-hand: the chancellor threw away my Liberal tile
        elif self.seat == c:
            susp[p] += 0.5  # gave me two Fascist tiles (possible, but noted)
        elif self.session_peek.count(LIBERAL) >= 1:
            susp[p] += 1  # I peeked this hand: it held a Liberal tile
            susp[c] += 1

    def score(self, seat: int) -> float:
        """How much this seat distrusts ``seat`` (teammates and proven Liberals: -KNOWN)."""
        if seat in self.team:
            return -KNOWN
        party = self.known.get(seat)
        if party == FASCIST:
            return KNOWN
        if party == LIBERAL:
            return -KNOWN
        return self.susp[seat]

    def _maybe_hitler(self, seat: int) -> bool:
        """Could electing ``seat`` chancellor now hand the Fascists the game (R4.6)?"""
        return (
            self.fascist >= 3
            and not self.confirmed[seat]
            and seat not in self.team
            and self.known.get(seat) != LIBERAL
        )

    @property
    def fascist_player(self) -> bool:
        """An ordinary Fascist; Hitler plays like a Liberal (see the class docstring)."""
        return self.role == FASCIST

    # ---------------------------------------------------------------- decisions

    def ballot(self, game: GameView, seat: int) -> bool:
        p, c = self.president, self.chancellor
        if self.fascist_player:
            return p in self.team or c in self.team
        if c == seat:
            return self.score(p) < KNOWN  # a known Fascist president would exploit me
        risk = max(self.score(p) if p != seat else -KNOWN, self.score(c))
        if self._maybe_hitler(c):
            risk += HITLER_RISK
        threshold = DISTRUST + (0.5 if self.tracker == 2 else 0.0)
        return risk < threshold

    def act(self, game: GameView, seat: int) -> Action:
        acts = game.legal_actions(seat)
        first = acts[0]
        if isinstance(first, Nominate):
            return self._pick(acts, self._nominee_key)
        if isinstance(first, Discard):
            return self._discard(game, seat, acts)
        if isinstance(first, Enact | ProposeVeto):
            return self._enact(game, seat, acts)
        if isinstance(first, AnswerVeto):
            # Only the tiles this President passed tell whether the veto helps the team.
            if self.fascist_player:
                accept = bool(self.passed) and FASCIST not in self.passed
            else:
                accept = bool(self.passed) and LIBERAL not in self.passed
            return AnswerVeto(seat, accept)
        if isinstance(first, Investigate):
            if self.fascist_player:
                return self._pick(acts, lambda t: 1.0 if t in self.team else 0.0)
            return self._pick(acts, lambda t: KNOWN if t in self.known else -self.score(t))
        if isinstance(first, SpecialElection):
            if self.fascist_player:
                return self._pick(acts, self._special_key)
            return self._pick(acts, self._nominee_key)
        if isinstance(first, Execute):
            if self.fascist_player:
                return self._pick(acts, lambda t: KNOWN if t in self.team else self.score(t))
            return self._pick(acts, lambda t: KNOWN * 2 if t in self.team else -self.score(t))
        return acts[int(self.rng.random() * len(acts))]  # pragma: no cover - future actions

    def _nominee_key(self, target: int) -> float:
        """Lower is a better chancellor for this seat."""
        if self.fascist_player:
            if target == self.hitler:
                # Hitler wins as chancellor from 3 Fascist policies on; before, he plays
                # Liberal and an early spotlight only hurts him.
                return -2.0 if self.fascist >= 3 else 0.5
            return -1.0 if target in self.team else 0.0
        return self.score(target) + (HITLER_RISK if self._maybe_hitler(target) else 0.0)

    def _special_key(self, target: int) -> float:
        """A Fascist's pick for Special Election: a teammate who can then nominate Hitler."""
        if target == self.hitler:
            return 0.0
        return -1.0 if target in self.team else 0.5

    def _pick(self, acts: Sequence[Action], key: Callable[[int], float]) -> Action:
        """The targeted action with the lowest key; ties broken at random."""
        rnd = self.rng.random
        return min(acts, key=lambda a: (key(cast(Targeted, a).target), rnd()))

    def _my_hand(self, game: GameView, seat: int) -> list[str]:
        if not self.hand:  # resumed mid-session: the events were missed
            self.hand = list(game.private_view(seat).get("hand", ()))
        return self.hand

    def _bold(self) -> bool:
        return self.liberal >= 4 or self.rng.random() < BOLDNESS

    def _discard(self, game: GameView, seat: int, acts: Sequence[Action]) -> Action:
        hand = self._my_hand(game, seat)
        kinds = {a.policy for a in acts if isinstance(a, Discard)}
        if self.fascist_player:
            drop = LIBERAL
            partner = self.chancellor in self.team
            if hand.count(FASCIST) == 2 and not partner and not self._bold():
                drop = FASCIST  # pass F+L: the Liberal chancellor sees nothing odd
        else:
            drop = FASCIST
        if drop not in kinds:
            drop = next(iter(kinds))
        passed = list(hand)
        if drop in passed:
            passed.remove(drop)
        self.passed = passed
        return Discard(seat, drop)

    def _enact(self, game: GameView, seat: int, acts: Sequence[Action]) -> Action:
        hand = self._my_hand(game, seat)
        can_veto = any(isinstance(a, ProposeVeto) for a in acts)
        if self.fascist_player:
            if can_veto and FASCIST not in hand:
                return ProposeVeto(seat)
            want = FASCIST
            if LIBERAL in hand and self.president not in self.team and not self._bold():
                want = LIBERAL  # the Liberal president knows what they passed
        else:
            if can_veto and LIBERAL not in hand:
                return ProposeVeto(seat)
            want = LIBERAL
        if want not in hand:
            want = hand[0] if hand else LIBERAL
        for a in acts:
            if isinstance(a, Enact) and a.policy == want:
                return a
        return next(a for a in acts if isinstance(a, Enact))


AGENTS: dict[str, AgentFactory] = {
    "random": RandomAgent,
    "heuristic": HeuristicAgent,
}
"""Agent kinds by name (the CLI's ``--agents`` and the bot's AI seats use these names)."""
