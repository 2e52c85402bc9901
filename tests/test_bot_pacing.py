"""Pacing: the bot keeps every group within Telegram's 20 calls a minute, across a restart."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

import pytest

from shbot.bot import callbacks as cb
from shbot.bot.app import build_application
from shbot.bot.config import Config
from shbot.bot.delivery.budget import RESERVE
from shbot.bot.delivery.pacer import GROUP_LIMIT
from shbot.devtools.fake_telegram import GROUP_LIMITED_METHODS
from shbot.storage import Store, open_store
from shbot.table.model import Table
from tests.botplay import (
    Bot,
    button_data,
    check_calls_valid,
    check_game,
    game_stats,
    lobby_message,
    play_planned,
    private_kind,
    running_bot,
    step_message,
)
from tests.botrestart import Restarts, StoreFactory
from tests.fake_telegram import FakeBotAPI, FakeChat
from tests.harness import FakeUser, Harness, make_users


@pytest.mark.looptime
async def test_seven_player_game_stays_under_twenty_calls_a_minute(store: Store) -> None:
    async with running_bot(store, limiter=True) as bot:
        users = make_users(7)
        played = await play_planned(
            bot, users, ["L", "F", "F", "L", "F", "L", "L", "L"], hitler=2, fast=True
        )
        await check_game(bot, played)
        stats = game_stats(bot.fake, played.group.id)
        print(stats)
        assert bot.fake.max_calls_in_window(played.group.id, 60) <= 20


@pytest.mark.looptime
async def test_a_seven_player_game_keeps_within_the_groups_and_the_players_budget(
    store: Store,
) -> None:
    """Issue 23's budget through the real Application and pacing, players pressing as soon
    as they can: at most 45 group calls for a whole 7-player game (8 rounds, 2 powers), about
    3 a round, and at most 60 private calls (56 here). Counted by message: a closed round's
    message is never edited after the next round's is out (it recaps the rest), the board
    only while no newer round's message stands under it, each answered hand (or an
    investigation) is edited once into its claim prompt, and at the end only the claim
    prompt a player sees (their newest private message) is closed."""
    async with running_bot(store, limiter=True) as bot:
        users = make_users(7)
        played = await play_planned(
            bot, users, ["L", "F", "F", "L", "F", "L", "L", "L"], hitler=2, fast=True
        )
        await check_game(bot, played)
        fake, group = bot.fake, played.group.id
        group_calls = fake.group_sends(group) + fake.group_edits(group)
        ids = [u.id for u in users]
        private = sum(fake.private_sends(u) + fake.private_edits(u) for u in ids)
        board = [c for c in fake.calls if c.ok and c.chat_id == group and "Photo" in c.method]
        board += [c for c in fake.calls if c.ok and c.chat_id == group and "Media" in c.method]
        rounds = played.game.round
        print(f"group {group_calls}, private {private}, board {len(board)}, rounds {rounds}")
        assert rounds == 8
        assert group_calls <= 45, f"{group_calls} group calls"
        # 14 calls before play (the /start replies, the role cards), then each session's two
        # hands (a message and an edit each, the edit asking the claim), each power's prompt
        # (the same), and at the end at most one edit per player: their unanswered claim
        # prompt if it is what they see (72 when every unanswered prompt was closed and the
        # President's claim prompt was a message of its own).
        assert private <= 56, f"{private} private calls"
        assert len(board) <= 3, "the board: sent, at most an edit under Round 1, the end"
        assert group_calls <= 3.5 * rounds + 8  # lobby, board and the end besides


def test_a_window_never_lets_more_than_its_limit_through_at_a_float_boundary() -> None:
    """Calls 1/30 s apart (the pace of PTB's limiter) at times where ``t + 61 <= now`` and
    ``t <= now - 61`` disagree in floating point: a slot is free exactly when the call that
    held it has left the window, so at no instant do more than 20 calls count."""
    from shbot.bot.delivery.pacer import GROUP_LIMIT, GROUP_PERIOD, MARGIN, Window

    span = GROUP_PERIOD + MARGIN
    boundary = [t for t in (i / 30 for i in range(1, 3000)) if not t <= (t + span) - span]
    assert boundary, "the float edge case this test is about exists"
    for first in boundary[:50]:
        w = Window(GROUP_LIMIT, GROUP_PERIOD)
        taken = [first] * (GROUP_LIMIT - 1) + [first + 2.0]
        for t in taken:
            w.take(t)
        later = first + span
        granted = 0
        while w.ready_at(later) <= later and granted < 3 * GROUP_LIMIT:
            w.take(later)
            granted += 1
        assert granted == GROUP_LIMIT - 1, f"{granted} calls at {later!r} after a full window"


async def test_strict_fake_refuses_calls_over_telegrams_limits_like_telegram() -> None:
    """``strict_limits``: the 21st call shown in a group within 60 s and the 31st call to a
    chat within one second get 429 with ``retry_after``; reads and private chats are not
    counted per group, callback answers not overall; refused calls do not count; a minute
    later the group may go on."""
    from telegram.error import RetryAfter

    from tests.fake_telegram import FakeBotAPI

    now = [100.0]
    fake = FakeBotAPI(clock=lambda: now[0], strict_limits=True)
    async with Harness(fake.application_builder().build(), fake) as h:
        users = make_users(12)
        group, other = h.group(creator=users[0]), h.group(creator=users[1])
        for user in users:
            h.open_private(user)
        bot = h.app.bot
        for i in range(20):
            now[0] = 100.0 + i * 2.0  # one every 2 s: never 30 in a second
            await bot.send_message(group.id, f"{i}")
        await bot.get_chat_member(group.id, users[0].id)  # a read: not a message in the group
        with pytest.raises(RetryAfter):
            await bot.edit_message_text("edited", chat_id=group.id, message_id=1)
        # The first call (at 100) leaves the window at 160: 22 s after this one.
        assert fake.calls[-1].description == "Too Many Requests: retry after 22"
        await bot.send_message(other.id, "another group has its own minute")
        now[0] = 160.0  # the call at 100 is exactly 60 s old: still inside a closed window
        with pytest.raises(RetryAfter):
            await bot.send_message(group.id, "too early")
        now[0] = 160.5
        await bot.send_message(group.id, "the oldest call has left the window")
        now[0] = 500.0
        for i in range(30):
            await bot.send_message(users[i % 12].id, "role")
        with pytest.raises(RetryAfter):
            await bot.send_message(users[0].id, "the 31st in one second")
        assert fake.calls[-1].description == "Too Many Requests: retry after 1"
        fake.register_callback_query("q1", users[0].id)
        assert await bot.answer_callback_query("q1")  # no chat: not one of the 30 messages
        now[0] = 501.5
        await bot.send_message(users[0].id, "a second later")
        statuses = [c.status for c in fake.calls]
        assert statuses.count(429) == 3
        assert fake.max_calls_in_window(group.id, 60, methods=GROUP_METHODS) == 20
        assert fake.max_calls_overall(1.0) == 31  # the refused call is counted by this one
        assert fake.max_calls_overall(1.0, chats=False) == 32  # and the callback answer


GROUP_METHODS = ("sendMessage", "editMessageText", "editMessageReplyMarkup")


# ------------------------------------------------------------------ a restart with a full window


class PacedRestarts(Restarts):
    """Restarts (``tests/botrestart.py``) of a bot with its pacing on: PTB's limiter and the
    outbox's pacer, over a fake Bot API that answers 429 like Telegram (``strict_limits``).

    The pacer stores wall-clock call times with each game and restores the group windows
    from them after a restart. Under a virtual clock the wall clock does not move with the
    loop, so here the pacer's wall clock is the loop's: stored times and the windows agree
    as they do in production."""

    def __init__(self, reopen: StoreFactory) -> None:
        super().__init__(reopen, FakeBotAPI(strict_limits=True))

    async def start(self) -> Bot:
        store = self.reopen()
        config = Config(token=self.fake.token, timers="off")
        app = build_application(config, store, request=self.fake, menus=False)
        loop = asyncio.get_running_loop()
        app.bot_data["svc"].outbox.pacer.wall = loop.time
        h = Harness(app, self.fake)
        h._update_ids = self._update_ids
        h._query_ids = self._query_ids
        await h.__aenter__()
        assert app.post_init is not None
        await app.post_init(app)  # the recovery: windows seeded, owed messages delivered
        return Bot(self.fake, h, store, app)


async def busy_lobby(bot: Bot, users: list[FakeUser], rng: random.Random) -> FakeChat:
    """A lobby whose group has used its minute: people join, then leave and join again, a
    fraction of a second apart, until the group got all the calls within the last 60 s that
    lobby edits may take (progress leaves ``RESERVE`` of the 20 to step changes)."""
    h, fake, loop = bot.h, bot.fake, asyncio.get_running_loop()
    group = h.group(creator=users[0], members=users[1:])
    for user in users:
        await h.command(user, user, "/start", wait=False)
        await asyncio.sleep(rng.uniform(0.3, 0.6))
    await h.command(users[0], group, "/newgame")
    lobby = lobby_message(bot, group)
    join, leave = button_data(lobby, cb.JOIN), button_data(lobby, cb.LEAVE)
    for user in users[1:]:
        await asyncio.sleep(rng.uniform(0.3, 0.6))
        await h.press(user, lobby, data=join)
    began = loop.time()
    while len(limited_calls(fake, group.id, loop.time() - 60)) < FULL:
        assert loop.time() - began < 600, "the lobby never filled the group's minute"
        user = rng.choice(users[1:])
        for data in (leave, join):
            await asyncio.sleep(rng.uniform(0.3, 0.6))
            await h.press(user, lobby, data=data)
    return group


FULL = GROUP_LIMIT - RESERVE - 3  # a busy minute: progress (lobby edits) spreads its calls


def limited_calls(fake: FakeBotAPI, chat_id: int, since: float) -> list[float]:
    return [
        c.time
        for c in fake.calls
        if c.ok
        and c.chat_id == chat_id
        and c.method.lower() in GROUP_LIMITED_METHODS
        and c.time >= since
    ]


@pytest.mark.looptime
async def test_a_crash_with_full_windows_and_messages_owed_earns_no_429(tmp_path: Path) -> None:
    """Three groups fill their minute (all progress may take) in the lobby, then start at
    once: the start owes each group its lobby, board and Round 1 messages (and the roles),
    which the pacer holds back. The bot crashes with all that owed. The new process restores
    the group windows from the call times stored with each game: no 429 in the first minute (nor
    later), and everything owed arrives. (SQLite: Redis's socket timeouts would run on the
    virtual clock.)"""
    path = str(tmp_path / "shbot.sqlite3")
    restarts = PacedRestarts(lambda: open_store(sqlite_path=path))
    bot = await restarts.start()
    loop = asyncio.get_running_loop()
    fake = bot.fake
    try:
        # not ten: a full table of ten starts by itself (issue 24), before this test's Starts
        tables = [make_users(7), make_users(8), make_users(9)]
        groups = list(
            await asyncio.gather(
                *(busy_lobby(bot, users, random.Random(i)) for i, users in enumerate(tables))
            )
        )
        lobbies = [lobby_message(bot, g) for g in groups]
        starts = [
            bot.h.press(users[0], lobby, data=button_data(lobby, cb.START))
            for users, lobby in zip(tables, lobbies, strict=True)
        ]
        await asyncio.gather(*starts)
        await asyncio.sleep(1.0)
        holding = []
        for group in groups:
            assert len(limited_calls(fake, group.id, loop.time() - 60)) >= FULL, "window not full"
            table = await bot.table(group)
            assert table is not None and table.game is not None
            held = {"lobby", "board", "round:1"} & set(table.owed)
            assert held, "nothing held back"
            holding.append(held)
        restarted = loop.time()
        await restarts.restart(bot, crash=True)  # recovers, and waits for what it owes
        await bot.settle()

        refused = [c for c in fake.calls if c.status == 429]
        assert not refused, [(c.method, c.chat_id, c.time - restarted) for c in refused]
        for group, users, held in zip(groups, tables, holding, strict=True):
            window = fake.max_calls_in_window(group.id, 60, methods=GROUP_LIMITED_METHODS)
            assert window <= 20, f"{window} calls in a minute in {group.id}"
            after = limited_calls(fake, group.id, restarted)
            assert len(after) >= len(held), f"{group.id} got {after} after the restart"
            table = delivered_table(bot, group)
            assert table.owed == {}, f"still owed after the restart: {table.owed}"
            check_started_on_screen(bot, group, users, table)
        check_calls_valid(fake)
        restarts.assert_no_errors(bot)
    finally:
        await restarts.stop(bot)


def delivered_table(bot: Bot, group: FakeChat) -> Table:
    """The group's newest table as the delivering process knows it: an edit of a message
    already shown (the closed lobby) is recorded in it and stored with the next change."""
    record = bot.app.bot_data["svc"].outbox.tables.get(group.id)
    assert record is not None
    table = Table.from_dict(record.data)
    assert table.game is not None
    return table


def check_started_on_screen(bot: Bot, group: FakeChat, users: list[FakeUser], table: Table) -> None:
    """The group shows the closed lobby, the board and Round 1 with its buttons; every
    player got their role once."""
    fake = bot.fake
    assert step_message(fake, group.id, table, frozenset({cb.NOMINATE})) is not None
    assert "board" in table.shown and not fake.message(group.id, table.shown["board"]).deleted
    lobby = fake.message(group.id, table.shown.get("lobby", lobby_message_id(bot, group)))
    assert lobby.buttons() == [], "the lobby still offers Join and Start"
    for user in users:
        roles = [m for m in fake.messages(user.id) if private_kind(m.text) == "role"]
        assert len(roles) == 1, f"{user.first_name} got {len(roles)} role messages"


def lobby_message_id(bot: Bot, group: FakeChat) -> int:
    return bot.fake.messages(group.id)[0].message_id


async def chatty_lobby(bot: Bot, users: list[FakeUser], rng: random.Random) -> FakeChat:
    """A lobby that filled, then people asked for /help in the group forty times (the bot's
    replies are not game state: their calls are stored with the group, not the game)."""
    h = bot.h
    group = h.group(creator=users[0], members=users[1:])
    for user in users:
        await h.command(user, user, "/start", wait=False)
        await asyncio.sleep(rng.uniform(0.3, 0.6))
    await h.command(users[0], group, "/newgame")
    lobby = lobby_message(bot, group)
    for user in users[1:]:
        await asyncio.sleep(rng.uniform(0.3, 0.6))
        await h.press(user, lobby, data=button_data(lobby, cb.JOIN))
    for _ in range(40):  # replies are merged and limited (four a minute): the group is busy
        await asyncio.sleep(rng.uniform(0.5, 1.0))
        await h.command(rng.choice(users), group, "/help")
    return group


@pytest.mark.looptime
async def test_a_crash_after_replies_to_commands_earns_no_429(tmp_path: Path) -> None:
    """The last calls before the crash are replies to commands (and the edit of the lobby
    after the last join): calls the group's window counts but whose times no commit has
    saved yet. The new process must not take the window for empty: no 429, and the game
    starts and its messages arrive."""
    path = str(tmp_path / "shbot.sqlite3")
    restarts = PacedRestarts(lambda: open_store(sqlite_path=path))
    bot = await restarts.start()
    loop = asyncio.get_running_loop()
    fake = bot.fake
    try:
        tables = [make_users(6), make_users(9)]
        groups = list(
            await asyncio.gather(
                *(chatty_lobby(bot, users, random.Random(i)) for i, users in enumerate(tables))
            )
        )
        await bot.settle()
        restarted = loop.time()
        await restarts.restart(bot, crash=True)
        for users, group in zip(tables, groups, strict=True):
            lobby = lobby_message(bot, group)
            await bot.h.press(users[0], lobby, data=button_data(lobby, cb.START))
        await bot.settle()

        refused = [c for c in fake.calls if c.status == 429]
        assert not refused, [(c.method, c.chat_id, c.time - restarted) for c in refused]
        for group, users in zip(groups, tables, strict=True):
            window = fake.max_calls_in_window(group.id, 60, methods=GROUP_LIMITED_METHODS)
            assert window <= 20, f"{window} calls in a minute in {group.id}"
            table = delivered_table(bot, group)
            assert table.owed == {}, f"still owed: {table.owed}"
            check_started_on_screen(bot, group, users, table)
        restarts.assert_no_errors(bot)
    finally:
        await restarts.stop(bot)


@pytest.mark.looptime
async def test_forty_people_opening_the_private_chat_at_once_earn_no_429(store: Store) -> None:
    """A lobby link shared in a big group: forty people press Start in the private chat at
    the same moment. Each gets the welcome reply, and the bot stays within 30 calls to chats
    in any second."""
    async with running_bot(store, limiter=True) as bot:
        bot.fake.strict_limits = True
        users = make_users(40)
        await asyncio.gather(*(bot.h.command(u, u, "/start", wait=False) for u in users))
        await bot.settle()
        assert bot.fake.private_sends() == 40
        assert not [c for c in bot.fake.calls if c.status == 429]
        assert bot.fake.max_calls_overall(1.0) <= 30


def test_a_busy_group_gets_its_full_minute_spread_and_progress_never_delays_a_step() -> None:
    """The pacer's group window on a virtual clock. A group that always has a call waiting
    makes the full 20 calls a minute (a token bucket of 5 refilled every 4 s made only 15),
    never more than 20 in any 61 s, and never waits more than ``GROUP_PACE`` for its next
    call (a burst of 20 left the rest of the minute silent). With random progress and step
    changes, right after any progress call a step change may go at once (progress keeps
    ``RESERVE`` calls at every step of the pace)."""
    import random

    from shbot.bot.delivery.pacer import GROUP_PACE, GROUP_PERIOD, MARGIN, Pacer

    class Clock:
        now = 1000.0

        def __call__(self) -> float:
            return self.now

    clock, group = Clock(), -7
    pacer = Pacer(clock, clock)
    calls: list[float] = []
    while clock.now < 1000.0 + 5 * 60:
        at = pacer.ready_at(group, clock.now)
        if at > clock.now:
            assert at - clock.now <= GROUP_PACE + 1e-9, f"a busy group waited {at - clock.now}"
            clock.now = at
            continue
        pacer.take(group)
        calls.append(clock.now)
    span = GROUP_PERIOD + MARGIN
    assert max(sum(1 for t in calls if s <= t < s + span) for s in calls) <= GROUP_LIMIT
    minutes = [sum(1 for t in calls if m <= t - 1000.0 < m + span) for m in (61, 122, 183)]
    assert minutes == [GROUP_LIMIT] * 3, minutes

    for seed in range(20):
        rng, clock.now = random.Random(seed), 1000.0
        pacer, progress = Pacer(clock, clock), 0
        for _ in range(200):
            clock.now += rng.expovariate(1 / rng.choice([0.5, 2.0, 5.0]))
            step = rng.random() < 0.4
            if pacer.ready_at(group, clock.now, 0 if step else RESERVE) <= clock.now:
                pacer.take(group)
                if not step:
                    progress += 1
                    assert pacer.ready_at(group, clock.now) <= clock.now, "a step waits"
        assert progress > 20
