"""Pacing: the real AIORateLimiter keeps every group within Telegram's 20 calls a minute."""

from __future__ import annotations

import pytest

from shbot.storage import Store
from tests.botplay import check_game, game_stats, play_planned, running_bot
from tests.harness import Harness, make_users


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


def test_a_window_never_lets_more_than_its_limit_through_at_a_float_boundary() -> None:
    """Calls 1/30 s apart (the pace of PTB's limiter) at times where ``t + 61 <= now`` and
    ``t <= now - 61`` disagree in floating point: a slot is free exactly when the call that
    held it has left the window, so at no instant do more than 20 calls count."""
    from shbot.bot.pacer import GROUP_LIMIT, GROUP_PERIOD, MARGIN, Window

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
