"""Computer players at the table, through the real Application and the fake Bot API:
filling a lobby (/addbot, the lobby buttons, their limits), games where computers act on
their own through their jobs, and the secrets they must keep."""

from __future__ import annotations

from shbot.bot import callbacks as cb
from shbot.i18n import translator
from shbot.storage import Store
from shbot.table import seats
from tests.botplay import (
    Bot,
    button_data,
    check_calls_valid,
    check_group_keeps_secrets,
    lobby_message,
    open_game,
    running_bot,
)
from tests.fake_telegram import FakeChat
from tests.harness import FakeUser, make_users
from tests.seatplay import play_with_computers, robot_jobs, slow_computers

EN = translator("en")


async def lobby_with_computers(
    bot: Bot, people: list[FakeUser], computers: int, seed: int = 5
) -> FakeChat:
    slow_computers(bot)
    group = await open_game(bot, people, seed=seed, start=False)
    if computers:
        await bot.h.command(people[0], group, f"/addbot {computers}")
        await bot.settle()
    return group


def sent_to(bot: Bot) -> set[int]:
    """Every chat the bot sent a message to."""
    return {c.chat_id for c in bot.fake.calls if c.method.lower() == "sendmessage" and c.ok}


async def test_one_person_and_four_computers_play_a_game_to_its_end(store: Store) -> None:
    async with running_bot(store) as bot:
        people = make_users(1)
        group = await lobby_with_computers(bot, people, 4)
        table = await bot.table(group)
        assert table is not None and len(table.players) == 5
        assert [p.name for p in table.players[1:]] == ["🤖 Alice", "🤖 Ben", "🤖 Clara", "🤖 David"]
        lobby = lobby_message(bot, group)
        assert "🤖 Alice" in lobby.text
        await bot.h.press(people[0], lobby, data=button_data(lobby, cb.START))
        await bot.settle()
        started = await bot.table(group)
        assert started is not None and started.game is not None
        assert robot_jobs(bot, group.id), "no computer move armed after the start"
        final = await play_with_computers(bot, group, people, seed=1)
        assert final.game is not None and final.game.is_over
        over = bot.h.last(group).text
        assert "win" in over and "🤖 Ben" in over
        check_group_keeps_secrets(bot.fake, group.id)
        assert sent_to(bot) <= {group.id, people[0].id}, "a message went to a computer seat"
        check_calls_valid(bot.fake)
        # Computer ballots are revealed with the others, under their names.
        game = final.game
        elections = [e for e in game.history if e[0] == "e"]
        assert elections
        texts = [m.text for m in bot.fake.messages(group.id)]
        assert any("Ja! (" in t and "🤖" in t for t in texts), "no revealed computer ballot"
        # Per-user statistics count only people; the group counts the game.
        stats = await store.group_stats(group.id)
        assert stats["games"] == 1
        assert all(p["user_id"] > 0 for p in stats["players"])
        assert (await store.user_stats(people[0].id))["games"] == 1
        bot.h.assert_no_errors()


async def test_addbot_limits_and_refusals(store: Store) -> None:
    async with running_bot(store) as bot:
        people = make_users(2)
        group = await lobby_with_computers(bot, people, 9)
        table = await bot.table(group)
        assert table is not None and len(table.players) == seats.MAX_SEATS  # 2 + 8: full
        await bot.h.command(people[0], group, "/addbot")
        await bot.settle()
        assert bot.h.last(group).text == EN._("The game is full (10 players).")
        # Only the host (or an admin) adds or removes computer players.
        lobby = lobby_message(bot, group)
        query = await bot.h.press(people[1], lobby, data=button_data(lobby, cb.REMOVE_BOT))
        await bot.settle()
        answer = bot.h.answer(query)
        assert answer.show_alert and "Only the host" in str(answer.text)
        query = await bot.h.press(people[0], lobby, data=button_data(lobby, cb.REMOVE_BOT))
        await bot.settle()
        assert bot.h.answer(query).text == EN._("A computer player left.")
        table = await bot.table(group)
        assert table is not None and len(table.players) == 9
        query = await bot.h.press(people[0], lobby, data=button_data(lobby, cb.ADD_BOT))
        await bot.settle()
        assert "1 computer player joined" in str(bot.h.answer(query).text)
        table = await bot.table(group)
        assert table is not None and len(table.players) == seats.MAX_SEATS
        bot.h.assert_no_errors()


async def test_computers_never_play_alone_nor_join_a_running_game(store: Store) -> None:
    async with running_bot(store) as bot:
        people = make_users(1)
        group = await lobby_with_computers(bot, people, 0)
        lobby = lobby_message(bot, group)
        query = await bot.h.press(people[0], lobby, data=button_data(lobby, cb.REMOVE_BOT))
        await bot.settle()
        assert bot.h.answer(query).text == EN._("There is no computer player to remove.")
        await bot.h.press(people[0], lobby, data=button_data(lobby, cb.ADD_BOT))
        await bot.settle()
        table = await bot.table(group)
        assert table is not None and len(table.players) == 2
        # The only person leaves: computer players do not keep the lobby open.
        await bot.h.press(people[0], lobby, data=button_data(lobby, cb.LEAVE))
        await bot.settle()
        assert await bot.table(group) is None
        # A running game takes no new computer player.
        group = await lobby_with_computers(bot, people, 4)
        lobby = lobby_message(bot, group)
        await bot.h.press(people[0], lobby, data=button_data(lobby, cb.START))
        await bot.settle()
        await bot.h.command(people[0], group, "/addbot")
        await bot.settle()
        assert bot.h.last(group).text == EN._("The game has already started.")
        bot.h.assert_no_errors()
