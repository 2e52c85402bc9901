"""The group's board message: its style (a picture or text) and the public facts it shows.

The table owes the "board" slot when what the board shows changes. The text board shows
only the policies, the tracker and the seats' fates (the round message has the rest); the
picture also draws who governs, the term limits and the piles, so it changes at more steps.
A group chooses the style in /settings; a game stored without one keeps the text board it
started with.
"""

from __future__ import annotations

from typing import Any

from shbot.engine import Game

from .model import Table
from .outcome import Outcome, Refusal

PICTURE, TEXT = "picture", "text"
STYLES = (PICTURE, TEXT)
DEFAULT = PICTURE  # for a group that never chose
#: What the text board shows (see bot/render/table.py).
TEXT_FACTS = ("liberal", "fascist", "tracker", "alive", "confirmed")


def chosen(setting: object) -> str:
    """A group's board style from its settings."""
    return setting if isinstance(setting, str) and setting in STYLES else DEFAULT


def style(table: Table) -> str:
    return PICTURE if table.options.get("board") == PICTURE else TEXT


def picture_view(view: dict[str, Any]) -> dict[str, Any]:
    """Everything the board picture draws, from the engine's ``public_view``: equal dicts
    draw equal pictures. The Chancellor is the nominee during a vote and the one in office
    during the legislative session and its power; after the game nobody governs."""
    in_office = bool(view["in_office"])
    over = view["winner"] is not None
    chancellor = view["chancellor"] if view["phase"] == "vote" or in_office else -1
    return {
        "players": int(view["players"]),
        "powers": tuple(view["powers"]),
        "liberal": int(view["liberal"]),
        "fascist": int(view["fascist"]),
        "tracker": int(view["tracker"]),
        "draw": int(view["draw"]),
        "discard": int(view["discard"]),
        "veto": bool(view["veto_unlocked"]),
        "president": -1 if over else _seat(view["president"]),
        "chancellor": -1 if over else _seat(chancellor),
        "in_office": in_office,
        "term_limited": tuple(sorted(view["term_limited"])),
        "alive": tuple(bool(a) for a in view["alive"]),
        "confirmed": tuple(bool(c) for c in view["confirmed"]),
        "winner": view["winner"],
    }


def shown(table: Table, game: Game) -> dict[str, Any]:
    """What, changed, earns the board an edit (in either style): the policies, the tracker,
    each seat's fate, the winner. Who governs, term limits and the piles are drawn from the
    newest state whenever the picture is edited, but never cost a group call of their own:
    the round message names who governs (the group's 20 calls a minute go to it first)."""
    view = game.public_view()
    facts = {key: view[key] for key in TEXT_FACTS}
    if style(table) == PICTURE:
        facts["winner"] = view["winner"]
    return facts


def set_style(table: Table, chosen: str) -> Outcome:
    """A group changed its board style mid-game: the board is posted again in that style (a
    text message cannot become a photo, nor the other way round)."""
    if chosen not in STYLES:
        raise Refusal("invalid")
    if table.game is None or table.game.is_over or table.ending:
        raise Refusal("no_game")
    if style(table) == chosen:
        raise Refusal("nothing")
    table.options["board"] = chosen
    table.owe("board", payload={"new": True})
    return Outcome(table)


def _seat(value: Any) -> int:
    return int(value) if isinstance(value, int) and value >= 0 else -1
