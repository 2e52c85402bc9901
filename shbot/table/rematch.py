"""A rematch: a new lobby in the same group, the last game's players invited.

The presser hosts it and has joined; everyone else of the last game is *invited*: the lobby
names them and each confirms with Join (an ordinary join, so the usual start rules apply:
only those who joined count). Pure, like the rest of the table layer.
"""

from __future__ import annotations

from .lobby import new_lobby
from .model import Player, Table


def rematch_lobby(previous: Table, host: Player, created: float | None = None) -> Table:
    """The new lobby: ``host`` in it, the other players of ``previous`` invited."""
    table = new_lobby(host, created)
    table.invited = [
        Player(p.id, p.name, p.lang, False) for p in previous.players if p.id != host.id
    ]
    return table


def still_invited(table: Table) -> list[Player]:
    """Invited players who have not joined yet (the lobby lists them)."""
    joined = {p.id for p in table.players}
    return [p for p in table.invited if p.id not in joined]
