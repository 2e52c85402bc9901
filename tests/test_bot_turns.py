"""The token's calls in turns (shbot/bot/delivery/turns.py): with the second's calls taken,
a step change goes before progress that asked earlier, chats go first asked first served,
and a chat that just called asks again behind the others (virtual time)."""

from __future__ import annotations

import asyncio

import pytest

from shbot.bot.delivery.budget import PROGRESS, STEP
from shbot.bot.delivery.pacer import Window
from shbot.bot.delivery.turns import Turns


@pytest.mark.looptime
async def test_step_changes_first_then_chats_in_the_order_they_asked() -> None:
    loop = asyncio.get_running_loop()
    window = Window(1, 1.0, 0.0)  # one call a second: every other chat waits its turn
    turns = Turns(window, loop.time)
    order: list[int] = []

    async def worker(chat: int, kind: int, calls: int) -> None:
        wake = asyncio.Event()
        for _ in range(calls):
            while not turns.go(chat, kind, wake):
                wake.clear()
                await asyncio.wait_for(wake.wait(), 30)
            window.take(loop.time())  # the call
            order.append(chat)
            turns.done(chat)
            await asyncio.sleep(0)

    window.take(loop.time())  # this second is spent
    tasks = [asyncio.create_task(worker(-1, PROGRESS, 1))]  # a vote count asks first
    await asyncio.sleep(0)
    tasks += [asyncio.create_task(worker(chat, STEP, 2)) for chat in (-2, -3, -4)]
    await asyncio.gather(*tasks)
    # Step changes before the progress that asked first; each group in turn, not one
    # group's two calls in a row while the others wait.
    assert order == [-2, -3, -4, -2, -3, -4, -1]
