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
    requests = claim_requests(events, round, president, chancellor)  # the step's talk
    claims = [agents[r.seat].claim(game, r) for r in requests]; tell(agent, claims)

An agent created mid-game (a take-over, a restarted bot, another process) calls
``recall(seat, game, past)`` instead of ``reset``: ``past`` is everything the seat took in
(:data:`Memory`: the events it was shown, the public claims, its own discards), in order,
and the agent then decides exactly as one that watched from the start with the same seed
(its chance moves come from per-decision dice, :mod:`shbot.players.dice`).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Sequence
from typing import Protocol

from shbot.engine import Action, Event, ProposeVeto
from shbot.engine.claims import Claim

from .counters import CounterAgent
from .heuristic import HeuristicAgent
from .reader import Memory
from .talk import ClaimRequest, random_claim
from .view import GameView

__all__ = [
    "AGENTS",
    "Agent",
    "AgentFactory",
    "GameView",
    "HeuristicAgent",
    "Memory",
    "RandomAgent",
    "deliver",
    "recalled",
    "tell",
    "visible",
]


class Agent(Protocol):
    """One computer player. ``observes`` False lets callers skip :func:`deliver` entirely
    (the random agent remembers nothing, and the simulator's hot loop should not pay for
    filtering events nobody reads)."""

    observes: bool

    def reset(self, seat: int, game: GameView) -> None:
        """Start (or resume) playing ``seat``; forget any previous game."""
        ...

    def recall(self, seat: int, game: GameView, past: Iterable[Memory]) -> None:
        """Play ``seat`` of a game in progress whose record for this seat is ``past``."""
        ...

    def remember(self, past: Iterable[Memory]) -> None:
        """Take in more of the seat's record, as :meth:`recall` does."""
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

    def claim(self, game: GameView, request: ClaimRequest) -> Claim:
        """What this seat says it saw (see :func:`~shbot.players.talk.claim_requests`):
        a :class:`Claim` of ``request.kind`` for ``request.round``, or ``request.none()``."""
        ...

    def hear(self, claims: Sequence[Claim]) -> None:
        """Take in public claims (everyone's, this seat's own included)."""
        ...


AgentFactory = Callable[[random.Random], Agent]


def visible(events: Iterable[Event], seat: int) -> list[Event]:
    """The events ``seat`` is entitled to see: public ones and those addressed to it."""
    return [e for e in events if e.to is None or seat in e.to]


def deliver(agent: Agent, seat: int, events: Iterable[Event]) -> None:
    """Show ``agent`` (playing ``seat``) what that seat may see of ``events``, nothing more."""
    if agent.observes:
        agent.observe(visible(events, seat))


def recalled(past: Iterable[Memory], seat: int) -> list[Memory]:
    """What ``seat`` took in of a whole game's record: the events it may see, every claim,
    its own discards (the input of :meth:`Agent.recall`)."""
    out: list[Memory] = []
    for m in past:
        if isinstance(m, Claim):
            out.append(m)
        elif isinstance(m, Event):
            if m.to is None or seat in m.to:
                out.append(m)
        elif m.seat == seat:
            out.append(m)
    return out


def tell(agent: Agent, claims: Sequence[Claim]) -> None:
    """Let ``agent`` hear public claims (skipped for agents that remember nothing)."""
    if agent.observes and claims:
        agent.hear(claims)


# --------------------------------------------------------------------------- random


class RandomAgent:
    """Uniform over the legal actions, a fair coin for ballots: the baseline to beat."""

    observes = False

    def __init__(self, rng: random.Random | None = None, *, vetoes: bool = True) -> None:
        self.rng = rng or random.Random()
        self.vetoes = vetoes  # False: never propose a veto (the timers' default move)

    def reset(self, seat: int, game: GameView) -> None:
        """Nothing to remember."""

    def recall(self, seat: int, game: GameView, past: Iterable[Memory]) -> None:
        """Nothing to remember."""

    def remember(self, past: Iterable[Memory]) -> None:
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

    def claim(self, game: GameView, request: ClaimRequest) -> Claim:
        """Any claim of the requested kind: it remembers nothing to be truthful about."""
        return random_claim(request, self.rng)

    def hear(self, claims: Sequence[Claim]) -> None:
        """Nothing to remember."""


AGENTS: dict[str, AgentFactory] = {
    "random": RandomAgent,
    "heuristic": HeuristicAgent,
    "counter": CounterAgent,
}
"""Agent kinds by name (the CLI's ``--agents`` and the bot's AI seats use these names)."""
