"""Driving games with computer seats: fire their pending jobs, press for the people."""

from __future__ import annotations

import random
from typing import Any

from shbot.bot import callbacks as cb
from shbot.bot import robots
from shbot.engine import Phase
from shbot.table.model import Table
from tests.botplay import PRIVATE_OPS, Bot, options_of, press_move, step_message
from tests.botplay import Turn as PlayTurn
from tests.fake_telegram import FakeChat
from tests.harness import FakeUser

SLOW = 1e6  # computer pauses in tests: far away, so that only the test fires them


def robot_jobs(bot: Bot, chat_id: int) -> list[Any]:
    assert bot.app.job_queue is not None
    prefix = f"robot:{chat_id}:"
    return [j for j in bot.app.job_queue.jobs() if j.name.startswith(prefix) and not j.removed]


async def run_computers(bot: Bot, chat_id: int, limit: int = 100) -> int:
    """Fire every pending computer move of a group (and those they lead to) now."""
    fired = 0
    while jobs := robot_jobs(bot, chat_id):
        job = jobs[0]
        job.schedule_removal()
        await job.run(bot.app)
        await bot.settle()
        fired += 1
        assert fired <= limit, "computer players keep acting without end"
    return fired


def slow_computers(bot: Bot) -> None:
    robots.bench(bot.app).pace = SLOW


async def human_turn(
    bot: Bot, group: FakeChat | int, users: dict[int, FakeUser]
) -> PlayTurn | None:
    """The move a person must make now (None if the game waits only for computers)."""
    table = await bot.table(group)
    if table is None or table.game is None or table.game.is_over:
        return None
    game = table.game
    chat_id = group if isinstance(group, int) else group.id
    for seat in game.to_act():
        person = table.at(seat)
        if person.id not in users or person.id in table.standins:
            continue
        if game.phase in (Phase.NOMINATE, Phase.VOTE):
            ops = frozenset({cb.NOMINATE, cb.VOTE})
            message = step_message(bot.fake, chat_id, table, ops)
        else:
            message = step_message(bot.fake, person.id, table, PRIVATE_OPS)
        assert message is not None, f"no buttons for seat {seat} at step {table.step}"
        return PlayTurn(table, seat, users[person.id], message, options_of(message, table))
    return None


async def play_with_computers(
    bot: Bot, group: FakeChat | int, people: list[FakeUser], seed: int = 0, max_steps: int = 600
) -> Table:
    """Play to the end: computers act through their jobs, people press at random. A
    practice game's "group" is the person's private chat (its id)."""
    rng = random.Random(seed)
    users = {u.id: u for u in people}
    chat_id = group if isinstance(group, int) else group.id
    for _ in range(max_steps):
        await run_computers(bot, chat_id)
        table = await bot.table(group)
        if table is None:
            return await bot.finished(group)
        turn = await human_turn(bot, group, users)
        if turn is None:
            assert table.game is not None
            waiting = table.game.to_act()
            raise AssertionError(f"step {table.step} waits for {waiting} but nothing is armed")
        if turn.phase is Phase.VOTE:
            op, arg = cb.VOTE, rng.choice(["1", "1", "0"])
        else:
            op, arg = rng.choice(turn.options)
        await press_move(bot, turn, op, arg)
    raise AssertionError("the game did not end")
