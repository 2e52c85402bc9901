"""Every press is answered within Telegram's 15 s (virtual time).

A 429 on the answer itself is waited out while the press's window allows, never an error
in a handler; a burst of presses (the flood guard lets 20 through, then two a second) gets
one answer per press, the last naming the vote that was stored; Telegram's limits on
messages still hold (answers are not limited: tdlib/telegram-bot-api#648).
"""

from __future__ import annotations

import asyncio
import logging

import pytest

from shbot.bot import callbacks as cb
from shbot.bot.delivery.answers import Presses, Said
from shbot.bot.refusals import vote_answer
from shbot.i18n import translator
from shbot.storage import Store
from tests.botplay import Bot, Turn, next_turn, open_game, press_move, running_bot
from tests.fake_telegram import FakeChat
from tests.harness import FakeUser, make_user, make_users

EN = translator("en")
WINDOW = 15.0  # Telegram's: a press answered later is an error


async def voting(bot: Bot, users: list[FakeUser]) -> tuple[FakeChat, Turn]:
    """A game whose first vote is open (the first voter's turn)."""
    group = await open_game(bot, users)
    by_id = {u.id: u for u in users}
    turn = await next_turn(bot, group, by_id)
    assert turn is not None
    pick = next(arg for op, arg in turn.options if op == cb.NOMINATE)
    await press_move(bot, turn, cb.NOMINATE, pick)
    vote = await next_turn(bot, group, by_id)
    assert vote is not None and vote.table.game is not None
    return group, vote


async def settled(bot: Bot) -> None:
    """Every update handled, every task it started done (an answer to a press beyond the
    flood budget is one), every message delivered."""
    await bot.h.settle()
    await bot.settle()


async def stored_vote(bot: Bot, group: FakeChat, seat: int) -> int | None:
    table = await bot.table(group)
    assert table is not None and table.game is not None
    return table.game.votes[seat]


@pytest.mark.looptime
@pytest.mark.parametrize("who", ["voter", "stranger"])
async def test_a_429_on_an_answer_is_waited_out_within_the_press_window(
    store: Store, who: str
) -> None:
    """Telegram answers the first answerCallbackQuery with "retry after 3": the press is
    answered three seconds later (an accepted vote and a refusal alike), no handler error."""
    async with running_bot(store, limiter=True) as bot:
        group, vote = await voting(bot, make_users(5))
        presser = vote.user if who == "voter" else make_user("Stranger")
        ja = cb.game_data(vote.table.gid, vote.table.step, cb.VOTE, "1")
        bot.fake.fail_next(method="answerCallbackQuery", retry_after=3)
        start = asyncio.get_running_loop().time()
        query = await bot.h.press_raw(presser, group.id, vote.message.message_id, ja)
        await settled(bot)
        answer = bot.h.answer(query)
        assert 3 <= answer.time - start < WINDOW
        if who == "voter":
            assert answer.text == vote_answer(EN, True)
            assert await stored_vote(bot, group, vote.seat) == 1
        else:
            assert answer.text == "You are not playing in this game."
        bot.h.assert_no_errors()


@pytest.mark.looptime
async def test_an_answer_telegram_would_take_too_late_is_given_up_quietly(
    store: Store, caplog: pytest.LogCaptureFixture
) -> None:
    """ "Retry after 30": past the press's 15 s, so the answer is given up with a warning,
    not a traceback; the vote counts all the same."""
    async with running_bot(store, limiter=True) as bot:
        group, vote = await voting(bot, make_users(5))
        ja = cb.game_data(vote.table.gid, vote.table.step, cb.VOTE, "1")
        bot.fake.fail_next(method="answerCallbackQuery", retry_after=30)
        with caplog.at_level(logging.WARNING):
            query = await bot.h.press_raw(vote.user, group.id, vote.message.message_id, ja)
            await settled(bot)
        with pytest.raises(KeyError):
            bot.h.answer(query)
        assert await stored_vote(bot, group, vote.seat) == 1
        bot.h.assert_no_errors()
        assert any("left unanswered" in r.getMessage() for r in caplog.records)
        assert not any(r.exc_info for r in caplog.records if r.levelno >= logging.ERROR)


@pytest.mark.looptime
async def test_an_answer_that_times_out_is_tried_again_within_the_press_window(
    store: Store,
) -> None:
    """The first answerCallbackQuery times out (Telegram's answer never comes; a 5xx is
    the same NetworkError): the press is answered a second later, no handler error."""
    async with running_bot(store, limiter=True) as bot:
        group, vote = await voting(bot, make_users(5))
        ja = cb.game_data(vote.table.gid, vote.table.step, cb.VOTE, "1")
        bot.fake.fail_next_with(0, "timed out", method="answerCallbackQuery")
        start = asyncio.get_running_loop().time()
        query = await bot.h.press_raw(vote.user, group.id, vote.message.message_id, ja)
        await settled(bot)
        answer = bot.h.answer(query)
        assert 1 <= answer.time - start < WINDOW
        assert answer.text == vote_answer(EN, True)
        assert await stored_vote(bot, group, vote.seat) == 1
        bot.h.assert_no_errors()


@pytest.mark.looptime
@pytest.mark.parametrize("status", [400, 0])
async def test_an_answer_telegram_refuses_for_good_is_no_handler_error(
    store: Store, status: int, caplog: pytest.LogCaptureFixture
) -> None:
    """A 400 ("query is too old") is final, and a timeout on every try runs out of the
    window: either way the press is given up in the log, without a traceback, and the vote
    counts."""
    async with running_bot(store, limiter=True) as bot:
        group, vote = await voting(bot, make_users(5))
        ja = cb.game_data(vote.table.gid, vote.table.step, cb.VOTE, "1")
        text = "Bad Request: query is too old and response timeout expired or query ID is invalid"
        bot.fake.fail_next_with(status, text, method="answerCallbackQuery", times=100)
        before = len(bot.fake.calls)
        with caplog.at_level(logging.INFO):
            query = await bot.h.press_raw(vote.user, group.id, vote.message.message_id, ja)
            await settled(bot)
        with pytest.raises(KeyError):
            bot.h.answer(query)
        assert await stored_vote(bot, group, vote.seat) == 1
        bot.h.assert_no_errors()
        assert not any(r.exc_info for r in caplog.records if r.levelno >= logging.ERROR)
        tries = [c for c in bot.fake.calls[before:] if c.method == "answerCallbackQuery"]
        if status == 400:  # final: asked once (PTB makes a BadRequest a NetworkError)
            assert len(tries) == 1
        else:  # a timeout (the fake records no call): tried again each second, then given up
            again = [r for r in caplog.records if "answering a press again" in r.getMessage()]
            assert 10 <= len(again) <= WINDOW
            assert any("left unanswered" in r.getMessage() for r in caplog.records)


@pytest.mark.looptime
@pytest.mark.parametrize(("count", "every"), [(100, 0.0), (200, 0.0), (100, 0.1)])
async def test_a_burst_of_presses_gets_an_answer_for_each(
    store: Store, count: int, every: float
) -> None:
    """One player presses Ja! and Nein! ``count`` times, at once or every ``every`` s
    (today: 22 of 100 answered at once, 41 at ten a second): each press gets one answer
    within 15 s, the last names the stored vote, and the group's messages stay within
    Telegram's limits."""
    async with running_bot(store, limiter=True) as bot:
        group, vote = await voting(bot, make_users(5))
        await asyncio.sleep(61)  # a fresh window for the group
        gid, step, mid = vote.table.gid, vote.table.step, vote.message.message_id
        ja, nein = cb.game_data(gid, step, cb.VOTE, "1"), cb.game_data(gid, step, cb.VOTE, "0")
        loop = asyncio.get_running_loop()
        pressed: dict[str, float] = {}
        calls = len(bot.fake.calls)

        async def press(i: int) -> None:
            await asyncio.sleep(i * every)
            at = loop.time()
            query = await bot.h.press_raw(vote.user, group.id, mid, ja if i % 2 else nein)
            pressed[query] = at

        await asyncio.gather(*(press(i) for i in range(count)))
        await settled(bot)
        answers = {q: [a for a in bot.fake.answers if a.query_id == q] for q in pressed}
        unanswered = [q for q, found in answers.items() if not found]
        assert not unanswered, f"{len(unanswered)} of {count} presses unanswered"
        assert all(len(found) == 1 for found in answers.values())
        late = [a[0].time - pressed[q] for q, a in answers.items() if a[0].time - pressed[q] >= 14]
        assert not late, f"answered {max(late):.1f} s after the press"
        stored = await stored_vote(bot, group, vote.seat)
        assert stored is not None
        last = bot.h.answers_for(vote.user)[-1]
        assert last.text == vote_answer(EN, stored == 1)
        assert bot.fake.max_calls_in_window(group.id, 60) <= 20
        assert not [c for c in bot.fake.calls[calls:] if c.status == 429]
        bot.h.assert_no_errors()


@pytest.mark.looptime
async def test_a_flood_of_malformed_presses_is_answered_press_by_press(store: Store) -> None:
    """Sixty presses of forged data at once: the flood guard runs no handler for most of
    them (today it dropped 40 without a word), yet each is told the button is not valid."""
    async with running_bot(store, limiter=True) as bot:
        group, vote = await voting(bot, make_users(5))
        before = await bot.record(group)
        mid = vote.message.message_id
        queries = await asyncio.gather(
            *(bot.h.press_raw(vote.user, group.id, mid, "x") for _ in range(60))
        )
        await settled(bot)
        texts = [bot.h.answer(q).text for q in queries]
        assert set(texts) == {"This button is not valid."}
        after = await bot.record(group)
        assert before is not None and after is not None and after.version == before.version
        bot.h.assert_no_errors()


async def test_a_press_beyond_the_budget_is_told_the_newest_answer_once_it_is_given() -> None:
    """The answer to a press the flood guard held back waits for the player's earlier
    presses, then repeats the newest answer under the same message; under a message with
    no answer yet there is nothing to repeat (the bot then says the press changed nothing)."""
    presses = Presses()
    first = presses.arrived(1, (-5, 7), "q1")
    held = presses.arrived(1, (-5, 7), "q2")
    held.excess = True
    waiting = asyncio.ensure_future(presses.told(held))
    await asyncio.sleep(0.01)
    assert not waiting.done(), "answered before the earlier press"
    first.answered(vote_answer(EN, True), False)
    assert await waiting == Said(vote_answer(EN, True), False)
    elsewhere = presses.arrived(1, (-5, 8), "q3")
    elsewhere.excess = True
    assert await presses.told(elsewhere) is None
