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
