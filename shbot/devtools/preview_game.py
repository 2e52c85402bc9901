"""Sample games for the translators' preview (:mod:`shbot.devtools.preview`).

The table layer plays whole games (people with sample names, seeded random choices,
claims, a computer standing in, timers) and every message the table owes is rendered by
the bot's own :class:`~shbot.bot.delivery.slots.SlotRenderer`, in the order the bot would send it,
exactly as a group and its players would read it: the same texts, captions and keyboards.
No Telegram, store or Application is involved, so a game takes milliseconds.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from telegram import InlineKeyboardMarkup

from shbot.bot import render as r
from shbot.bot.delivery.slots import SlotRenderer
from shbot.bot.refusals import answer_text
from shbot.bot.render import mylog as rm
from shbot.bot.render import seats as rs
from shbot.engine import Phase, Vote
from shbot.engine.claims import CHOICES
from shbot.i18n import Translator
from shbot.table import Outcome, Player, Refusal, Table, claims, lobby, seats, timers
from shbot.table.play import play

GROUP_ID = -1001234567890
BOT_USERNAME = "shbot"
#: Sample first names, women and men in turn (French and Japanese agree with gender), none
#: of them a computer player's name (shbot/table/seats.py), so that no two seats look alike.
NAMES = {
    "en": ("Olivia", "Noah", "Mia", "Liam", "Zoe", "Oscar", "Ruby", "Sam", "Nora", "Leo"),
    "fr": (
        "Gaëlle", "Bruno", "Élise", "Karim", "Sophie", "Lucas", "Margaux", "Thomas", "Aurélie",
        "Nicolas",
    ),
    "ja": (
        "みさき", "けんじ", "なつみ", "たくみ", "まい", "しょうた", "えり", "だいすけ", "ゆか",
        "こうじ",
    ),
}  # fmt: skip


@dataclass
class Shown:
    """One thing a reader sees: a message (or an edit of one) with its buttons, or a toast."""

    where: str  # "group", "private", "toast"
    scene: str
    reader: str  # the group, or the player who reads it in private
    text: str
    rows: list[list[str]] = field(default_factory=list)
    edit: bool = False
    slot: str = ""  # the message a later edit changes (kept messages)


def labels(markup: InlineKeyboardMarkup | None) -> list[list[str]]:
    if markup is None:
        return []
    return [[button.text for button in row] for row in markup.inline_keyboard]


@dataclass
class Game:
    """One sample game: plays it and collects what every reader sees, in order."""

    t: Translator
    scene: str
    players: int
    seed: int
    computers: int = 0
    timer: int = 0
    ja: float = 0.6  # how often a vote is Ja! (low: failed elections, chaos)
    shown: list[Shown] = field(default_factory=list)
    _timed_out: set[Phase] = field(default_factory=set)
    _seen: dict[str, tuple[str, list[list[str]]]] = field(default_factory=dict)
    _message_id: int = 100

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)
        names = NAMES.get(self.t.locale, NAMES["en"])
        people = self.players - self.computers
        self.people = [Player(1000 + i, names[i], self.t.locale, True) for i in range(people)]

        async def lookup(_: int) -> Translator:
            return self.t

        self.renderer = SlotRenderer(self.t, lookup, BOT_USERNAME)

    # ------------------------------------------------------------------ rendering

    def deliver(self, table: Table) -> None:
        """Render and "send" everything the table owes, oldest first (as the outbox does)."""
        for slot, entry in sorted(table.owed.items(), key=lambda kv: kv[1][0]):
            rendered = asyncio.run(self.renderer.render(GROUP_ID, table, slot))
            if rendered is None:
                table.delivered(slot, entry[0], None, keep=False)
                continue
            rows = labels(rendered.markup)
            if self._seen.get(slot) != (rendered.text, rows):
                self._seen[slot] = (rendered.text, rows)
                group = rendered.chat_id == GROUP_ID
                reader = "group" if group else self._name(table, rendered.chat_id)
                where = "group" if group else "private"
                edit = rendered.edit_id is not None
                shown = Shown(where, self.scene, reader, rendered.text, rows, edit, slot)
                self.shown.append(shown)
            self._message_id += 1
            table.delivered(
                slot, entry[0], rendered.edit_id or self._message_id, keep=rendered.keep
            )

    def toast(self, table: Table, text: str | None, user_id: int) -> None:
        if text:
            self.shown.append(Shown("toast", self.scene, self._name(table, user_id), text))

    def _name(self, table: Table, user_id: int) -> str:
        player = table.player(user_id)
        return player.name if player is not None else str(user_id)

    # ------------------------------------------------------------------ playing

    def run(self, middle: Callable[[Game, Table], None] | None = None) -> Table:
        """Open the lobby, fill it, play to the end; ``middle`` runs once, half-way."""
        table = lobby.new_lobby(self.people[0], created=1000.0)
        self.deliver(table)
        for person in self.people[1:]:
            outcome = lobby.join(table, person)
            self.toast(table, answer_text(self.t, outcome.answer), person.id)
        if self.computers:
            outcome = seats.add_computers(table, table.host, True, self.computers, self.t.locale)
            text = rs.answer_text(self.t, outcome.answer, self.computers)
            self.toast(table, text, table.host)
        self.deliver(table)
        options = {"timer": self.timer, "shuffle_seats": False, "rebalanced": False}
        lobby.start(table, table.host, False, self.seed, options)
        self.deliver(table)
        moves = 0
        while table.game is not None and not table.game.is_over and moves < 600:
            moves += 1
            if moves == 12 and middle is not None:
                middle(self, table)
            self._claim(table)
            if self.timer and table.game.phase not in self._timed_out:
                self._timed_out.add(table.game.phase)  # each kind of step times out once
                self._time_out(table)
            else:
                self._move(table)
            self.deliver(table)
        self._claim(table)
        return table

    def _move(self, table: Table) -> None:
        game = table.game
        assert game is not None
        if game.phase is Phase.VOTE:
            seat = game.to_act()[0]
            action: object = Vote(seat, self.rng.random() < self.ja)
        else:
            seat = game.to_act()[0]
            action = self.rng.choice(list(game.legal_actions(seat)))
        try:
            outcome = play(table, seat, action)  # type: ignore[arg-type]
        except Refusal:
            return
        self.toast(table, answer_text(self.t, outcome.answer), table.at(seat).id)

    def _claim(self, table: Table) -> None:
        """Each claim prompt of a person is answered (often truly, sometimes not at all),
        the President's before the session ends (held until it does)."""
        for k, (seat, _, _) in claims.offered(table).items():
            player = table.at(int(seat))
            done = claims.claim_of(table, k) or claims.held(table, k)
            if done is not None or seats.is_computer(player):
                continue
            kind = claims.parse_key(k)[1]
            value = self.rng.choice([*CHOICES[kind], None])
            step = claims.button_step(table, k)
            try:
                outcome = claims.claim(
                    table, table.gid, step, player.id, claims.encode(kind, value)
                )
            except Refusal:
                continue
            self.toast(table, answer_text(self.t, outcome.answer), player.id)
        self.deliver(table)

    def _time_out(self, table: Table) -> None:
        """The step's reminder, then its deadline passes (the timers' own texts)."""
        deadline = table.deadline
        for change in (
            lambda: timers.remind(table, table.gid, table.step, deadline, 30),
            lambda: timers.timeout(table, table.gid, table.step, deadline, self.rng, True),
        ):
            try:
                outcome: Outcome = change()
            except Refusal:
                return
            self.deliver(outcome.table)


def stand_in_and_back(game: Game, table: Table) -> None:
    """Half-way: a computer stands in for the second person, who then takes the seat back."""
    person = game.people[1]
    seats.stand_in(table, person.id, "absent")
    game.deliver(table)
    outcome = seats.take_back(table, table.gid, person.id)
    game.toast(table, rs.answer_text(game.t, outcome.answer), person.id)
    game.deliver(table)


def extras(game: Game, table: Table) -> None:
    """Half-way: /history, every "My role" alert and one /mylog, as a player would ask."""
    game.shown.append(Shown("group", game.scene, "/history", r.history_text(game.t, table)))
    assert table.game is not None
    for seat in range(table.game.n):
        reader = table.at(seat).name
        game.shown.append(Shown("toast", game.scene, reader, r.role_alert(game.t, table, seat)))
    mylog = "\n".join(rm.mylog_lines(game.t, table, 0))
    game.shown.append(Shown("private", game.scene, f"{table.at(0).name} /mylog", mylog))
    stand_in_and_back(game, table)


def sample_games(t: Translator) -> Sequence[Shown]:
    """The sample games: 5 players with computers, 7 with timers, 10, and 6 with chaos."""
    shown: list[Shown] = []
    plans = [
        Game(t, "5 players, 2 computer players", 5, seed=3, computers=2),
        Game(t, "7 players, timers", 7, seed=11, timer=60),
        Game(t, "10 players", 10, seed=5),
        Game(t, "6 players, many rejected governments", 6, seed=2, ja=0.35),
    ]
    for game in plans:
        table = game.run(extras)
        game.shown.append(
            Shown("private", game.scene, f"{table.at(0).name} /mylog", _mylog(t, table))
        )
        game.shown.append(Shown("group", game.scene, "/history", r.history_text(t, table)))
        shown += game.shown
    return shown


def _mylog(t: Translator, table: Table) -> str:
    return "\n".join(rm.mylog_lines(t, table, 0))
