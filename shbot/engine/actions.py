"""The moves a player can make. Every action names the seat that makes it.

NamedTuples: immutable, hashable, cheap to build (the simulator builds millions) and
trivially serializable for callback data and replays.
"""

from __future__ import annotations

from typing import NamedTuple


class Nominate(NamedTuple):
    """The presidential candidate nominates a chancellor candidate (R4.2)."""

    seat: int
    target: int


class Vote(NamedTuple):
    """Ja (True) or Nein (False) on the proposed government (R4.3); may be changed until
    the last living player has voted."""

    seat: int
    ja: bool


class Discard(NamedTuple):
    """The President discards one of the three drawn tiles ("L" or "F") (R5.1)."""

    seat: int
    policy: str


class Enact(NamedTuple):
    """The Chancellor enacts one of the two tiles and discards the other (R5.2)."""

    seat: int
    policy: str


class ProposeVeto(NamedTuple):
    """The Chancellor asks to veto the whole agenda (R7.2)."""

    seat: int


class AnswerVeto(NamedTuple):
    """The President accepts (True) or refuses (False) the proposed veto (R7.3, R7.4)."""

    seat: int
    accept: bool


class Investigate(NamedTuple):
    """Investigate Loyalty (R9.2)."""

    seat: int
    target: int


class SpecialElection(NamedTuple):
    """Call a Special Election (R8.2, R9.3)."""

    seat: int
    target: int


class Execute(NamedTuple):
    """Execution (R9.5)."""

    seat: int
    target: int


Action = (
    Nominate
    | Vote
    | Discard
    | Enact
    | ProposeVeto
    | AnswerVeto
    | Investigate
    | SpecialElection
    | Execute
)

ACTION_TYPES: dict[str, type[Action]] = {
    cls.__name__: cls  # type: ignore[misc]
    for cls in (
        Nominate,
        Vote,
        Discard,
        Enact,
        ProposeVeto,
        AnswerVeto,
        Investigate,
        SpecialElection,
        Execute,
    )
}


def action_to_list(action: Action) -> list[object]:
    """A JSON-friendly form: ``["Vote", 3, true]``."""
    return [type(action).__name__, *action]


def action_from_list(data: list[object]) -> Action:
    """Inverse of :func:`action_to_list`; raises ValueError on anything malformed."""
    if not data or not isinstance(data[0], str) or data[0] not in ACTION_TYPES:
        raise ValueError(f"unknown action {data!r}")
    cls = ACTION_TYPES[data[0]]
    try:
        return cls(*data[1:])  # type: ignore[arg-type]
    except TypeError as exc:
        raise ValueError(f"malformed action {data!r}") from exc
