"""The game session around the engine: lobby, seats, steps, deadlines and what is owed.

Pure: it imports the engine and the computer players, never Telegram, storage or
translations. A transition takes a :class:`Table`, changes it and returns an
:class:`Outcome`, or raises a :class:`Refusal` with a code (and changes nothing that is
saved: the commit path saves only after a transition returns).
"""

from __future__ import annotations

from .lobby import MAX_PLAYERS, MIN_PLAYERS
from .model import FSI, GROUP, MAX_NAME, PDI, Player, Table, clean_name, new_game_id
from .outcome import Outcome, Refusal
from .play import PRIVATE_PHASES, prompt_seat

__all__ = [
    "FSI",
    "GROUP",
    "MAX_NAME",
    "MAX_PLAYERS",
    "MIN_PLAYERS",
    "PDI",
    "PRIVATE_PHASES",
    "Outcome",
    "Player",
    "Refusal",
    "Table",
    "clean_name",
    "new_game_id",
    "prompt_seat",
]
