"""The part of the game a computer player may read (RULES-SPEC R11)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from shbot.engine import Action

__all__ = ["GameView"]


class GameView(Protocol):
    """The part of :class:`shbot.engine.Game` an agent may read (a Game satisfies it).

    An agent passes only its own seat to ``legal_actions`` and ``private_view``."""

    def legal_actions(self, seat: int) -> Sequence[Action]: ...

    def public_view(self) -> dict[str, Any]: ...

    def private_view(self, seat: int) -> dict[str, Any]: ...
