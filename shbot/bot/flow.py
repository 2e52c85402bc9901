"""What a press does to a table, and what the players are then shown.

``apply_*`` functions run inside ``Store.update_game``: they only change the record (they
may run twice on a version conflict) and describe the change in an :class:`Outcome`.
:func:`narrate` runs after the commit and turns an outcome into outbox operations.

At most one private prompt is open at a time (the President's hand, the Chancellor's hand,
the veto question or a power's targets), and it belongs to the current ``step``: when the
step changes the old prompt is edited to say what was done and the new one is sent.
"""

from __future__ import annotations

import copy
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from shbot.engine import (
    AnswerVeto,
    BadSetup,
    Discard,
    Enact,
    Event,
    Execute,
    Game,
    IllegalAction,
    Investigate,
    Kind,
    Nominate,
    Phase,
    ProposeVeto,
    SpecialElection,
    Vote,
)
from shbot.engine.actions import Action
from shbot.i18n import N_, Translator
from shbot.storage import GameRecord

from . import callbacks as cb
from . import render as r
from . import render_timers as rt
from .model import Player, Table, new_game_id
from .outbox import Outbox

MIN_PLAYERS, MAX_PLAYERS = 5, 10
MAX_ALERT = 200  # characters in a callback query alert (Telegram)
PRIVATE_PHASES = (
    Phase.PRESIDENT_DISCARD,
    Phase.CHANCELLOR_ENACT,
    Phase.VETO_RESPONSE,
    Phase.INVESTIGATE,
    Phase.SPECIAL_ELECTION,
    Phase.EXECUTION,
)


class Refusal(Exception):
    """The press changes nothing; ``text`` is already localized for the presser."""

    def __init__(self, text: str, *, alert: bool = True, code: str = "") -> None:
        super().__init__(text)
        self.text = text
        self.alert = alert
        self.code = code  # machine-readable, for callers that react to one refusal


@dataclass
class Outcome:
    before: Table | None
    after: Table
    events: list[Event] = field(default_factory=list)
    action: Action | None = None
    answer: str | None = None  # short confirmation for the presser (a toast)
    lobby_changed: bool = False
    started: bool = False
    finished: bool = False
    closed_round_log: list[list[Any]] | None = None
    timed_out: list[int] | None = None  # seats that missed the deadline (timers)
    timeout_phase: Phase | None = None
    missing_nein: bool = True


# ----------------------------------------------------------------------------- lobby


def new_lobby(host: Player, created: float | None = None) -> Table:
    return Table(gid=new_game_id(), host=host.id, created=created or time.time(), players=[host])


def apply_join(record: GameRecord, player: Player, t: Translator) -> Outcome:
    table = Table.from_dict(record.data)
    if record.status != "lobby" or table.game is not None:
        raise Refusal(t._("The game has already started."))
    existing = table.player(player.id)
    if existing is not None:
        if existing.ready == player.ready or existing.ready:
            raise Refusal(t._("You are already in this game."), alert=False, code="joined")
        existing.ready = True
    else:
        if len(table.players) >= MAX_PLAYERS:
            raise Refusal(t._("The game is full (10 players)."))
        table.players.append(player)
    record.data = table.to_dict()
    return Outcome(
        None,
        table,
        lobby_changed=True,
        answer=t._("You joined the game.") if existing is None else None,
    )


def apply_leave(record: GameRecord, user_id: int, t: Translator) -> Outcome:
    table = Table.from_dict(record.data)
    if record.status != "lobby" or table.game is not None:
        raise Refusal(t._("The game has already started; you cannot leave now."))
    player = table.player(user_id)
    if player is None:
        raise Refusal(t._("You are not in this game."))
    table.players.remove(player)
    if table.host == user_id and table.players:
        table.host = table.players[0].id
    record.data = table.to_dict()
    return Outcome(None, table, lobby_changed=True, answer=t._("You left the game."))


def apply_ready(record: GameRecord, user_id: int) -> Outcome | None:
    """A lobby player opened the private chat: mark them reachable."""
    table = Table.from_dict(record.data)
    player = table.player(user_id)
    if player is None or player.ready:
        return None
    player.ready = True
    record.data = table.to_dict()
    return Outcome(None, table, lobby_changed=True)


def apply_start(
    record: GameRecord,
    user_id: int,
    is_admin: bool,
    seed: int,
    options: dict[str, Any],
    t: Translator,
) -> Outcome:
    table = Table.from_dict(record.data)
    if record.status != "lobby" or table.game is not None:
        raise Refusal(t._("The game has already started."))
    if user_id != table.host and not is_admin:
        raise Refusal(t._("Only the host or a group admin can start the game."))
    count = len(table.players)
    if count < MIN_PLAYERS:
        raise Refusal(
            t.ngettext(
                "A game needs at least 5 players; {n} has joined.",
                "A game needs at least 5 players; {n} have joined.",
                count,
            )
        )
    unready = [p for p in table.players if not p.ready]
    if unready:
        waiting = N_(
            "Waiting for {names} to open a private chat with me (button “Open private "
            "chat”), so that I can send their secret roles."
        )
        # An alert holds 200 characters: shorten the names, never the sentence around them.
        room = MAX_ALERT - len(t._(waiting, names=""))
        names = t._(", ").join(p.name for p in unready)
        if len(names) > room:
            names = names[: max(room - 1, 1)] + "…"
        raise Refusal(t._(waiting, names=names))
    try:
        game, events = Game.new(
            count,
            seed,
            shuffle_seats=bool(options.get("shuffle_seats")),
            rebalanced=bool(options.get("rebalanced")),
        )
    except BadSetup as exc:  # pragma: no cover - the checks above make it unreachable
        raise Refusal(str(exc)) from exc
    before = Table.from_dict(record.data)
    table.game = game
    table.options = dict(options)
    table.step = 1
    table.restart_clock()
    table.round_log = [[e.kind.value, e.data] for e in events if e.kind is Kind.ROUND_STARTED]
    record.status = "running"
    record.data = table.to_dict()
    return Outcome(before, table, events, started=True)


# ----------------------------------------------------------------------------- game presses


def _action_for(table: Table, press: cb.GamePress, seat: int, t: Translator) -> Action:
    game = table.game
    assert game is not None
    op, arg = press.op, press.arg
    try:
        if op == cb.NOMINATE:
            return Nominate(seat, int(arg or ""))
        if op == cb.VOTE and arg in ("0", "1"):
            return Vote(seat, arg == "1")
        if op == cb.DISCARD and arg in ("L", "F"):
            return Discard(seat, arg)
        if op == cb.ENACT and arg in ("L", "F"):
            return Enact(seat, arg)
        if op == cb.VETO:
            return ProposeVeto(seat)
        if op == cb.VETO_ANSWER and arg in ("0", "1"):
            return AnswerVeto(seat, arg == "1")
        if op == cb.TARGET:
            target = int(arg or "")
            if game.phase is Phase.INVESTIGATE:
                return Investigate(seat, target)
            if game.phase is Phase.SPECIAL_ELECTION:
                return SpecialElection(seat, target)
            if game.phase is Phase.EXECUTION:
                return Execute(seat, target)
            raise Refusal(t._("This step is already over."))
    except ValueError:
        pass
    raise Refusal(t._("This button is not valid."))


def apply_press(record: GameRecord, press: cb.GamePress, user_id: int, t: Translator) -> Outcome:
    """Apply a game button press by ``user_id``; raises :class:`Refusal` to change nothing."""
    table = Table.from_dict(record.data)
    game = table.game
    if table.gid != press.game_id or game is None:
        raise Refusal(t._("This button belongs to a game that is over."))
    if game.is_over:
        raise Refusal(t._("This game is over."))
    seat = table.seat_of(user_id)
    if seat is None:
        raise Refusal(t._("You are not playing in this game."))
    if press.step != table.step:
        raise Refusal(t._("This step is already over."))
    action = _action_for(table, press, seat, t)
    if isinstance(action, Vote) and game.phase is Phase.VOTE:
        current = game.votes[seat]
        if current == (1 if action.ja else 0):
            raise Refusal(_vote_answer(t, action.ja), alert=False)
    before = Table.from_dict(record.data)
    if seat not in game.to_act() and not (
        isinstance(action, Vote) and game.phase is Phase.VOTE and game.alive[seat]
    ):
        raise Refusal(t._("It's not your turn."))
    try:
        events = game.apply(action)
    except IllegalAction as exc:
        raise Refusal(r.reason_text(t, exc.reason)) from exc
    outcome = Outcome(before, table, events, action)
    _advance(table, before, events, outcome)
    if table.step != before.step:
        table.restart_clock()
    if isinstance(action, Vote):
        outcome.answer = _vote_answer(t, action.ja)
    if game.is_over:
        record.status = "finished"
        outcome.finished = True
    record.data = table.to_dict()
    return outcome


def _vote_answer(t: Translator, ja: bool) -> str:
    return (
        t._("Your vote: Ja! You can change it until everyone has voted.")
        if ja
        else t._("Your vote: Nein! You can change it until everyone has voted.")
    )


def _advance(table: Table, before: Table, events: list[Event], outcome: Outcome) -> None:
    """Keep the round log and the step in line with the engine after an action."""
    game = table.game
    bgame = before.game
    assert game is not None and bgame is not None
    for e in events:
        if not e.public or e.kind is Kind.VOTE_CAST:
            continue
        if e.kind is Kind.ROUND_STARTED:
            outcome.closed_round_log = table.round_log
            table.round_log = []
        if e.kind is not Kind.GAME_OVER:
            table.round_log.append([e.kind.value, e.data])
    if game.phase is not bgame.phase or game.round != bgame.round:
        table.step += 1


# ----------------------------------------------------------------------------- narration

Tr = Callable[[int], Translator]


@dataclass
class Narrator:
    """Renders outcomes into outbox operations for one group."""

    outbox: Outbox
    chat_id: int
    group: Translator
    user_t: Tr  # translator for a user's private chat
    bot_username: str
    on_sent: Callable[[str], Callable[[int], Awaitable[None]]]  # key -> hook storing the id

    def lobby(self, table: Table, *, closed: str | None = None) -> None:
        key = table.key("lobby")
        text = r.lobby_text(self.group, table, closed=closed)
        kb = (
            None if closed else r.lobby_keyboard(self.group, table, self.bot_username, self.chat_id)
        )
        if table.msgs.get("lobby") or self.outbox.known(self.chat_id, key):
            self.outbox.edit(
                self.chat_id,
                text,
                kb,
                key=key,
                message_id=table.msgs.get("lobby"),
                on_sent=self.on_sent("lobby"),
            )
        else:
            self.outbox.send(self.chat_id, text, kb, key=key, on_sent=self.on_sent("lobby"))

    def board(self, table: Table, *, new: bool = False) -> None:
        key = table.key("board")
        text = r.board_text(self.group, table)
        kb = r.board_keyboard(self.group, table)
        if new:
            self.outbox.send(self.chat_id, text, kb, key=key, on_sent=self.on_sent("board"))
        else:
            self.outbox.edit(
                self.chat_id,
                text,
                kb,
                key=key,
                message_id=table.msgs.get("board"),
                on_sent=self.on_sent("board"),
            )

    def round(self, table: Table, *, new: bool = False) -> None:
        assert table.game is not None
        name = f"round{table.game.round}"
        key = table.key(name)
        text = r.round_text(self.group, table)
        kb = None if table.game.is_over else r.round_keyboard(self.group, table)
        if new:
            self.outbox.send(self.chat_id, text, kb, key=key, on_sent=self.on_sent(name))
        else:
            self.outbox.edit(
                self.chat_id,
                text,
                kb,
                key=key,
                message_id=table.msgs.get(name),
                on_sent=self.on_sent(name),
            )

    def closed_round(self, table: Table, log: list[list[Any]], round_no: int) -> None:
        """Final form of a finished round's message: its log, no prompt, no buttons."""
        snapshot = copy.copy(table)
        snapshot.round_log = log
        assert table.game is not None
        game = table.game.clone()
        game.round = -1  # no current prompt in a closed round
        snapshot.game = game
        name = f"round{round_no}"
        text = r.round_text(self.group, snapshot)
        self.outbox.edit(
            self.chat_id,
            text,
            None,
            key=table.key(name),
            message_id=table.msgs.get(name),
            on_sent=self.on_sent(name),
        )

    # -- private prompts

    def open_prompt(self, table: Table) -> None:
        """Send the private prompt of the current step, if it has one."""
        game = table.game
        assert game is not None
        phase = game.phase
        if phase not in PRIVATE_PHASES:
            return
        seat = game.chancellor if phase is Phase.CHANCELLOR_ENACT else game.president
        user = table.at(seat)
        t = self.user_t(user.id)
        if phase is Phase.PRESIDENT_DISCARD:
            text = r.president_hand_text(t, table, game.hand)
            kb = r.president_hand_keyboard(t, table, game.hand)
        elif phase is Phase.CHANCELLOR_ENACT:
            veto = game.veto_unlocked and not game.veto_refused
            text = r.chancellor_hand_text(t, table, game.hand, veto, refused=game.veto_refused)
            kb = r.chancellor_hand_keyboard(t, table, game.hand, veto)
        elif phase is Phase.VETO_RESPONSE:
            text = r.veto_question_text(t, table)
            kb = r.veto_question_keyboard(t, table)
        else:
            text = r.power_prompt_text(t, phase)
            kb = r.power_keyboard(t, table)
        name = f"prompt{table.step}"
        self.outbox.send(user.id, text, kb, key=table.key(name), on_sent=self.on_sent(name))

    def close_prompt(
        self,
        before: Table,
        after: Table,
        action: Action | None,
        events: list[Event],
        *,
        timed_out: bool = False,
    ) -> None:
        game = before.game
        assert game is not None
        phase = game.phase
        if phase not in PRIVATE_PHASES or action is None:
            return
        seat = game.chancellor if phase is Phase.CHANCELLOR_ENACT else game.president
        user = before.at(seat)
        t = self.user_t(user.id)
        text: str | None = None
        if isinstance(action, Discard):
            hand: list[str] = next(
                (e.data["policies"] for e in events if e.kind is Kind.CHANCELLOR_HAND), []
            )
            text = r.done_discard_text(t, action.policy, hand)
        elif isinstance(action, Enact):
            text = r.done_enact_text(t, action.policy)
        elif isinstance(action, ProposeVeto):
            text = t._("✋ You proposed a veto. The President decides.")
        elif isinstance(action, AnswerVeto):
            text = (
                t._("✋ You accepted the veto: both policies are discarded.")
                if action.accept
                else t._("You refused the veto: the Chancellor must enact a policy.")
            )
        elif isinstance(action, Investigate):
            result = next(e for e in events if e.kind is Kind.INVESTIGATION_RESULT)
            text = r.investigation_text(t, after, result.data["target"], result.data["party"])
        elif isinstance(action, SpecialElection):
            text = t._(
                "🗳 You chose {player} as the next presidential candidate.",
                player=r.name(after.names(), action.target),
            )
        elif isinstance(action, Execute):
            text = t._("💀 You executed {player}.", player=r.name(after.names(), action.target))
        if text is None:
            return
        if timed_out:
            text = f"{rt.timeout_private_prefix(t, phase)}\n{text}"
        name = f"prompt{before.step}"
        self.outbox.edit(
            user.id, text, None, key=before.key(name), message_id=before.msgs.get(name)
        )

    # -- whole outcomes

    def started(self, outcome: Outcome) -> None:
        table = outcome.after
        game = table.game
        assert game is not None
        self.lobby(table, closed=self.group._("▶️ The game has started!"))
        for e in outcome.events:
            if e.kind is Kind.ROLE and e.to:
                seat = e.to[0]
                user = table.at(seat)
                self.outbox.send(user.id, r.role_text(self.user_t(user.id), table, seat, e.data))
        self.board(table, new=True)
        self.round(table, new=True)

    def played(self, outcome: Outcome) -> None:
        before, after = outcome.before, outcome.after
        assert before is not None and before.game is not None and after.game is not None
        game = after.game
        # Private results that are not prompts.
        for e in outcome.events:
            if e.kind is Kind.PEEK_RESULT and e.to:
                user = after.at(e.to[0])
                self.outbox.send(user.id, r.peek_text(self.user_t(user.id), e.data["policies"]))
        if outcome.timed_out is not None and outcome.timeout_phase is not None:
            self.outbox.send(
                self.chat_id,
                rt.timeout_text(
                    self.group,
                    before,
                    outcome.timeout_phase,
                    outcome.timed_out,
                    outcome.action,
                    outcome.missing_nein,
                ),
            )
        if before.step != after.step:
            self.close_prompt(
                before,
                after,
                outcome.action,
                outcome.events,
                timed_out=outcome.timed_out is not None,
            )
        # Group: the round message(s), then the board.
        if outcome.closed_round_log is not None:
            self.closed_round(after, outcome.closed_round_log, before.game.round)
            if not game.is_over:
                self.round(after, new=True)
        else:
            self.round(after)
        self.board(after)
        if game.is_over:
            self.outbox.send(self.chat_id, r.game_over_text(self.group, after))
        elif before.step != after.step:
            self.open_prompt(after)
