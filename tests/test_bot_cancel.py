"""A cancelled game leaves no live buttons behind, and its timers stop."""

from __future__ import annotations

from shbot.bot import callbacks as cb
from shbot.storage import Store
from tests.botplay import button_data, lobby_message, open_game, running_bot
from tests.harness import make_users


async def test_cancelling_a_running_game_takes_the_buttons_off(store: Store) -> None:
    async with running_bot(store, timers="short") as bot:
        users = make_users(5)
        group = await open_game(bot, users, seed=23)
        table = await bot.table(group)
        assert table is not None and table.game is not None
        board_id, round_id = table.shown["board"], table.shown[f"round:{table.game.round}"]
        assert bot.fake.message(group.id, round_id).buttons(), "nomination buttons first"
        await bot.h.command(users[0], group, "/cancelgame")
        await bot.settle()
        confirm = bot.h.last(group)
        await bot.h.press(users[0], confirm, data=button_data(confirm, cb.CANCEL_YES))
        await bot.settle()
        assert await bot.table(group) is None
        assert bot.fake.message(group.id, board_id).buttons() == []
        assert bot.fake.message(group.id, round_id).buttons() == []
        assert "cancelled" in bot.fake.message(group.id, confirm.message_id).text
        assert bot.app.job_queue is not None
        assert not [j for j in bot.app.job_queue.jobs() if str(j.name).endswith(str(group.id))]


async def test_cancelling_a_lobby_closes_it(store: Store) -> None:
    async with running_bot(store) as bot:
        users = make_users(3)
        group = await open_game(bot, users, start=False)
        lobby = lobby_message(bot, group)
        await bot.h.command(users[0], group, "/cancelgame")
        await bot.settle()
        confirm = bot.h.last(group)
        await bot.h.press(users[0], confirm, data=button_data(confirm, cb.CANCEL_YES))
        await bot.settle()
        closed = bot.fake.message(group.id, lobby.message_id)
        assert closed.buttons() == [] and "cancelled" in closed.text
