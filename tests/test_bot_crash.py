"""The bot's process dies at every Bot API call of a whole game, and the game still ends right.

A 7-player game scripted with botplay's :class:`~tests.botplay.Plan` (Investigate Loyalty,
a rejected election, Special Election, two executions, a veto accepted, a veto refused and
the Fascists' sixth policy) is first played without a crash: the *reference* (checked
exactly with ``check_game``). It makes about 254 Bot API calls, counted from the first
player's ``/start``. Then the same game (same deal, same moves) is played again for every N
from 1 to that count, while the fake Bot API kills the bot's process during its N-th call
(:meth:`FakeBotAPI.crash_at`): Telegram handles that call, its answer never comes back, and
nothing of the dead process survives but the store and what Telegram received. A new
Application is built on the same store over the same fake (as ``tests/botrestart.py``
does), its recovery delivers what the store says is still owed, and the players go on
pressing what they see on screen. For odd N, Telegram also delivers the press the dead
process was handling again if it was still unanswered (polling that had not confirmed
it, a webhook retry); for even N the player presses again. Every one of these games must:

* end as the reference did: the same history (no move lost or applied twice), archived,
  counted once in the group's and each player's statistics, players released, no handler
  error, no call refused but "message is not modified";
* have given every player their role, every President and Chancellor whose step came
  their hand, the investigating President the result: each private message of the
  reference at least once (a private message may repeat after a crash, never be missing);
* show in the group every message of the reference in its final state, in particular the
  board and the round message showing the end, and the game-over message;
* leave no live button of the game anywhere, except on a message sent by the very call
  the process died in (Telegram has it, the dead bot never learnt its id: nobody can
  edit it, and the bot sends that message again);
* never have shown a secret in the group (``check_group_keeps_secrets``).

Three more ways to die, each checked the same way: *before* the N-th call reaches Telegram
(everything before it answered and recorded: e.g. a press committed, its messages not sent
yet); *after the M-th store operation* of the bot (the store wrapped by :class:`DyingStore`:
between two writes with no call in between, e.g. archiving a game and counting it); and
"between commit and send" with :func:`~tests.botrestart.blackhole` (an action is committed,
none of its messages leave, then the process dies), at the first action of each kind and
every ``BETWEEN_STRIDE``-th action.

Speed: games run at full speed (no pacing, no rate limiter, no timers), one game takes
about 0.3 s, so every N on both stores in every way of dying would take about six minutes.
Hence: SQLite dies during every call (every N: 80 to 180 s of one core, in
``DURING_PARTS`` tests that parallel workers share); Redis, and the other ways of dying on
both stores, take every stride-th N (``DURING``, ``BEFORE``, ``STORE_OPS``), each store at
other offsets, plus the first call of each kind (a role, a hand, a round message, an
answer, ...) and the last, so that every kind of call is covered on both stores.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import operator
import re
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, TypeVar, cast

import pytest

from shbot.bot import callbacks as cb
from shbot.bot import render as r
from shbot.devtools.fake_telegram import Crashed
from shbot.engine import Game
from shbot.storage import Store, open_store
from shbot.table.model import Table
from tests.botplay import (
    EN,
    Bot,
    Plan,
    Played,
    board_shown,
    button_data,
    check_game,
    check_group_keeps_secrets,
    find_seed,
    lobby_message,
    next_turn,
    original_text,
    private_kind,
    rewrite_game,
    stale_buttons,
)
from tests.botrestart import Restarts, StoreFactory, blackhole
from tests.fake_telegram import NOT_MODIFIED, Call, FakeBotAPI, FakeChat, JSONDict
from tests.harness import FakeUser, make_users, refused
from tests.redis_server import RedisServer

T = TypeVar("T")

# F1, F2 (investigate), rejected, F3 (special election), F4 and F5 (executions, veto
# unlocked), veto accepted, veto refused then F6: the Fascists win.
TOKENS = ["F", "F", "x", "F", "F", "F", "V", "RF"]
HITLER_SEAT = 6
PLAYERS = 7
SENDS = ("sendmessage", "sendphoto")  # the calls that leave a new message in a chat
# Which N each test tries on each store: (stride, offset), every stride-th N from the offset
# (stride 1: every N), plus the first of each kind and the last (see ``chosen``).
DURING = {"sqlite": (1, 0), "redis": (13, 0)}
BEFORE = {"sqlite": (13, 1), "redis": (17, 5)}
STORE_OPS = {"sqlite": (11, 2), "redis": (19, 4)}
BETWEEN_STRIDE = 16  # every how many actions the process dies between commit and send
DURING_PARTS = 4  # "during every call" is split so that parallel test workers share it
GAME_TIMEOUT = 30.0  # seconds for one game; a bot that stalls fails that N, not the run


# ------------------------------------------------------------------------------ the driver


class DyingStore:
    """The bot's store, through which the bot's process dies after its ``left``-th store
    operation (the operation is done: a write is in the store): every later operation and
    Bot API call of that process raises :class:`Crashed`."""

    def __init__(self, store: Store, death: StoreDeath) -> None:
        self._store = store
        self._death = death

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._store, name)
        if name == "close" or not inspect.iscoroutinefunction(attr):
            return attr
        death = self._death

        async def operation(*args: Any, **kwargs: Any) -> Any:
            if death.fake.crashed:
                raise Crashed(f"the bot is dead: store {name} never done")
            result = await attr(*args, **kwargs)
            death.ops += 1
            if death.left is not None:
                death.left -= 1
                if death.left == 0:
                    death.left, death.op = None, name
                    sends = [
                        c
                        for c in death.fake.calls
                        if c.ok and c.method in ("sendMessage", "sendPhoto")
                    ]
                    death.last_send = sends[-1] if sends else None
                    death.fake.crashed = True
                    raise Crashed(f"the bot died after store operation {name}")
            return result

        return operation


@dataclass
class StoreDeath:
    fake: FakeBotAPI
    left: int | None = None  # store operations before the process dies
    ops: int = 0  # store operations done by the bot's processes
    op: str | None = None  # the operation after which it died
    last_send: Call | None = None  # the last message sent before it died


@dataclass
class Run:
    """One game played while the bot may die at any call: each action of a player is
    followed by waiting for the bot's messages; if the process died meanwhile, a new one is
    started on the same store over the same Telegram. ``redeliver``: Telegram then delivers
    the press the dead process was handling again if it was not answered yet (polling that
    had not confirmed it, a webhook that got no answer); else the player presses again."""

    restarts: Restarts
    bot: Bot
    users: list[FakeUser]
    observer: Store  # the test's own connection to the store: what it reads is not counted
    death: StoreDeath
    seed: int
    redeliver: bool = False
    group: FakeChat | None = None
    crashes: int = 0
    kinds: list[str] = field(default_factory=list)  # the kind of each action, in order
    orphans: set[tuple[int, int]] = field(default_factory=set)  # (chat, message id)

    @property
    def fake(self) -> FakeBotAPI:
        return self.bot.fake

    async def do(
        self, kind: str, action: Callable[[], Awaitable[T]], *, between: bool = False
    ) -> tuple[T | None, bool]:
        """Do ``action``, then wait for the bot's messages. ``between``: the action is
        committed but none of its messages leave, then the process dies. Returns the
        action's result (None if the process died in it) and whether the process died."""
        self.kinds.append(kind)
        if between:
            blackhole(self.bot)
        h = self.bot.h
        feed = h.feed
        fed: list[JSONDict] = []

        async def recording(payload: JSONDict) -> Any:
            fed.append(payload)
            return await feed(payload)

        h.feed = recording  # type: ignore[method-assign]
        result: T | None = None
        try:
            result = await action()
            await self.bot.settle()
        except Crashed:
            pass
        finally:
            del h.feed  # the instance attribute: the method again
        died = self.fake.crashed or between
        if died:
            await self.restart_after_crash()
            if self.redeliver:
                again = []
                for payload in fed:
                    query = payload.get("callback_query")
                    if query is not None and query["id"] in self.fake.callback_queries:
                        again.append(query["id"])
                        await self.bot.h.feed(payload)  # the same press, still unanswered
                await self.bot.settle()
                # Applied or not by the dead process, the press is answered now (a spinning
                # button otherwise, until Telegram gives up on it).
                spinning = [q for q in again if q in self.fake.callback_queries]
                assert not spinning, f"presses delivered again, never answered: {spinning}"
        return result, died

    async def restart_after_crash(self) -> None:
        # Telegram may have a message whose id the dead bot never learnt: sent by the call
        # it died in, or sent just before it died after a store operation, not recorded.
        recorded: set[tuple[int, int]] = set()  # the group's messages the store knows
        if self.group is not None and (record := await self.observer.get_game(self.group.id)):
            shown = Table.from_dict(record.data).shown
            recorded = {(self.group.id, m) for k, m in shown.items() if not k.startswith("prompt")}
        for call in (self.fake.crash_call, self.death.last_send):
            if call is not None and call.ok and call.method.lower() in SENDS:
                message = (int(call.result["chat"]["id"]), int(call.result["message_id"]))
                if call is self.fake.crash_call or message not in recorded:
                    self.orphans.add(message)
        self.death.last_send = None
        self.crashes += 1
        await self.stop()
        self.fake.revive()
        await self.start()
        self.restarts.count += 1
        await self.bot.settle()  # what the recovery sends

    async def start(self) -> None:
        new = await self.restarts.start()
        self.bot.h, self.bot.app = new.h, new.app
        self.bot.store = self.observer  # the test reads through its own connection
        self.bot.fix_seed(self.seed)  # the deal, should a press on Start come again

    async def stop(self) -> None:
        """The process dies: its store connection is closed, the observer's stays open."""
        self.bot.store = self.bot.svc.store
        await self.restarts.stop(self.bot, crash=True)
        self.bot.store = self.observer


def plan_state(plan: Plan) -> tuple[Any, ...]:
    return plan.election, dict(plan.ballots), list(plan.targets), plan.rng.getstate()


def restore_plan(plan: Plan, state: tuple[Any, ...]) -> None:
    plan.election, plan.ballots, plan.targets = state[0], dict(state[1]), list(state[2])
    plan.rng.setstate(state[3])


async def play_game(run: Run, between: Callable[[int], bool] | None = None) -> Table:
    """The whole game, from each player's /start to the archive; ``between(k)``: the k-th
    action (1-based) is committed without being sent, then the process dies."""
    bot, users = run.bot, run.users

    def cut() -> bool:
        return between is not None and between(len(run.kinds) + 1)

    for user in users:
        await run.do("/start", partial(bot.h.command, user, user, "/start"))
    group = run.group = bot.h.group(creator=users[0], members=users[1:])
    await bot.store.update_group(group.id, {"timers": "off"})  # as chosen in /settings
    for _ in range(3):
        if await bot.table(group) is not None:
            break
        await run.do("/newgame", partial(bot.h.command, users[0], group, "/newgame"), between=cut())
    for user in users[1:]:
        for _ in range(3):
            table = await bot.table(group)
            assert table is not None, "the lobby is gone"
            if table.player(user.id) is not None:
                break
            lobby = lobby_message(bot, group)
            data = button_data(lobby, cb.JOIN)
            await run.do("join", partial(bot.h.press, user, lobby, data=data), between=cut())
    for _ in range(3):
        table = await bot.table(group)
        assert table is not None, "the lobby is gone"
        if table.game is not None:
            break
        lobby = lobby_message(bot, group)
        data = button_data(lobby, cb.START)
        await run.do("start", partial(bot.h.press, users[0], lobby, data=data), between=cut())
    table = await bot.table(group)
    assert table is not None and table.game is not None, "the game did not start"

    plan = Plan(TOKENS, seed=0)
    by_id = {u.id: u for u in users}
    for _ in range(300):
        turn = await next_turn(bot, group, by_id)
        if turn is None:
            break
        hidden = turn.game.clone()
        if plan.prepare(hidden):  # the draw pile is hidden: the buttons on screen stay valid
            draw = list(hidden.draw)

            def stack(g: Game, draw: list[str] = draw) -> None:
                g.draw = list(draw)

            await rewrite_game(bot, group, stack)
        state = plan_state(plan)
        op, arg = plan.choose(turn)
        data = cb.game_data(turn.table.gid, turn.table.step, op, arg)
        query, died = await run.do(
            f"{turn.phase.value}:{op}",
            partial(bot.h.press, turn.user, turn.message, data=data),
            between=cut(),
        )
        if not died:
            assert query is not None
            answer = bot.h.answer(query)
            assert not refused(answer), f"the bot refused {data}: {answer.text}"
            continue
        after = await bot.table(group)
        if not (
            after is None
            or after.step != turn.table.step
            or (after.game is not None and after.game.votes != turn.game.votes)
        ):
            restore_plan(plan, state)  # the press died with the process: pressed again
    else:
        raise AssertionError("the game did not end")
    return await bot.finished(group)


@contextlib.asynccontextmanager
async def running(
    reopen: StoreFactory, seed: int, *, redeliver: bool = False
) -> AsyncIterator[Run]:
    """A bot on the test's store, over a fresh fake Telegram (one per game)."""
    fake = FakeBotAPI()
    death = StoreDeath(fake)
    restarts = Restarts(lambda: cast(Store, DyingStore(reopen(), death)), fake)
    observer = reopen()
    bot = await restarts.start()
    run = Run(restarts, bot, make_users(PLAYERS), observer, death, seed, redeliver=redeliver)
    bot.store = observer
    bot.fix_seed(seed)
    try:
        yield run
    finally:
        run.fake.revive()
        death.left = None
        await run.stop()
        if run.group is not None:  # a failed game must not be recovered by the next one
            record = await observer.get_game(run.group.id)
            if record is not None:
                await observer.delete_game(run.group.id, record.version)
                await observer.release_players(run.group.id, [u.id for u in run.users])
        await observer.close()


# ------------------------------------------------------------------------------ checks


@dataclass
class Reference:
    """What the crash-free game made: its calls and actions, its end and its messages."""

    calls: list[str]  # each call described (method, chat, text), to name a failing N
    actions: list[str]  # the kind of each action of the players
    store_ops: int  # operations of the bot on the store
    table: Table
    group_texts: Counter[str]  # final texts of the bot's group messages
    private: list[Counter[str]]  # per seat: original texts of game messages (roles, hands...)
    versions: list[set[str]]  # per seat: every text a game message showed


def private_texts(fake: FakeBotAPI, user: FakeUser) -> tuple[Counter[str], set[str]]:
    sent: Counter[str] = Counter()
    versions: set[str] = set()
    for message in fake.messages(user.id):
        if private_kind(original_text(message)) is None:
            continue  # the welcome and other plain replies are not game state
        sent[original_text(message)] += 1
        versions.update([*message.history, message.text])
    return sent, versions


def describe(call: Call | None) -> str:
    if call is None:
        return "no call"
    method = call.method
    if method == "answerCallbackQuery":
        return method
    where = "group" if isinstance(call.chat_id, int) and call.chat_id < 0 else "private"
    text = str(call.params.get("text", ""))[:32].replace("\n", " ")
    return f"{method} ({where}) {text!r}"


async def reference_game(reopen: StoreFactory, seed: int) -> Reference:
    async with running(reopen, seed) as run:
        begin, ops = len(run.fake.calls), run.death.ops
        table = await play_game(run)
        calls = run.fake.calls[begin:]
        ops = run.death.ops - ops
        group = run.group
        assert group is not None
        await check_game(run.bot, Played(group, [], table, run.users))  # exactly right
        assert run.crashes == 0 and not run.fake.failed_calls
        private = [private_texts(run.fake, u) for u in run.users]
        return Reference(
            [describe(c) for c in calls],
            list(run.kinds),
            ops,
            table,
            Counter(m.text for m in run.fake.messages(group.id)),
            [p[0] for p in private],
            [p[1] for p in private],
        )


async def check_crashed_game(run: Run, table: Table, ref: Reference) -> None:
    """See the module docstring."""
    bot, fake, group = run.bot, run.fake, run.group
    assert group is not None
    game, ref_game = table.game, ref.table.game
    assert game is not None and ref_game is not None
    assert game.is_over and game.history == ref_game.history, "the game went otherwise"
    assert await bot.record(group) is None, "the finished game is still active"
    for user in run.users:
        assert await bot.store.player_chat(user.id) is None, f"{user.full_name} still bound"
        stats = await bot.store.user_stats(user.id)
        assert stats["games"] == 1, f"{user.full_name}'s statistics count {stats['games']} games"
    stats = await bot.store.group_stats(group.id)
    assert stats["games"] == 1, f"the group's statistics count {stats['games']} games"
    # Every group message of the reference, in its final state; repeats only from crashes.
    # A closed round's message ends at the step it had shown when the next round's message
    # (which recaps the rest) went out, or closed: that depends on the pace, so it must only
    # show its vote's result, without buttons.
    # (the last message of each round: a crash during a send leaves an earlier copy)
    messages = fake.messages(group.id)
    last = {_closed_round(m.text, game.round): m for m in messages}
    for number, m in last.items():
        if number:
            assert "The government is" in m.text and not m.buttons(), m.text
    texts = _settled(Counter(m.text for m in messages), game.round)
    want = _settled(ref.group_texts, game.round)
    missing = want - texts
    assert not missing, f"group messages missing or not in their final state: {list(missing)}"
    extra = sum((texts - want).values())
    assert extra <= run.crashes, f"{extra} extra group messages after {run.crashes} crashes"
    board = fake.message(group.id, table.shown["board"])
    assert board.text == board_shown(EN, table, board) and not board.buttons(), "board not final"
    last_round = fake.message(group.id, table.shown[f"round:{game.round}"])
    assert last_round.text == r.round_text(EN, table), "round message not final"
    assert r.game_over_text(EN, table) in texts, "no game-over message"
    # Private messages: each one of the reference at least once, and nothing else.
    repeats = 0
    for seat, user in enumerate(run.users):
        sent, versions = private_texts(fake, user)
        lacking = ref.private[seat] - sent
        assert not lacking, f"seat {seat} never got {list(lacking)}"
        assert set(sent) == set(ref.private[seat]), f"seat {seat} got {set(sent)}"
        assert ref.versions[seat] <= versions, (
            f"seat {seat} never saw {ref.versions[seat] - versions}"
        )
        repeats += sum((sent - ref.private[seat]).values())
    assert repeats <= run.crashes, f"{repeats} repeated private messages"
    # No live button of this game on a chat's newest message, none but an unanswered claim
    # prompt's on an older one (stale_buttons), except on a message the dead bot never
    # learnt about.
    for chat in [group.id, *(u.id for u in run.users)]:
        for message, _ in stale_buttons(fake, chat, table.gid):
            assert (chat, message.message_id) in run.orphans, (
                f"a live button after the end in {chat}: {message.text[:60]!r}"
            )
    check_group_keeps_secrets(fake, group.id)
    refused = [
        describe(c) + f": {c.description}"
        for c in fake.failed_calls
        if c.description != NOT_MODIFIED
    ]
    assert not refused, f"refused calls: {refused}"
    run.restarts.assert_no_errors(bot)


async def crashed_game(
    reopen: StoreFactory,
    seed: int,
    ref: Reference,
    *,
    at: int | None = None,
    delivered: bool = True,
    between: Callable[[int], bool] | None = None,
    redeliver: bool = False,
    store_op: int | None = None,
) -> None:
    """One game on ``reopen``'s store where the process dies once (during or before its
    ``at``-th call, after its ``store_op``-th store operation, or between the commit and
    the messages of an action); checked against ``ref``."""
    async with running(reopen, seed, redeliver=redeliver) as run:
        if at is not None:
            run.fake.crash_at(at, delivered=delivered)
        run.death.left = store_op
        async with asyncio.timeout(GAME_TIMEOUT):
            table = await play_game(run, between)
        assert run.crashes == 1, f"the bot died {run.crashes} times"
        await check_crashed_game(run, table, ref)


def failed(failures: dict[int, str], tried: int, what: str) -> str:
    lines = [f"{len(failures)} of {tried} games failed ({what}):"]
    lines += [f"  {n}: {why}" for n, why in sorted(failures.items())]
    return "\n".join(lines)


@contextlib.contextmanager
def failure(failures: dict[int, str], n: int, what: str) -> Iterator[None]:
    """Collect the failure of game ``n`` (every failing N is listed, then the test fails)."""
    try:
        yield
    except Exception as exc:
        failures[n] = f"{what}: {type(exc).__name__}: {str(exc)[:300]}"


def chosen(labels: list[str], stride: int, offset: int = 0) -> list[int]:
    """Every ``stride``-th N (1-based) from ``offset``, the first N of each label before
    its quoted text (every kind of call is covered on every store) and the last."""
    first: dict[str, int] = {}
    for n, label in enumerate(labels, 1):
        first.setdefault(label.split("'")[0], n)
    picked = set(range(1 + offset % stride, len(labels) + 1, stride))
    return sorted(picked | set(first.values()) | {len(labels)})


# ------------------------------------------------------------------------------ the tests


@pytest.fixture(params=["sqlite", "redis"])
def stores(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[str, StoreFactory]:
    """The store kind and how a new bot process opens it. Every game of a test runs on the
    same store: groups and players are new in each, and each game is archived at its end."""
    if request.param == "sqlite":
        path = str(tmp_path / "shbot.sqlite3")
        return "sqlite", lambda: open_store(sqlite_path=path)
    server: RedisServer = request.getfixturevalue("redis_server")
    prefix: str = request.getfixturevalue("redis_prefix")
    return "redis", lambda: open_store(redis_url=server.url, prefix=prefix)


@pytest.fixture(autouse=True)
async def quiet_crashes() -> AsyncIterator[None]:
    """A delivery task killed by Crashed is never awaited: asyncio would log each one."""
    loop = asyncio.get_running_loop()
    previous = loop.get_exception_handler()

    def handler(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        if isinstance(context.get("exception"), Crashed):
            return
        if previous is not None:
            previous(loop, context)
        else:
            loop.default_exception_handler(context)

    loop.set_exception_handler(handler)
    yield
    loop.set_exception_handler(previous)


@pytest.fixture(scope="module")
def seed() -> int:
    """Hitler at the last seat, the first player is the first President."""
    return find_seed(PLAYERS, hitler=HITLER_SEAT, first_president=0, start=1)


async def test_the_fake_kills_the_process_at_the_nth_call() -> None:
    """``crash_at``: the N-th call raises Crashed after Telegram handled it (delivered) or
    without reaching it; every later call raises too, until ``revive``."""
    fake = FakeBotAPI()
    async with fake.application_builder().build() as app:
        fake.add_chat(-100, title="Group")
        await app.bot.send_message(-100, "one")
        fake.crash_at(2)
        await app.bot.send_message(-100, "two")
        with pytest.raises(Crashed):
            await app.bot.send_message(-100, "three")  # Telegram has it, the bot never knows
        with pytest.raises(Crashed):
            await app.bot.send_message(-100, "four")  # the process is dead
        assert fake.crashed and fake.crash_call is not None and fake.crash_call.ok
        assert [m.text for m in fake.messages(-100)] == ["one", "two", "three"]
        fake.revive()
        fake.crash_at(1, delivered=False)
        with pytest.raises(Crashed):
            await app.bot.send_message(-100, "five")  # never reached Telegram
        assert fake.crash_call is not None and not fake.crash_call.ok
        fake.revive()
        await app.bot.send_message(-100, "six")
        assert [m.text for m in fake.messages(-100)] == ["one", "two", "three", "six"]


@pytest.mark.parametrize("part", range(DURING_PARTS))
async def test_crash_during_every_call(
    stores: tuple[str, StoreFactory], seed: int, part: int
) -> None:
    """Every ``DURING_PARTS``-th N of the chosen ones, from the ``part``-th: the parts
    together die at each N once."""
    kind, reopen = stores
    ref = await reference_game(reopen, seed)
    calls = len(ref.calls)
    assert 200 < calls < 320, calls
    ns = chosen(ref.calls, *DURING[kind])
    assert kind != "sqlite" or ns == list(range(1, calls + 1))
    ns = ns[part::DURING_PARTS]
    assert ns
    failures: dict[int, str] = {}
    for n in ns:
        with failure(failures, n, ref.calls[n - 1]):
            await crashed_game(reopen, seed, ref, at=n, redeliver=n % 2 == 1)
    assert not failures, failed(failures, len(ns), f"dying during call N of {calls}")


async def test_crash_before_a_call(stores: tuple[str, StoreFactory], seed: int) -> None:
    kind, reopen = stores
    ref = await reference_game(reopen, seed)
    ns = chosen(ref.calls, *BEFORE[kind])
    failures: dict[int, str] = {}
    for n in ns:
        with failure(failures, n, ref.calls[n - 1]):
            await crashed_game(reopen, seed, ref, at=n, delivered=False, redeliver=n % 2 == 1)
    assert not failures, failed(failures, len(ns), f"dying before call N of {len(ref.calls)}")


async def test_crash_after_a_store_operation(stores: tuple[str, StoreFactory], seed: int) -> None:
    kind, reopen = stores
    ref = await reference_game(reopen, seed)
    ns = chosen([""] * ref.store_ops, *STORE_OPS[kind])
    failures: dict[int, str] = {}
    for n in ns:
        with failure(failures, n, "store operation"):
            await crashed_game(reopen, seed, ref, store_op=n, redeliver=n % 2 == 1)
    assert not failures, failed(failures, len(ns), f"dying after operation N of {ref.store_ops}")


async def test_crash_between_commit_and_send(stores: tuple[str, StoreFactory], seed: int) -> None:
    _, reopen = stores
    ref = await reference_game(reopen, seed)
    committing = [k for k, kind in enumerate(ref.actions, 1) if kind != "/start"]
    ks = chosen([ref.actions[k - 1] for k in committing], BETWEEN_STRIDE)
    ks = [committing[i - 1] for i in ks]  # a private /start commits nothing to a game
    failures: dict[int, str] = {}
    for k in ks:
        with failure(failures, k, ref.actions[k - 1]):
            await crashed_game(reopen, seed, ref, between=partial(operator.eq, k))
    assert not failures, failed(failures, len(ks), "action N committed, not sent, then dead")


def _closed_round(text: str, last: int) -> int:
    """The round whose message ``text`` is if that round is before ``last``, else 0."""
    found = re.match(r"<b>Round (\d+)</b>", text)
    return int(found[1]) if found is not None and int(found[1]) < last else 0


def _settled(texts: Counter[str], last: int) -> Counter[str]:
    """The group's texts but the messages of closed rounds (see check_crashed_game)."""
    return Counter({t: n for t, n in texts.items() if not _closed_round(t, last)})
