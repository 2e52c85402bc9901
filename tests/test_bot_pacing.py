"""Pacing: the real AIORateLimiter keeps every group within Telegram's 20 calls a minute."""

from __future__ import annotations

import pytest

from shbot.storage import Store
from tests.botplay import check_game, game_stats, play_planned, running_bot
from tests.harness import make_users


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
