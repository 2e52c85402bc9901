"""The group's budget: step changes before progress, the newest state always shown, a 429
kept in its chat, and clocks that start when a prompt is visible (virtual time)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from shbot.bot import callbacks as cb
from shbot.bot.delivery.budget import HOLD, PROGRESS, RESERVE, STEP, Budget, stage
from shbot.bot.delivery.pacer import GROUP_LIMIT, Pacer
from shbot.engine import Nominate, Phase, Vote
from shbot.storage import Store
from shbot.table import Table
from tests.botplay import Bot, next_turn, open_game, press_move, running_bot
from tests.harness import FakeUser, make_users
from tests.table_helpers import chancellor_for, game_of, press, started


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def deliver(budget: Budget, pacer: Pacer, table: Table, group: int, slot: str) -> None:
    """What the outbox does once Telegram took ``slot``."""
    entry = table.owed[slot]
    pacer.take(group if entry[1] == 0 else int(entry[1]))
    table.delivered(slot, entry[0], 1000 + len(table.shown), keep=True)
    budget.sent(group, slot, table, pacer.clock())


def drain(budget: Budget, pacer: Pacer, table: Table, group: int) -> list[str]:
    """Deliver the group's owed messages in the budget's order while it allows; the order."""
    sent = []
    while True:
        mine = {(slot, e[0]) for slot, e in table.owed.items()}
        choice, _ = budget.choose(pacer, group, table, mine, {}, 0.0)
        if choice is None:
            return sent
        deliver(budget, pacer, table, group, choice)
        sent.append(choice)


def test_round_one_reads_top_to_bottom_and_steps_go_before_progress() -> None:
    clock, group = Clock(), -100
    pacer, budget = Pacer(clock, clock), Budget()
    table, _ = started(7)
    sent = [s for s in drain(budget, pacer, table, group) if not s.startswith("role:")]
    assert sent.index("board") < sent.index("round:1"), sent  # the picture above the buttons
    clock.now += 62.0  # a fresh minute, an empty window
    game = game_of(table)
    press(table, game.president, Nominate(game.president, chancellor_for(table)))
    assert budget.kind(group, table, "round:1", table.owed["round:1"]) == STEP  # vote buttons
    deliver(budget, pacer, table, group, "round:1")
    press(table, 0, Vote(0, True))
    assert budget.kind(group, table, "round:1", table.owed["round:1"]) == PROGRESS  # a voter
    clock.now += 20.0
    # The group spends what progress may (one call a second): then progress waits for the
    # reserve, a step change goes.
    spent = 0
    while pacer.ready_at(group, clock.now, RESERVE) <= clock.now:
        pacer.take(group)
        clock.now += 1.0
        spent += 1
    assert spent < GROUP_LIMIT
    mine = {(slot, e[0]) for slot, e in table.owed.items()}
    choice, wait = budget.choose(pacer, group, table, mine, {}, 0.0)
    assert choice is None and wait is not None and wait > 0, "progress spent the reserve"
    for seat in range(1, game.n):
        if game.phase is Phase.VOTE:
            press(table, seat, Vote(seat, True))
    assert stage(table)[1] != "vote"
    mine = {(slot, e[0]) for slot, e in table.owed.items()}
    choice, _ = budget.choose(pacer, group, table, mine, {}, 0.0)
    assert choice == "round:1", "the vote's result waited behind the reserve"


def test_progress_is_batched_unless_the_group_is_calm() -> None:
    clock, group = Clock(), -100
    pacer, budget = Pacer(clock, clock), Budget()
    table, _ = started(7)
    drain(budget, pacer, table, group)
    game = game_of(table)
    press(table, game.president, Nominate(game.president, chancellor_for(table)))
    drain(budget, pacer, table, group)
    press(table, 0, Vote(0, True))
    # The group is busy: progress may spend (its reserve stays free), but fewer than CALM
    # calls could go at once.
    while pacer.ready_at(group, clock.now, RESERVE) > clock.now:
        clock.now += 0.5
    assert not pacer.calm(group, clock.now)
    mine = {(slot, e[0]) for slot, e in table.owed.items()}
    choice, wait = budget.choose(pacer, group, table, mine, {}, 0.0)
    assert choice is None and wait is not None and 0 < wait <= HOLD + 1e-9, "a busy group batches"
    clock.now += 62.0  # nothing spent for a minute: calm again
    choice, _ = budget.choose(pacer, group, table, mine, {}, 0.0)
    assert choice == "round:1"


def test_votes_a_human_beat_apart_cost_one_edit_shown_within_the_slow_paces_target() -> None:
    """Votes about 1.3 s apart (players who each take their time): the voter line waits for
    the second and shows both in one edit, the first still within 1.5 s (the slow pace's
    p95); a one-second hold spent two edits on them, and a ten-player table ran out of calls
    for its next votes."""
    clock, group = Clock(), -100
    pacer, budget = Pacer(clock, clock), Budget()
    table, _ = started(7)
    drain(budget, pacer, table, group)
    clock.now += 62.0
    game = game_of(table)
    press(table, game.president, Nominate(game.president, chancellor_for(table)))
    drain(budget, pacer, table, group)
    clock.now += 62.0  # a calm group: only the hold decides
    start, edits = clock.now, []
    press(table, 0, Vote(0, True))
    assert "round:1" not in drain(budget, pacer, table, group)  # held from now
    for step in range(1, 31):  # three seconds, a tenth at a time
        clock.now = start + step / 10
        if step == 13:
            press(table, 1, Vote(1, True))
        sent = drain(budget, pacer, table, group)
        edits += [clock.now - start for slot in sent if slot == "round:1"]
    assert len(edits) == 1 and edits[0] <= 1.5 + 1e-9, edits
    assert "round:1" not in table.owed, "both votes shown"


# ------------------------------------------------------------------ through the real bot


def virtual_wall(monkeypatch: pytest.MonkeyPatch) -> Any:
    """Deadlines (epoch seconds) on the loop's virtual clock, like the pacer's wall."""
    import shbot.table.model as model

    loop = asyncio.get_running_loop()
    offset = 1_800_000_000.0 - loop.time()

    class Time:
        @staticmethod
        def time() -> float:
            return loop.time() + offset

    monkeypatch.setattr(model, "time", Time)
    return Time.time


@pytest.mark.looptime
async def test_a_deadline_counts_from_when_its_prompt_was_shown(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The group's calls are held back (a 429's retry-after) when the vote starts: the
    vote's buttons reach the screen 30 s late, and the vote still gets its full minute from
    then, its job armed for the new deadline."""
    wall = virtual_wall(monkeypatch)
    async with running_bot(store, limiter=True, timers="short") as bot:
        bot.svc.outbox.pacer.wall = wall
        users = make_users(5)
        group = await open_game(bot, users)
        by_id = {u.id: u for u in users}
        turn = await next_turn(bot, group, by_id)
        assert turn is not None and turn.table.game is not None
        assert turn.table.game.phase is Phase.NOMINATE
        bot.svc.outbox.pacer.block(group.id, 30.0)
        pick = next(arg for op, arg in turn.options if op == cb.NOMINATE)
        await press_move(bot, turn, cb.NOMINATE, pick, settle=False)
        started_at = wall()
        table = await bot.table(group)
        assert table is not None and table.deadline is not None
        assert table.deadline == pytest.approx(started_at + 60, abs=1)
        await bot.settle()
        record = bot.svc.outbox.tables.get(group.id)
        assert record is not None
        deadline = record.data["deadline"]
        assert deadline - started_at >= 60 + 29, "the vote was shown with less than a minute"
        jobs = [j for j in bot.app.job_queue.jobs() if j.name == f"deadline:{group.id}"]
        assert [j.data["at"] for j in jobs if not j.removed] == [deadline]


async def votes_open(bot: Bot, users: list[FakeUser]) -> tuple[Any, Any]:
    group = await open_game(bot, users)
    by_id = {u.id: u for u in users}
    turn = await next_turn(bot, group, by_id)
    assert turn is not None
    return group, turn


@pytest.mark.looptime
async def test_a_429_in_one_group_leaves_another_on_time(store: Store) -> None:
    """Group A's next edit earns a 429 with a 40 s retry-after. Group B's presses are
    answered at once and its messages arrive on time; so are A's callback answers."""
    async with running_bot(store, limiter=True) as bot:
        bot.fake.strict_limits = True
        loop = asyncio.get_running_loop()
        a_users, b_users = make_users(5), make_users(5)
        a, a_turn = await votes_open(bot, a_users)
        b, b_turn = await votes_open(bot, b_users)
        await asyncio.sleep(60)  # fresh windows for both
        bot.fake.fail_next(method="editMessageText", chat_id=a.id, retry_after=40)
        a_pick = next(arg for op, arg in a_turn.options if op == cb.NOMINATE)
        a_pressed = loop.time()
        a_query = await press_move(bot, a_turn, cb.NOMINATE, a_pick, settle=False)
        await asyncio.sleep(1)
        assert any(c.status == 429 and c.chat_id == a.id for c in bot.fake.calls)
        pressed = loop.time()
        b_pick = next(arg for op, arg in b_turn.options if op == cb.NOMINATE)
        b_query = await press_move(bot, b_turn, cb.NOMINATE, b_pick, settle=False)
        assert bot.fake.answer_for(b_query).time - pressed < 0.5
        assert bot.fake.answer_for(a_query).time - a_pressed < 0.5
        await asyncio.sleep(5)
        b_calls = [c for c in bot.fake.calls if c.chat_id == b.id and c.time >= pressed]
        assert b_calls and all(c.ok for c in b_calls), "group B waited for group A's 429"
        a_calls = [c for c in bot.fake.calls if c.chat_id == a.id and c.ok and c.time > pressed]
        assert not a_calls, "group A ignored its retry-after"
        await bot.settle()
        a_calls = [c for c in bot.fake.calls if c.chat_id == a.id and c.ok and c.time > pressed]
        assert a_calls and a_calls[0].time - pressed >= 38, "A resumed before its retry-after"


@pytest.mark.looptime
async def test_paced_games_show_the_newest_state_within_the_limits() -> None:
    """Players at the fast pace (the group's budget is the bottleneck): every tap's change
    reaches the group, within 20 calls a minute and 30 a second, without a 429."""
    from shbot.bench.paced import run_games

    for seed in (1, 2):
        row = await run_games(1, 7, "fast", seed)
        assert row["incomplete"] == 0, row
        assert row["429s"] == 0 and row["max_group_60s"] <= 20, row
        assert row["max_overall_1s"] <= 30, row
        assert row["max"] < 10, row


@pytest.mark.looptime
async def test_a_flood_of_presses_gets_one_answer_each_in_the_order_applied(
    store: Store,
) -> None:
    """One player presses Ja! and Nein! twenty times at once, another Ja! five times: every
    press gets exactly one answer, and the last answer the first player sees names the
    ballot that was stored, though the first answer's call is slow on the network."""
    from shbot.bot.refusals import answer_text
    from shbot.i18n import translator

    en = translator("en")
    async with running_bot(store, limiter=True) as bot:
        users = make_users(7)
        group, turn = await votes_open(bot, users)
        pick = next(arg for op, arg in turn.options if op == cb.NOMINATE)
        await press_move(bot, turn, cb.NOMINATE, pick)
        vote = await next_turn(bot, group, {u.id: u for u in users})
        assert vote is not None and vote.table.game is not None
        assert vote.table.game.phase is Phase.VOTE
        seats = vote.table.game.to_act()
        flooder, other = vote.table.at(seats[0]), vote.table.at(seats[1])
        by_id = {u.id: u for u in users}
        ja = cb.game_data(vote.table.gid, vote.table.step, cb.VOTE, "1")
        nein = cb.game_data(vote.table.gid, vote.table.step, cb.VOTE, "0")
        slow_first_answer(bot, flooder.id)
        presses = [
            bot.h.press(by_id[flooder.id], vote.message, data=ja if i % 2 else nein)
            for i in range(20)
        ] + [bot.h.press(by_id[other.id], vote.message, data=ja) for _ in range(5)]
        queries = await asyncio.gather(*presses)
        await bot.settle()
        for query in queries:
            assert len([a for a in bot.fake.answers if a.query_id == query]) == 1, query
        table = await bot.table(group)
        assert table is not None and table.game is not None
        stored = table.game.votes[seats[0]]
        last = [a for a in bot.fake.answers if a.user_id == flooder.id][-1]
        assert last.text == answer_text(en, "vote_ja" if stored == 1 else "vote_nein")


def slow_first_answer(bot: Bot, user_id: int) -> None:
    """The first answer to ``user_id``'s presses takes half a second on the network."""
    fake, original = bot.fake, bot.fake.do_request
    left = [1]

    async def do_request(url: str, method: str, request_data: Any = None, *a: Any, **k: Any):
        if url.endswith("answerCallbackQuery") and request_data is not None and left[0]:
            query = request_data.parameters.get("callback_query_id")
            if fake.callback_queries.get(query) == user_id:
                left[0] -= 1
                await asyncio.sleep(0.5)
        return await original(url, method, request_data, *a, **k)

    fake.do_request = do_request  # type: ignore[method-assign]


@pytest.mark.looptime
async def test_command_replies_in_a_group_are_merged_and_limited(store: Store) -> None:
    """Members send /practice thirty times in 30 s: the group gets at most four replies a
    minute (the newest ones), so the game's messages keep the group's budget."""
    async with running_bot(store, limiter=True) as bot:
        users = make_users(5)
        group = bot.h.group(creator=users[0], members=users[1:])
        loop = asyncio.get_running_loop()
        start = loop.time()
        for i in range(30):
            await bot.h.command(users[i % 5], group, f"/practice {5 + i % 6}", wait=False)
            await asyncio.sleep(1.0)
        await bot.settle()
        replies = [c.time for c in bot.fake.calls if c.chat_id == group.id and c.ok]
        assert 1 <= len(replies) <= 4 + 2, replies  # a minute's four, and the two waiting
        assert bot.fake.max_calls_in_window(group.id, 60) <= 4
        assert replies[0] - start < 2, "the first reply came late"


@pytest.mark.looptime
async def test_a_full_tables_first_second_stays_under_telegrams_overall_limit() -> None:
    """Ten players open their private chats and join within a second (fast pace): ten
    /start replies and nine membership checks beside the lobby's own calls. The fake counts
    every call that names a chat against Telegram's 30 a second, as a cautious reading of
    Telegram must: the bot made 33 and earned three 429s when it left membership checks out."""
    from shbot.bench.paced import run_games

    row = await run_games(1, 10, "fast", 201)
    assert row["429s"] == 0 and row["max_overall_1s"] <= 30, row
