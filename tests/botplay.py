"""Whole games of the real bot, played by simulated users pressing its buttons.

The end-to-end tests (``tests/test_bot_*.py``) build the production Application with
``build_application`` over :class:`~tests.fake_telegram.FakeBotAPI` and drive it through the
:class:`~tests.harness.Harness`. This module is their common driver:

* :func:`running_bot` starts the bot on a store (SQLite by default), optionally with the real
  rate limiter (use it under ``@pytest.mark.looptime`` so its waits cost no real time);
* :func:`open_game` fills a lobby by pressing Join and starts it by pressing Start;
* :func:`play` reads the current :class:`~shbot.table.Table` from the store before every
  move, finds the message that carries the move's buttons (the group's round message for
  nominations and votes, the actor's newest private prompt for everything else) and presses
  the button a :class:`Strategy` picks. It never calls the engine: every move is a press, and
  a press the bot refuses fails the test;
* :class:`Plan` scripts a game election by election ("F", "x", "cL", "V", "RL", "H", ...),
  stacking the hidden draw pile so the script is always playable; :class:`RandomPlay` plays
  at random; :class:`Replay` repeats another game's moves;
* the ``check_*`` functions hold the invariants every finished game must satisfy (roles
  revealed, game archived, players released, secrets kept, valid calls).

Registered as a pytest plugin in ``tests/conftest.py`` for its fixtures.
"""

from __future__ import annotations

import contextlib
import random
import re
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from shbot.bot import callbacks as cb
from shbot.bot import render as r
from shbot.bot.app import build_application
from shbot.bot.config import Config
from shbot.bot.delivery import media
from shbot.bot.delivery.limiter import ChatRateLimiter
from shbot.bot.services import Services
from shbot.engine import FASCIST, HITLER, LIBERAL, Game, Phase, party_of
from shbot.i18n import Translator, translator
from shbot.storage import GameRecord, Store, open_store
from shbot.table.model import Table
from tests.fake_telegram import Call, FakeBotAPI, FakeChat, JSONDict, StoredMessage
from tests.harness import FakeUser, Harness, refused
from tests.redis_server import RedisServer

AnyApp = Any  # Application[...] with six type parameters; nothing here depends on them

# Virtual seconds the outbox may take to drain; generous because the real rate limiter can
# hold a group's messages for minutes (virtual minutes under looptime).
SETTLE_TIMEOUT = 3600.0
GROUP_OPS = frozenset(
    {cb.JOIN, cb.LEAVE, cb.START, cb.NOMINATE, cb.VOTE, cb.MY_ROLE, cb.CANCEL_YES, cb.CANCEL_NO}
    | {cb.ADD_BOT, cb.REMOVE_BOT}
)
PRIVATE_OPS = frozenset({cb.DISCARD, cb.ENACT, cb.VETO, cb.VETO_ANSWER, cb.TARGET})


# ------------------------------------------------------------------------------------ the bot


@dataclass
class Bot:
    """A running bot: the fake Telegram, the harness, the store and the Application."""

    fake: FakeBotAPI
    h: Harness
    store: Store
    app: AnyApp

    @property
    def svc(self) -> Services:
        svc: Services = self.app.bot_data["svc"]
        return svc

    async def settle(self) -> None:
        """Wait until every message the bot queued has been delivered (or given up)."""
        await self.svc.outbox.join(timeout=SETTLE_TIMEOUT)

    async def record(self, chat: FakeChat | int) -> GameRecord | None:
        return await self.store.get_game(chat if isinstance(chat, int) else chat.id)

    async def table(self, chat: FakeChat | int) -> Table | None:
        record = await self.record(chat)
        return Table.from_dict(record.data) if record is not None else None

    async def finished(self, chat: FakeChat | int) -> Table:
        """The chat's most recently finished game, from the archive."""
        chat_id = chat if isinstance(chat, int) else chat.id
        games = await self.store.finished_games(chat_id, limit=1)
        assert games, f"no finished game in chat {chat_id}"
        return Table.from_dict(games[0].data)

    def fix_seed(self, seed: int) -> None:
        """Deal the next game from ``seed`` (roles, deck, first President)."""
        self.svc.new_seed = lambda: seed


@contextlib.asynccontextmanager
async def running_bot(
    store: Store,
    *,
    limiter: bool = False,
    latency: float = 0.0,
    menus: bool = True,
    timers: str = "off",
) -> AsyncIterator[Bot]:
    """The production Application over a fresh fake Telegram, started and ready.

    ``limiter=False`` takes all pacing off so games run at full speed in real time; tests
    of pacing keep it and run under ``@pytest.mark.looptime`` (virtual time).
    ``timers`` is the default timer preset of the groups ("off": no deadline ever fires,
    so scripted games are never interrupted; tests of deadlines choose one).
    """
    fake = FakeBotAPI(latency=latency)
    config = Config(token=fake.token, timers=timers)
    app = build_application(config, store, request=fake, menus=menus)
    if not limiter:
        # No pacing at all (the only way to swap it in a built Application); the limiter
        # still sees every callback answer (delivery/answers.py: what a flood's presses are told).
        app.bot._rate_limiter = ChatRateLimiter(limit=0)
        app.bot_data["svc"].outbox.pacer.enabled = False
    async with Harness(app, fake) as h:
        bot = Bot(fake, h, store, app)
        try:
            yield bot
        finally:
            await bot.settle()


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[Store]:
    """A fresh SQLite store for one test."""
    s = open_store(sqlite_path=str(tmp_path / "shbot.sqlite3"))
    try:
        yield s
    finally:
        await s.close()


@pytest.fixture
async def redis_store(redis_server: RedisServer, redis_prefix: str) -> AsyncIterator[Store]:
    """A Redis store with a key prefix of its own (the session's Redis server)."""
    s = open_store(redis_url=redis_server.url, prefix=redis_prefix)
    try:
        yield s
    finally:
        await s.close()


@pytest.fixture
async def bot(store: Store) -> AsyncIterator[Bot]:
    """The bot on a fresh SQLite store, without rate limiter (fast, real time)."""
    async with running_bot(store) as running:
        yield running


# ------------------------------------------------------------------------------------ lobby


def button_data(message: StoredMessage, op: str) -> str:
    """The callback data of the single button of ``message`` whose operation is ``op``."""
    found = [
        b["callback_data"]
        for b in message.buttons()
        if "callback_data" in b
        and isinstance(press := cb.parse(b["callback_data"]), cb.GamePress)
        and press.op == op
    ]
    assert len(found) == 1, f"{len(found)} buttons {op!r} in {message.buttons()}"
    return found[0]


def lobby_message(bot: Bot, group: FakeChat) -> StoredMessage:
    """The group's newest message with a Join button."""
    for message in reversed(bot.fake.messages(group.id)):
        if any(b.get("callback_data", "").endswith(":0:j") for b in message.buttons()):
            return message
    raise LookupError(f"no lobby message in {group.id}")


async def open_game(
    bot: Bot,
    users: Sequence[FakeUser],
    *,
    group: FakeChat | None = None,
    seed: int | None = None,
    start: bool = True,
) -> FakeChat:
    """Every user opens the private chat; users[0] sends /newgame, the others press Join,
    users[0] presses Start. Returns the group (created unless given)."""
    h = bot.h
    if group is None:
        group = h.group(creator=users[0], members=users[1:])
    if seed is not None:
        bot.fix_seed(seed)
    for user in users:
        await h.command(user, user, "/start")
    await h.command(users[0], group, "/newgame")
    await bot.settle()
    lobby = lobby_message(bot, group)
    join = button_data(lobby, cb.JOIN)
    for user in users[1:]:
        await h.press(user, lobby, data=join)
        await bot.settle()
    if start:
        table = await bot.table(group)
        if table is None or table.game is None:  # ten players, all reachable: started already
            await h.press(users[0], lobby, data=button_data(lobby, cb.START))
            await bot.settle()
        table = await bot.table(group)
        assert table is not None and table.game is not None, "the game did not start"
    return group


def find_seed(
    players: int,
    *,
    hitler: int | None = None,
    first_president: int | None = None,
    accept: Callable[[Game], bool] | None = None,
    start: int = 1,
) -> int:
    """The first seed from ``start`` whose deal puts Hitler and the first President at the
    given seats (and satisfies ``accept``). Seats are join order: seats are not shuffled."""
    for seed in range(start, start + 200_000):
        game, _ = Game.new(players, seed)
        if hitler is not None and game.roles.index(HITLER) != hitler:
            continue
        if first_president is not None and game.president != first_president:
            continue
        if accept is not None and not accept(game):
            continue
        return seed
    raise AssertionError("no seed found")


async def rewrite_game(bot: Bot, chat: FakeChat | int, change: Callable[[Game], None]) -> None:
    """Change the stored engine state (hidden parts only!) through the store."""
    chat_id = chat if isinstance(chat, int) else chat.id

    def apply(record: GameRecord) -> None:
        table = Table.from_dict(record.data)
        assert table.game is not None
        change(table.game)
        record.data = table.to_dict()

    await bot.store.update_game(chat_id, apply)


def set_deck(game: Game, top_first: str) -> None:
    """Replace the draw pile by ``top_first`` (same tiles, other order: R1.5 holds)."""
    assert sorted(top_first) == sorted(game.draw), "a rigged deck must hold the same tiles"
    game.draw = list(reversed(top_first))


# ------------------------------------------------------------------------------------ moves


@dataclass(frozen=True)
class Move:
    """One press: who (seat) did what (callback op and argument) in which round and phase."""

    round: int
    phase: str
    seat: int
    op: str
    arg: str | None


@dataclass
class Turn:
    """What a strategy sees before a move. ``game`` is the full engine state: scripted
    strategies may use hidden facts to steer the game (the players never see them)."""

    table: Table
    seat: int
    user: FakeUser
    message: StoredMessage
    options: list[tuple[str, str | None]]  # (op, arg) of the buttons offered for this step

    @property
    def game(self) -> Game:
        assert self.table.game is not None
        return self.table.game

    @property
    def phase(self) -> Phase:
        return self.game.phase

    def args(self, op: str) -> list[str | None]:
        return [arg for o, arg in self.options if o == op]


class Strategy:
    """Chooses every move of a game. ``prepare`` may rig hidden state before a move."""

    def prepare(self, game: Game) -> bool:
        """Change ``game``'s hidden state in place before the next move; True if changed."""
        return False

    def choose(self, turn: Turn) -> tuple[str, str | None]:
        raise NotImplementedError


class RandomPlay(Strategy):
    """Random among the offered buttons; a vote is a coin flip weighted to Ja so that games
    move on. ``fascist`` players lean to Fascist policies (so powers come early) and never
    nominate Hitler, so the game lasts until the powers have been used."""

    def __init__(self, seed: int, *, ja: float = 0.7, fascist: bool = False) -> None:
        self.rng = random.Random(seed)
        self.ja = ja
        self.fascist = fascist

    def choose(self, turn: Turn) -> tuple[str, str | None]:
        phase, options = turn.phase, turn.options
        if phase is Phase.VOTE:
            return cb.VOTE, "1" if self.rng.random() < self.ja else "0"
        if self.fascist:
            hitler = str(turn.game.roles.index(HITLER))
            if phase is Phase.NOMINATE:
                options = [o for o in options if o[1] != hitler] or options
            elif phase is Phase.PRESIDENT_DISCARD and (cb.DISCARD, LIBERAL) in options:
                return cb.DISCARD, LIBERAL
            elif phase is Phase.CHANCELLOR_ENACT and (cb.ENACT, FASCIST) in options:
                if (cb.VETO, None) in options and self.rng.random() < 0.5:
                    return cb.VETO, None
                return cb.ENACT, FASCIST
        return self.rng.choice(options)


class Replay(Strategy):
    """The moves of another game, in order; each must be offered to the same seat."""

    def __init__(self, moves: Sequence[Move]) -> None:
        self.moves = list(moves)
        self.i = 0

    def choose(self, turn: Turn) -> tuple[str, str | None]:
        move = self.moves[self.i]
        self.i += 1
        assert (move.seat, move.phase) == (turn.seat, turn.phase.value), (
            f"replay diverged at move {self.i}: {move} vs seat {turn.seat} {turn.phase}"
        )
        return move.op, move.arg


class Plan(Strategy):
    """A scripted game, one token per election:

    ``L``/``F`` elected, the Chancellor enacts that policy · ``x`` rejected · ``cL``/``cF``
    rejected, and it is the third failure in a row: chaos enacts that policy · ``V`` elected,
    the Chancellor proposes a veto and the President accepts · ``RL``/``RF`` elected, veto
    proposed and refused, then that policy is enacted · ``H`` Hitler is nominated and elected.

    ``targets`` are the power targets in order (a seat, or "H" for Hitler); when they run out
    the first offered target who is not Hitler is taken. Ballots are random but give the
    planned result. The draw pile is stacked (never changed otherwise) before each vote so
    the planned policy is in the President's hand, or on top for chaos.
    """

    def __init__(self, tokens: Sequence[str], targets: Sequence[int | str] = (), seed: int = 0):
        self.tokens = list(tokens)
        self.targets = list(targets)
        self.rng = random.Random(seed)
        self.election = -1
        self.ballots: dict[int, list[bool]] = {}

    @property
    def token(self) -> str:
        assert 0 <= self.election < len(self.tokens), "the plan ran out before the game ended"
        return self.tokens[self.election]

    @property
    def policy(self) -> str:
        return self.token[-1]

    def elected(self) -> bool:
        return not self.token.startswith(("x", "c"))

    def prepare(self, game: Game) -> bool:
        if game.phase is not Phase.VOTE or any(v >= 0 for v in game.votes):
            return False
        token = self.token
        if token.startswith("c"):
            assert game.tracker == 2, f"chaos planned with the tracker at {game.tracker}"
            return _stack(game, self.policy, within=1)
        if token in ("x", "V", "H"):
            return False
        return _stack(game, self.policy, within=3)

    def choose(self, turn: Turn) -> tuple[str, str | None]:
        game, phase = turn.game, turn.phase
        hitler = game.roles.index(HITLER)
        if phase is Phase.NOMINATE:
            self.election += 1
            nominees = [int(a) for a in turn.args(cb.NOMINATE) if a is not None]
            if self.token == "H":
                assert hitler in nominees, "Hitler cannot be nominated now"
                return cb.NOMINATE, str(hitler)
            safe = [s for s in nominees if s != hitler] or nominees
            return cb.NOMINATE, str(self.rng.choice(safe))
        if phase is Phase.VOTE:
            if game.round not in self.ballots:
                self.ballots[game.round] = self._ballots(game)
            return cb.VOTE, "1" if self.ballots[game.round][turn.seat] else "0"
        token = self.token
        if phase is Phase.PRESIDENT_DISCARD:
            offered = turn.args(cb.DISCARD)
            if token == "V":
                return cb.DISCARD, offered[0]
            keep = self.policy
            assert keep in game.hand, f"planned {keep} but the hand is {game.hand}"
            other = [p for p in offered if p != keep]
            return cb.DISCARD, other[0] if other else keep
        if phase is Phase.CHANCELLOR_ENACT:
            if token == "V" or (token.startswith("R") and not game.veto_refused):
                return cb.VETO, None
            assert self.policy in game.hand, f"planned {self.policy}, hand {game.hand}"
            return cb.ENACT, self.policy
        if phase is Phase.VETO_RESPONSE:
            return cb.VETO_ANSWER, "1" if token == "V" else "0"
        offered_seats = [int(a) for a in turn.args(cb.TARGET) if a is not None]
        if self.targets:
            wanted = self.targets.pop(0)
            seat = hitler if wanted == "H" else int(wanted)
            assert seat in offered_seats, f"target {seat} not offered: {offered_seats}"
            return cb.TARGET, str(seat)
        safe = [s for s in offered_seats if s != hitler]
        return cb.TARGET, str(safe[0])

    def _ballots(self, game: Game) -> list[bool]:
        living = [s for s in range(game.n) if game.alive[s]]
        if self.elected():
            nein = self.rng.randint(0, (len(living) - 1) // 2)
            against = set(self.rng.sample(living, nein))
            return [s not in against for s in range(game.n)]
        ja = self.rng.randint(0, len(living) // 2)
        pro = set(self.rng.sample(living, ja))
        return [s in pro for s in range(game.n)]


def _stack(game: Game, policy: str, within: int) -> bool:
    """Bring a ``policy`` tile into the top ``within`` tiles of the draw pile (top = last)."""
    draw = game.draw
    if policy in draw[-within:]:
        return False
    below = [i for i in range(len(draw) - within) if draw[i] == policy]
    assert below, f"no {policy} tile left in the draw pile {draw} to stack"
    i = below[-1]
    draw[i], draw[-1] = draw[-1], draw[i]
    return True


# ------------------------------------------------------------------------------------ playing


@dataclass
class Played:
    """A finished game: its moves, the final table and the users by seat."""

    group: FakeChat
    moves: list[Move]
    table: Table
    users: list[FakeUser]  # by seat

    @property
    def game(self) -> Game:
        assert self.table.game is not None
        return self.table.game


Hook = Callable[[Turn], Awaitable[None]]


def step_message(
    fake: FakeBotAPI, chat_id: int, table: Table, ops: frozenset[str]
) -> StoredMessage | None:
    """The newest message in ``chat_id`` with a button of this step for one of ``ops``."""
    prefix = f"{table.gid}:{table.step}:"
    for message in reversed(fake.messages(chat_id)):
        for button in message.buttons():
            data = button.get("callback_data", "")
            press = cb.parse(data)
            if data.startswith(prefix) and isinstance(press, cb.GamePress) and press.op in ops:
                return message
    return None


def options_of(message: StoredMessage, table: Table) -> list[tuple[str, str | None]]:
    prefix = f"{table.gid}:{table.step}:"
    out = []
    for button in message.buttons():
        data = button.get("callback_data", "")
        press = cb.parse(data)
        if data.startswith(prefix) and isinstance(press, cb.GamePress):
            out.append((press.op, press.arg))
    return out


async def next_turn(bot: Bot, group: FakeChat, users: dict[int, FakeUser]) -> Turn | None:
    """The next move the game waits for (the first pending voter during a vote).

    The buttons must already be on screen; if they are not, the messages still queued in
    the outbox are awaited first (a player can only press what has arrived)."""
    for attempt in range(2):
        table = await bot.table(group)
        if table is not None and table.game is not None and table.game.is_over:
            await bot.settle()  # an ended game leaves the store once its last words are out
            table = await bot.table(group)
        if table is None:
            return None
        game = table.game
        assert game is not None and not game.is_over, "a finished game must leave the store"
        seat = game.to_act()[0]
        user = users[table.at(seat).id]
        if game.phase in (Phase.NOMINATE, Phase.VOTE):
            message = step_message(bot.fake, group.id, table, frozenset({cb.NOMINATE, cb.VOTE}))
            where = f"the group {group.id}"
        else:
            message = step_message(bot.fake, user.id, table, PRIVATE_OPS)
            where = f"the private chat of seat {seat}"
        if message is not None:
            return Turn(table, seat, user, message, options_of(message, table))
        if attempt == 0:
            await bot.settle()
    raise AssertionError(f"no buttons for step {table.step} ({game.phase}) in {where}")


async def press_move(bot: Bot, turn: Turn, op: str, arg: str | None, *, settle: bool = True) -> str:
    """Press the button (op, arg) of the turn's message; the bot must accept it."""
    assert (op, arg) in turn.options, f"{(op, arg)} not offered: {turn.options}"
    data = cb.game_data(turn.table.gid, turn.table.step, op, arg)
    query_id = await bot.h.press(turn.user, turn.message, data=data)
    if settle:
        await bot.settle()
    answer = bot.h.answer(query_id)
    assert not refused(answer), f"the bot refused {data} by seat {turn.seat}: {answer.text}"
    return query_id


async def play(
    bot: Bot,
    group: FakeChat,
    users: Sequence[FakeUser],
    strategy: Strategy,
    *,
    before: Hook | None = None,
    fast: bool = False,
    max_moves: int = 2000,
) -> Played:
    """Play the group's running game to its end with ``strategy``; see the module docstring.

    By default every press waits until the bot's messages are delivered. ``fast`` players
    press as soon as their buttons are on screen, while the outbox may still be busy (so
    queued edits coalesce as they would in a quick group)."""
    by_id = {u.id: u for u in users}
    moves: list[Move] = []
    first = await bot.table(group)
    assert first is not None and first.game is not None, "no running game"
    seat_users = [by_id[first.at(s).id] for s in range(first.game.n)]
    for _ in range(max_moves):
        table = await bot.table(group)
        if table is None:
            break
        assert table.game is not None
        hidden = table.game.clone()
        if strategy.prepare(hidden):
            await rewrite_game(bot, group, lambda g, hidden=hidden: _copy_hidden(hidden, g))
        turn = await next_turn(bot, group, by_id)
        if turn is None:
            break
        if before is not None:
            await before(turn)
            turn = await next_turn(bot, group, by_id)
            if turn is None:
                break
        op, arg = strategy.choose(turn)
        moves.append(Move(turn.game.round, turn.phase.value, turn.seat, op, arg))
        await press_move(bot, turn, op, arg, settle=not fast)
    else:
        raise AssertionError(f"the game did not end within {max_moves} moves")
    await bot.settle()
    return Played(group, moves, await bot.finished(group), seat_users)


def _copy_hidden(source: Game, target: Game) -> None:
    target.draw = list(source.draw)


async def play_planned(
    bot: Bot,
    users: Sequence[FakeUser],
    tokens: Sequence[str],
    *,
    targets: Sequence[int | str] = (),
    hitler: int | None = None,
    first_president: int | None = 0,
    seed: int = 0,
    group: FakeChat | None = None,
    before: Hook | None = None,
    fast: bool = False,
) -> Played:
    """Open, start and play a :class:`Plan` game; Hitler sits at ``hitler`` if given."""
    deal = find_seed(len(users), hitler=hitler, first_president=first_president, start=seed + 1)
    group = await open_game(bot, users, group=group, seed=deal)
    strategy = Plan(tokens, targets, seed=seed)
    return await play(bot, group, users, strategy, before=before, fast=fast)


# ------------------------------------------------------------------------------------ checks

EN = translator("en")
# Openings of the English private texts (shbot/bot/render/private.py), to sort private messages.
PRIVATE_KINDS_EN = {
    "role": "🤫 Your secret role",
    "president_hand": "🎩 You are President. You drew:",
    "chancellor_hand": "👔 You are Chancellor.",
    "veto_question": "✋ Chancellor ",
    "investigate_prompt": "🔍 Investigate Loyalty:",
    "special_prompt": "🗳 Special Election:",
    "execution_prompt": "💀 Execution:",
    "peek": "👁 The top three policies",
}
_INVESTIGATION_RESULT = re.compile(r"^🔍 .* is a member of the ")


def board_shown(t: Translator, table: Table, board: StoredMessage) -> str:
    """What the board message must say: the board picture's caption, or the text board."""
    return media.board_caption(t, table) if board.photo is not None else r.board_text(t, table)


def original_text(message: StoredMessage) -> str:
    """What a message said when it was sent (before any edit)."""
    return message.history[0] if message.history else message.text


def private_kind(text: str) -> str | None:
    if _INVESTIGATION_RESULT.match(text):
        return "investigation"
    for kind, opening in PRIVATE_KINDS_EN.items():
        if text.startswith(opening):
            return kind
    return None


def group_calls(fake: FakeBotAPI, chat_id: int) -> list[Call]:
    """Successful sends and edits in a group, in order."""
    return [
        c for c in fake.calls if c.ok and c.chat_id == chat_id and c.method.lower() in GROUP_METHODS
    ]


GROUP_METHODS = (
    "sendmessage",
    "editmessagetext",
    "editmessagereplymarkup",
    "sendphoto",  # the board picture
    "editmessagemedia",
)


def markup_buttons(params: JSONDict) -> list[JSONDict]:
    markup = params.get("reply_markup") or {}
    return [b for row in markup.get("inline_keyboard", []) for b in row]


def split_at_game_over(calls: list[Call], t: Translator) -> tuple[list[Call], list[Call]]:
    """The group's calls before the game-over message, and from it on."""
    winners = (t._("🏁 <b>The Liberals win!</b>"), t._("🏁 <b>The Fascists win!</b>"))
    for i, call in enumerate(calls):
        if call.method.lower() == "sendmessage" and str(call.params.get("text", "")).startswith(
            winners
        ):
            return calls[:i], calls[i:]
    raise AssertionError("no game-over message in the group")


def secret_hand_strings(t: Translator) -> list[str]:
    """Every way a 2- or 3-tile hand is written in a private message."""
    out = []
    for size in (2, 3):
        for k in range(2**size):
            tiles = [LIBERAL if k >> i & 1 else FASCIST for i in range(size)]
            out.append(r.hand_text(t, tiles))
    return out


# Role or party words are allowed in the group before the end only inside these phrases
# ("Next 🔴: 🏁 Fascists win" on the board once five Fascist policies are enacted; a
# President's claim of an investigation, "🔍 … Léa is 🔴 Fascist").
_PUBLIC_ROLE_WORDS = re.compile(
    r"Secret Hitler|(Liberal|Fascist) polic(y|ies)|not Hitler|(Liberals|Fascists) win"
    r"|\u2068[^\u2069]*\u2069 is (🔵 Liberal|🔴 Fascist)"  # a claim: talk, not a secret
    r"|\u2068[^\u2069]*\u2069"
)
_ROLE_WORD = re.compile(r"Liberal|Fascist|Hitler")


def check_group_keeps_secrets(fake: FakeBotAPI, group_id: int, t: Translator = EN) -> None:
    """Nothing sent to the group before the game-over message (texts, edits, button labels,
    callback data) reveals a role, a party, a hand or an investigation result."""
    before, _ = split_at_game_over(group_calls(fake, group_id), t)
    forbidden = [t._("Liberal party"), t._("Fascist party"), *secret_hand_strings(t)]
    english = t.locale == "en"
    # Public words that contain a party name in some languages (ja: リベラル党法案, "Liberal
    # party bill", is a Liberal policy); claims ("🗣 ..." lines) are talk, never the truth.
    policies = [t._(m).split(" ", 1)[-1] for m in ("🔵 Liberal policy", "🔴 Fascist policy")]
    # The board's "Next 🔴: 🏁 Fascists win" once five Fascist policies are out is public
    # (the English check below allows it too); ja: ファシスト党の勝利 names the party.
    policies.append(t._("🏁 Fascists win"))
    for call in before:
        text = "\n".join(
            line for line in call.shown_text().splitlines() if not line.startswith("🗣")
        )
        labels = [str(b.get("text", "")) for b in markup_buttons(call.params)]
        for shown in [text, *labels]:
            for word in policies:
                shown = shown.replace(word, "")
            for secret in forbidden:
                assert secret not in shown, f"{secret!r} shown in the group: {shown!r}"
            if english:
                rest = _PUBLIC_ROLE_WORDS.sub("", shown)
                assert not _ROLE_WORD.search(rest), f"role word in the group: {shown!r}"
        for button in markup_buttons(call.params):
            data = button.get("callback_data")
            if data is None:
                continue
            press = cb.parse(data)
            assert press is not None, f"unparsable button in the group: {data!r}"
            if isinstance(press, cb.GamePress):
                assert press.op in GROUP_OPS, f"private button in the group: {data!r}"


def check_private_entitlements(bot: Bot, played: Played, *, role_texts: bool = True) -> None:
    """Each private message went to the one player entitled to it (English games).

    ``role_texts``: the role messages say what the current code writes (False when an older
    bot sent them, tests/test_bot_upgrade.py: their kind is still checked)."""
    table, game = played.table, played.game
    seat_of = {u.id: s for s, u in enumerate(played.users)}
    expected: Counter[tuple[int, str]] = Counter()
    for seat in range(game.n):
        expected[(seat, "role")] += 1
    elections = [i for i, e in enumerate(game.history) if e[0] == "e"]
    hitler_elected = game.condition is not None and game.condition.value == "hitler_elected"
    president = chancellor = -1
    investigations: list[tuple[int, int]] = []
    for index, entry in enumerate(game.history):
        tag = entry[0]
        if tag == "e":
            _, _, pres, chan, ballots = entry
            ja, nein = ballots.count("j"), ballots.count("n")
            president, chancellor = (pres, chan) if ja * 2 > ja + nein else (-1, -1)
            if president >= 0 and not (hitler_elected and index == elections[-1]):
                expected[(president, "president_hand")] += 1
                expected[(chancellor, "chancellor_hand")] += 1
        elif tag in ("v", "vr"):
            expected[(president, "veto_question")] += 1
            if tag == "vr":
                expected[(chancellor, "chancellor_hand")] += 1
        elif tag == "i":
            expected[(entry[1], "investigate_prompt")] += 1
            expected[(entry[1], "investigation")] += 1
            investigations.append((entry[1], entry[2]))
        elif tag == "s":
            expected[(entry[1], "special_prompt")] += 1
        elif tag == "x":
            expected[(entry[1], "execution_prompt")] += 1
        elif tag == "peek":
            expected[(entry[1], "peek")] += 1
    got: Counter[tuple[int, str]] = Counter()
    for user in played.users:
        seat = seat_of[user.id]
        for message in bot.fake.messages(user.id):
            text = original_text(message)
            kind = private_kind(text)
            if kind is not None:
                got[(seat, kind)] += 1
            if kind == "role" and role_texts:
                want = r.role_text(EN, table, seat, game.private_view(seat))
                assert text == want, f"seat {seat} got the wrong role text: {text!r}"
            # The result of an investigation replaces the text of its prompt (and, with its
            # claim prompt folded in, opens it: "🔍 ...\n\n🗣 Round 3: what do you tell ...").
            versions = [*message.history, message.text]
            results = {
                v.partition("\n\n")[0] for v in versions if private_kind(v) == "investigation"
            }
            targets = [t for p, t in investigations if p == seat]
            wants = [r.investigation_text(EN, table, t, party_of(game.roles[t])) for t in targets]
            for version in versions:
                if private_kind(version) == "investigation":
                    result, _, claim = version.partition("\n\n")
                    assert result in wants, f"wrong investigation result {version!r}"
                    assert not claim or claim.startswith("🗣"), f"not a claim prompt: {version!r}"
            got[(seat, "investigation")] += len(results)
    assert got == expected, f"private messages by (seat, kind): got {got}, want {expected}"


def check_calls_valid(fake: FakeBotAPI, *, allowed_failures: int = 0) -> None:
    """Every call succeeded (so every text was valid HTML within limits) and every button's
    callback data fits Telegram's 64 bytes and is one the bot can parse."""
    failed = [(c.method, c.chat_id, c.description) for c in fake.failed_calls]
    assert len(failed) <= allowed_failures, f"failed calls: {failed}"
    assert not any("parse entities" in str(d) for _, _, d in failed), failed
    for call in fake.calls:
        for button in markup_buttons(call.params):
            data = button.get("callback_data")
            if data is not None:
                assert len(data.encode()) <= 64, f"callback data over 64 bytes: {data!r}"
                assert cb.parse(data) is not None, f"unparsable callback data {data!r}"


async def check_finished(bot: Bot, played: Played, t: Translator = EN) -> None:
    """The end of every game: the group got a game-over message revealing every role, the
    store archived the game and released the players."""
    group, table, game = played.group, played.table, played.game
    assert game.is_over and game.winner is not None
    assert await bot.record(group) is None, "a finished game must leave the active games"
    over = bot.h.last(group)
    assert over.text == r.game_over_text(t, table)
    names = table.names()
    for seat, role in enumerate(game.roles):
        line = f"{seat + 1}. {r.name(names, seat)} — {r.role_name(t, role)}"
        assert line in over.text, f"role of seat {seat} not revealed: {line!r}"
    for user in played.users:
        assert await bot.store.player_chat(user.id) is None, f"{user.full_name} still bound"
    board = bot.fake.message(group.id, table.shown["board"])
    assert board.buttons() == [], "the board keeps buttons after the end"


#: Buttons meant for after the end: "What I know" in private, Rematch on the end card.
AFTER_END = frozenset({cb.MYLOG, cb.REMATCH})


def stale_buttons(fake: FakeBotAPI, chat_id: int, gid: str) -> list[tuple[StoredMessage, str]]:
    """Live buttons of the ended game ``gid`` left in ``chat_id``: any on the chat's newest
    message (what its reader sees), and any but a claim button on an older one (an
    unanswered claim prompt that had scrolled away keeps its buttons: pressed, it is
    answered and closed then, see tests/test_bot_claims.py)."""
    messages = fake.messages(chat_id)
    newest = max((m.message_id for m in messages), default=None)
    out = []
    for message in messages:
        for button in message.buttons():
            press = cb.parse(button.get("callback_data", ""))
            if not isinstance(press, cb.GamePress) or press.game_id != gid:
                continue
            if press.op in AFTER_END or (press.op == cb.CLAIM and message.message_id != newest):
                continue
            out.append((message, button["callback_data"]))
    return out


async def check_game(bot: Bot, played: Played, t: Translator = EN) -> None:
    """Everything every finished game must satisfy."""
    await check_finished(bot, played, t)
    check_group_keeps_secrets(bot.fake, played.group.id, t)
    if t.locale == "en":
        check_private_entitlements(bot, played)
    check_calls_valid(bot.fake)
    bot.h.assert_no_errors()


def history_tags(game: Game) -> Counter[str]:
    return Counter(entry[0] for entry in game.history)


@dataclass
class GameStats:
    group_sends: int
    group_edits: int
    private_sends: int
    callback_answers: int
    max_window: int = field(default=0)


def game_stats(fake: FakeBotAPI, group_id: int) -> GameStats:
    return GameStats(
        fake.group_sends(group_id),
        fake.group_edits(group_id),
        fake.private_sends(),
        fake.callback_answers(),
        fake.max_calls_in_window(group_id, 60),
    )
