"""The pure Secret Hitler rules engine: no Telegram, no storage, no languages."""

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
    action_from_list,
    action_to_list,
)
from .errors import BadSetup, IllegalAction, Reason
from .events import PRIVATE_KINDS, Condition, Event, Kind, Winner
from .game import SCHEMA, Game, Phase, party_of, step
from .rules import FASCIST, HITLER, LIBERAL, MAX_PLAYERS, MIN_PLAYERS, ROLE_COUNTS, Power

__all__ = [
    "FASCIST",
    "HITLER",
    "LIBERAL",
    "MAX_PLAYERS",
    "MIN_PLAYERS",
    "PRIVATE_KINDS",
    "ROLE_COUNTS",
    "SCHEMA",
    "Action",
    "AnswerVeto",
    "BadSetup",
    "Condition",
    "Discard",
    "Enact",
    "Event",
    "Execute",
    "Game",
    "IllegalAction",
    "Investigate",
    "Kind",
    "Nominate",
    "Phase",
    "Power",
    "ProposeVeto",
    "Reason",
    "SpecialElection",
    "Vote",
    "Winner",
    "action_from_list",
    "action_to_list",
    "party_of",
    "step",
]
