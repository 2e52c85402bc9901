"""What a table transition returns: an Outcome, or a Refusal that changes nothing.

Refusals carry a code and plain data, never text: the bot words them in the presser's
language (``shbot.bot.render.refusals``), so the table layer knows nothing of languages.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from shbot.engine import Event
from shbot.engine.actions import Action

from .model import Table


class Refusal(Exception):
    """The transition changes nothing; ``code`` says why, ``params`` fill its message."""

    def __init__(self, code: str, *, alert: bool = False, **params: Any) -> None:
        super().__init__(code)
        self.code = code
        self.alert = alert  # a modal pop-up instead of a toast: only for long, vital texts
        self.params = params
        self.table: Table | None = None  # the table it was judged on (names for the words)


@dataclass
class Outcome:
    """A committed change: the table after it, and what the presser is told (a toast)."""

    table: Table
    events: list[Event] = field(default_factory=list)
    action: Action | None = None
    answer: str | None = None  # toast code for the presser ("joined", "vote_ja", ...)
    step_changed: bool = False
    started: bool = False
    ended: bool = False  # the game ended (finished or cancelled) with this change
    release: list[int] = field(default_factory=list)  # users free to play elsewhere now
