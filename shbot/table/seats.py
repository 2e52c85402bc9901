"""Computer seats: fill a lobby with computer players, let them play, stand in for a person.

A computer player is a :class:`Player` with a negative id (Telegram user ids are positive),
always reachable, named from a per-language list with a 🤖 in front so every message that
names it (board, history, statistics) marks it. A person whose seat a computer plays for
(two deadlines missed in a row, or /leave in a running game) is listed in
``Table.standins`` until they take the seat back. The table owes nothing private to either
(``Table.owe``); the agent that plays a seat is the caller's (the bot keeps one per seat)
and reads only that seat's view (:class:`shbot.players.GameView`).
"""

from __future__ import annotations

import random
import zlib
from collections.abc import Sequence
from typing import Any

from shbot.engine import Phase, Vote
from shbot.engine.actions import Action
from shbot.players import Agent, GameView, default_action
from shbot.table.model import Player, Table

from .naming import free_names, is_computer, taken
from .outcome import Outcome, Refusal
from .play import PRIVATE_PHASES, advance, prompt_seat
from .timers import ABSENT_AFTER

MAX_SEATS = 10


class SeatView:
    """What a computer seat may read of the game, and nothing else (GameView at run time
    too: any other attribute is simply not there)."""

    __slots__ = ("_game",)

    def __init__(self, game: GameView) -> None:
        self._game = game

    def legal_actions(self, seat: int) -> Sequence[Action]:
        return self._game.legal_actions(seat)

    def public_view(self) -> dict[str, Any]:
        return self._game.public_view()

    def private_view(self, seat: int) -> dict[str, Any]:
        return self._game.private_view(seat)


def humans(table: Table) -> list[Player]:
    return [p for p in table.players if not is_computer(p)]


def computer_seat(table: Table, seat: int) -> bool:
    """A computer plays this seat: a computer player, or one standing in for a person."""
    player = table.at(seat)
    return is_computer(player) or player.id in table.standins


def _lobby(table: Table, user_id: int, allowed: bool) -> None:
    if table.game is not None or table.ending:
        raise Refusal("started")
    if not allowed:
        raise Refusal("not_host_bots")
    if table.player(user_id) is None and not humans(table):  # pragma: no cover - defensive
        raise Refusal("no_humans")


def add_computers(table: Table, user_id: int, allowed: bool, count: int, lang: str) -> Outcome:
    """Seat ``count`` computer players (as many as fit; at least one must)."""
    _lobby(table, user_id, allowed)
    room = MAX_SEATS - len(table.players)
    if room <= 0:
        raise Refusal("full")
    seated = min(max(count, 1), room)
    free = free_names(lang, taken(table.players), seated)  # never a person's name
    next_id = min([p.id for p in table.players if is_computer(p)] + [0]) - 1
    for i in range(seated):
        table.players.append(Player(next_id - i, free[i], lang, ready=True))
    table.owe("lobby")
    return Outcome(table, answer="bots_added")


def remove_computer(table: Table, user_id: int, allowed: bool) -> Outcome:
    """Take the last computer player seated off the table."""
    _lobby(table, user_id, allowed)
    robots = [p for p in table.players if is_computer(p)]
    if not robots:
        raise Refusal("no_bots")
    table.players.remove(robots[-1])
    table.owe("lobby")
    return Outcome(table, answer="bot_removed")


# ------------------------------------------------------------------ playing


def pending(table: Table) -> list[int]:
    """Computer-played seats the current step waits for."""
    game = table.game
    if game is None or game.is_over or table.ending:
        return []
    return [s for s in game.to_act() if computer_seat(table, s)]


def think_seconds(table: Table, seat: int) -> float:
    """A short, varied pause before a computer seat acts (same for the same step and seat,
    so a job armed again after a restart keeps its rhythm): a vote 1-4 s, a choice 2-6 s."""
    game = table.game
    assert game is not None
    spread = zlib.crc32(f"{table.gid}:{table.step}:{seat}".encode()) % 1000 / 1000
    return 1.0 + 3.0 * spread if game.phase is Phase.VOTE else 2.0 + 4.0 * spread


def act(table: Table, gid: str, step: int, seat: int, agent: Agent) -> Outcome:
    """The computer playing ``seat`` makes its move for ``step``; late or duplicate calls
    (the step is over, the seat acted, a person took it back) are refused and change
    nothing. The agent sees the game only through its seat's view."""
    game = table.game
    if table.gid != gid or table.step != step or seat not in pending(table):
        raise Refusal("stale")
    assert game is not None
    view = SeatView(game)
    action: Action | None = None
    try:
        if game.phase is Phase.VOTE:
            action = Vote(seat, bool(agent.ballot(view, seat)))
        else:
            action = agent.act(view, seat)
    except Exception:
        action = None
    if action is None or (game.phase is not Phase.VOTE and action not in view.legal_actions(seat)):
        action = default_action(game, seat, random.Random(f"{table.gid}:{step}:{seat}"))
    return advance(table, action)


# ------------------------------------------------------------------ standing in


def stand_in(table: Table, user_id: int, why: str) -> Outcome:
    """A computer now plays for ``user_id`` (absent, or left): the group is told, the
    person gets a button to take the seat back. The game itself does not change."""
    seat = table.seat_of(user_id)
    game = table.game
    if seat is None or game is None or game.is_over or table.ending:
        raise Refusal("not_playing")
    if user_id in table.standins:
        raise Refusal("standin_already", alert=False)
    table.standins.append(user_id)
    for slot in (f"prompt:{table.step}", f"nudge:{table.step}:{seat}"):
        if slot in table.owed and table.owed[slot][2] and not table.owed[slot][2].get("done"):
            del table.owed[slot]
    for k in _unclaimed(table, seat):  # the computer claims for the seat now
        if f"claim:{k}" not in table.shown:
            table.owed.pop(f"claim:{k}", None)
    table.owe(f"standin:{seat}", payload={"seat": seat, "why": why, "back": False})
    table.owe(f"seatback:{table.step}:{seat}", user_id, {"seat": seat})
    return Outcome(table, answer="standin")


def absent_after_timeout(outcome: Outcome, enabled: bool) -> Outcome:
    """After a deadline: a person who has now missed ABSENT_AFTER deadlines in a row gets a
    computer standing in (when the group allows it)."""
    table = outcome.table
    if not enabled or table.game is None or table.game.is_over or table.ending:
        return outcome
    for key, count in list(table.missed.items()):
        user_id = int(key)
        seat = table.seat_of(user_id)
        if count < ABSENT_AFTER or user_id < 0 or user_id in table.standins or seat is None:
            continue
        if table.game.alive[seat]:
            stand_in(table, user_id, "absent")
    return outcome


def take_back(table: Table, gid: str, user_id: int) -> Outcome:
    """The person plays their seat again; a private step of theirs is asked again."""
    game = table.game
    if table.gid != gid or game is None or game.is_over or table.ending:
        raise Refusal("over")
    if user_id not in table.standins:
        raise Refusal("not_standin", alert=False)
    seat = table.seat_of(user_id)
    assert seat is not None
    table.standins.remove(user_id)
    table.missed.pop(str(user_id), None)
    table.owe(f"standin:{seat}", payload={"seat": seat, "why": "back", "back": True})
    if game.phase in PRIVATE_PHASES and prompt_seat(game) == seat:
        table.owe(f"prompt:{table.step}", user_id, {"seat": seat, "new": True})
    for k in _unclaimed(table, seat):  # a claim the computer had not made yet: theirs
        table.owe(f"claim:{k}", user_id, {"seat": seat})
    return Outcome(table, answer="seat_back")


def _unclaimed(table: Table, seat: int) -> list[str]:
    """The seat's claim prompts (open sights, or offered early) with no claim yet (keys of
    ``Table.talk``)."""
    said = {**table.talk.get("claims", {}), **table.talk.get("held", {})}
    sights = {**table.talk.get("early", {}), **table.talk.get("sights", {})}
    return [k for k, v in sights.items() if int(v[0]) == seat and k not in said]


def offer_seat_back(table: Table, user_id: int) -> Outcome:
    """The person a computer plays for opened the private chat again (/start): the button
    to take the seat back is sent again (the first may never have reached them)."""
    seat = table.seat_of(user_id)
    game = table.game
    if seat is None or game is None or game.is_over or table.ending:
        raise Refusal("nothing")
    if user_id not in table.standins:
        raise Refusal("nothing")
    table.owe(f"seatback:{table.step}:{seat}", user_id, {"seat": seat})
    return Outcome(table)


def leave_running(table: Table, user_id: int, enabled: bool) -> Outcome:
    """/leave in a running game: a computer takes the seat (if the group allows it)."""
    if table.game is None:
        raise Refusal("not_in_game")
    if not enabled:
        raise Refusal("started_leave")
    return stand_in(table, user_id, "left")


def human_result(result: dict[str, Any] | None) -> dict[str, Any] | None:
    """A finished game for the statistics: per-user lines only for people (a computer
    player's seat counts in the group's games, never as a user)."""
    if result is None:
        return None
    players = [p for p in result["players"] if int(p["user_id"]) > 0]
    return {**result, "players": players}
