"""Computer players: one interface (:class:`Agent`), read only what a seat may see.

The simulator, the benchmarks, the timers' default moves and computer seats at a table all
use these same players.
"""

from __future__ import annotations

import random

from shbot.engine import Game
from shbot.engine.actions import Action

from .agents import (
    AGENTS,
    Agent,
    AgentFactory,
    GameView,
    HeuristicAgent,
    Memory,
    RandomAgent,
    deliver,
    recalled,
    tell,
    visible,
)
from .talk import ClaimRequest, claim_requests, random_claim

__all__ = [
    "AGENTS",
    "Agent",
    "AgentFactory",
    "ClaimRequest",
    "GameView",
    "HeuristicAgent",
    "Memory",
    "RandomAgent",
    "claim_requests",
    "default_action",
    "deliver",
    "random_claim",
    "recalled",
    "tell",
    "visible",
]


def default_action(game: Game, seat: int, rng: random.Random) -> Action:
    """What the game does for a seat whose deadline passed: the random player's move,
    never a veto proposal (an absent Chancellor does not start a veto)."""
    return RandomAgent(rng, vetoes=False).act(game, seat)
