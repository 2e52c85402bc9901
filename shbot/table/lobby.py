"""Lobby transitions: open, join, leave, mark reachable, start, cancel.

Each takes the current :class:`Table` and changes it in place (the commit path hands over
a fresh copy and saves it once), returning an :class:`Outcome` or raising a
:class:`Refusal`. They also mark what the change owes the players (``Table.owe``).
"""

from __future__ import annotations

import time
from typing import Any

from shbot.engine import BadSetup, Game, Kind
from shbot.table.model import Player, Table, new_game_id

from . import claims, knowledge, naming
from .outcome import Outcome, Refusal

MIN_PLAYERS, MAX_PLAYERS = 5, 10
#: ``options`` key: who was seated through the join link (their membership is asked again
#: at the start: nobody saw them in the group).
VIA_LINK = "via_link"


def new_lobby(host: Player, created: float | None = None) -> Table:
    table = Table(gid=new_game_id(), host=host.id, created=created or time.time(), players=[host])
    table.owe("lobby")
    return table


def _lobby_only(table: Table, code: str = "started") -> None:
    if table.game is not None or table.ending:
        raise Refusal(code)


def join(
    table: Table, player: Player, gid: str | None = None, *, via_link: bool = False
) -> Outcome:
    if gid is not None and table.gid != gid:
        raise Refusal("over")
    _lobby_only(table)
    existing = table.player(player.id)
    if existing is not None:
        if existing.ready == player.ready or existing.ready:
            raise Refusal("joined", alert=False)
        existing.ready = True
    else:
        if len(table.players) >= MAX_PLAYERS:
            raise Refusal("full")
        table.players.append(player)
        if via_link:
            table.options[VIA_LINK] = [*linked(table), player.id]
        naming.rename_clashing(table)  # a computer never goes by a person's name
    table.owe("lobby")
    return Outcome(table, answer="joined" if existing is None else None)


def linked(table: Table) -> list[int]:
    """The seated players who joined through the join link."""
    ids = table.options.get(VIA_LINK) or []
    return [p.id for p in table.players if p.id in ids]


def leave(table: Table, user_id: int) -> Outcome:
    _lobby_only(table, "started_leave")
    player = table.player(user_id)
    if player is None:
        raise Refusal("not_in_game")
    table.players.remove(player)
    people = [p for p in table.players if p.id > 0]  # computer players have negative ids
    if table.host == user_id and people:
        table.host = people[0].id
    outcome = Outcome(table, answer="left", release=[user_id])
    if not people:
        table.ending = "cancelled"
        table.owe("lobby", payload={"closed": "everybody_left"})
        outcome.ended = True
    else:
        table.owe("lobby")
    return outcome


def ready(table: Table, user_id: int) -> Outcome:
    """A lobby player opened the private chat: mark them reachable."""
    player = table.player(user_id)
    if player is None or player.ready or table.game is not None or table.ending:
        raise Refusal("nothing", alert=False)
    player.ready = True
    table.owe("lobby")
    return Outcome(table)


def check_start(table: Table, user_id: int) -> None:
    """Everything that may refuse a start except the admin check (which needs Telegram):
    the bot asks for admin rights only when the table would otherwise start."""
    _lobby_only(table)
    count = len(table.players)
    if not any(p.id > 0 for p in table.players):  # computer players never play alone
        raise Refusal("no_humans")
    if count < MIN_PLAYERS:
        raise Refusal("too_few", n=count)
    unready = [p.name for p in table.players if not p.ready]
    if unready:
        raise Refusal("unready", alert=True, names=unready)


def start(
    table: Table, user_id: int, is_admin: bool, seed: int, options: dict[str, Any]
) -> Outcome:
    check_start(table, user_id)
    if user_id != table.host and not is_admin:
        raise Refusal("not_host_start")
    try:
        game, events = Game.new(
            len(table.players),
            seed,
            shuffle_seats=bool(options.get("shuffle_seats")),
            rebalanced=bool(options.get("rebalanced")),
        )
    except BadSetup as exc:  # pragma: no cover - the checks above make it unreachable
        raise Refusal("invalid") from exc
    table.game = game
    table.options = dict(options)
    table.step = 1
    table.restart_clock()
    table.round_log = [[e.kind.value, e.data] for e in events if e.kind is Kind.ROUND_STARTED]
    knowledge.record(table, events)
    table.owe("lobby", payload={"closed": "started"})
    for e in events:
        if e.kind is Kind.ROLE and e.to:
            seat = e.to[0]
            table.owe(f"role:{seat}", table.at(seat).id, e.data)
    table.owe("board")
    table.owe(f"round:{game.round}")
    return Outcome(table, events, started=True, step_changed=True)


def cancel(table: Table, gid: str | None, canceller: str) -> Outcome:
    """End the game now; its messages lose their buttons once delivered."""
    if table.ending or (gid is not None and table.gid != gid):
        raise Refusal("over")
    table.ending = "cancelled"
    table.deadline = None
    if table.game is None:
        table.owe("lobby", payload={"closed": "cancelled", "by": canceller})
    else:
        table.owe("board")
        table.owe(f"round:{table.game.round}")
        claims.close_prompts(table)
    return Outcome(table, ended=True, release=[p.id for p in table.players])


def lost_access(table: Table) -> Outcome:
    """The bot can no longer write to the group (removed, chat gone): end the game quietly."""
    if table.ending:
        raise Refusal("over")
    table.ending = "cancelled"
    table.deadline = None
    table.owed.clear()  # nothing can reach that group any more
    return Outcome(table, ended=True, release=[p.id for p in table.players])


def redraw(table: Table, *, new: bool = False) -> Outcome:
    """Show the table again: after a language change (edit) or /board (a new message)."""
    if table.ending:
        raise Refusal("over")
    payload = {"new": True} if new else None
    if table.game is None:
        table.owe("lobby", payload=payload)
    else:
        table.owe("board", payload=payload)
        if not new:
            table.owe(f"round:{table.game.round}")
    return Outcome(table)
