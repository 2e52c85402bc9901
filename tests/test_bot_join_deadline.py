"""The lobby a group can plan around (issue 24): a join deadline the host picks and the
lobby shows, a warning that edits the lobby, a start by itself (full table, or the deadline
with five or more), Start offered from five players, one "you are in" per player."""

from __future__ import annotations

import asyncio
import re
import time

import pytest

from shbot.bot import callbacks as cb
from shbot.bot.app import recover
from shbot.storage import GameRecord
from shbot.table import lobby_clock
from shbot.table.model import FSI, PDI
from tests.botplay import Bot, button_data, lobby_message, open_game
from tests.harness import make_user, make_users
from tests.test_bot_timers import fire

IN_GAME = "✅ You are in the game. Go back to the group!"


def join_by(text: str) -> int:
    m = re.search(r'<tg-time unix="(\d+)"', text)
    assert m, text
    return int(m.group(1))


async def test_the_lobby_shows_the_join_deadline_the_host_picks(bot: Bot) -> None:
    users = make_users(3)
    group = bot.h.group(creator=users[0], members=users[1:])
    await bot.h.command(users[0], group, "/newgame 15")
    await bot.settle()
    lobby = lobby_message(bot, group)
    assert "⏰ Joining closes at" in lobby.plain_text
    assert abs(join_by(lobby.text) - (time.time() + 15 * 60)) < 30
    # The host moves it while the lobby is open: the lobby is edited, nothing new is sent.
    sends = bot.fake.group_sends(group.id)
    await bot.h.command(users[0], group, "/newgame 5")
    await bot.settle()
    assert bot.fake.group_sends(group.id) == sends
    lobby = lobby_message(bot, group)
    assert abs(join_by(lobby.text) - (time.time() + 5 * 60)) < 30
    # Anyone else's /newgame does not move it.
    await bot.h.command(users[1], group, "/newgame 30")
    await bot.settle()
    assert abs(join_by(lobby_message(bot, group).text) - (time.time() + 5 * 60)) < 30
    bot.h.assert_no_errors()


async def test_start_is_offered_from_five_players(bot: Bot) -> None:
    users = make_users(5)
    group = await open_game(bot, users[:4], start=False)
    starts = [b for b in lobby_message(bot, group).buttons() if b.get("text") == "▶️ Start"]
    assert not starts
    bot.fake.chats[group.id].members.add(users[4].id)
    await bot.h.command(users[4], users[4], "/start")
    lobby = lobby_message(bot, group)
    await bot.h.press(users[4], lobby, data=button_data(lobby, cb.JOIN))
    await bot.settle()
    assert button_data(lobby_message(bot, group), cb.START)


async def test_a_full_table_starts_by_itself(bot: Bot) -> None:
    users = make_users(10)
    group = await open_game(bot, users, start=False)  # the tenth Join fills the table
    table = await bot.table(group)
    assert table is not None and table.game is not None and table.game.n == 10
    text = bot.fake.message(group.id, lobby_message_id(bot, group)).plain_text
    assert "▶️ The game has started!" in text
    bot.h.assert_no_errors()


async def test_a_minute_before_the_deadline_the_lobby_is_edited(bot: Bot) -> None:
    users = make_users(3)
    group = await open_game(bot, users, start=False)
    lobby = lobby_message(bot, group)
    sends = bot.fake.group_sends(group.id)
    assert await fire(bot, "joinwarn", group.id)
    assert bot.fake.group_sends(group.id) == sends, "a warning is an edit, not a message"
    assert "Less than a minute left to join!" in lobby_message(bot, group).plain_text
    assert lobby_message(bot, group).message_id == lobby.message_id
    assert not await fire(bot, "joinwarn", group.id)  # once


async def test_at_the_deadline_five_reachable_players_start(bot: Bot) -> None:
    users = make_users(7)
    group = await open_game(bot, users[:6], start=False)
    late = users[6]  # joins, but never opens the private chat: no role could reach them
    bot.fake.chats[group.id].members.add(late.id)
    await bot.h.command(late, group, "/join")
    await bot.settle()
    assert await fire(bot, "joinby", group.id)
    table = await bot.table(group)
    assert table is not None and table.game is not None and table.game.n == 6
    assert table.player(late.id) is None
    assert await bot.store.player_chat(late.id) is None, "left out and free to play elsewhere"


async def test_at_the_deadline_too_few_players_cancel_the_lobby(bot: Bot) -> None:
    users = make_users(4)
    group = await open_game(bot, users, start=False)
    assert await fire(bot, "joinby", group.id)
    assert await bot.table(group) is None or (await bot.table(group)).ending  # type: ignore[union-attr]
    text = bot.fake.message(group.id, lobby_message_id(bot, group)).plain_text
    assert "Fewer than 5 players by the join deadline" in text
    for user in users:
        assert await bot.store.player_chat(user.id) is None


def lobby_message_id(bot: Bot, group) -> int:  # type: ignore[no-untyped-def]
    for message in reversed(bot.fake.messages(group.id)):
        if "Secret Hitler" in message.plain_text and "Players (" in message.plain_text:
            return message.message_id
    raise LookupError("no lobby")


async def test_one_you_are_in_per_player(bot: Bot) -> None:
    users = make_users(2)
    group = await open_game(bot, users[:1], start=False)
    table = await bot.table(group)
    assert table is not None
    newcomer = make_user("Newcomer")
    bot.fake.chats[group.id].members.add(newcomer.id)
    link = f"/start j{str(group.id).replace('-', 'm')}_{table.gid}"
    for _ in range(2):  # the join link opened twice
        await bot.h.command(newcomer, newcomer, link)
    await bot.h.command(newcomer, newcomer, "/start")  # and /start once more
    await bot.settle()
    told = [m for m in bot.fake.messages(newcomer.id) if m.text == IN_GAME]
    assert len(told) == 1, [m.text for m in bot.fake.messages(newcomer.id)]
    # A player who pressed Join before opening the private chat is told once too.
    late = users[1]
    bot.fake.chats[group.id].members.add(late.id)
    await bot.h.command(late, group, "/join")
    await bot.h.command(late, late, "/start")
    await bot.h.command(late, late, "/start")
    await bot.settle()
    assert [m.text for m in bot.fake.messages(late.id)].count(IN_GAME) == 1
    assert lobby_clock.DEFAULT_MINUTES == 10


def unisolated(text: str) -> str:
    return text.replace(FSI, "").replace(PDI, "")


@pytest.mark.parametrize(
    ("arg", "used", "told"),
    [
        ("15", 15, False),
        ("-5", 10, True),
        ("abc", 10, True),
        ("1e9", 10, True),
        ("0", 10, True),
        ("999", 60, True),
        ("99999", 60, True),
    ],
)
async def test_a_join_time_that_is_not_one_is_answered(
    bot: Bot, arg: str, used: int, told: bool
) -> None:
    """Issue 31: ``-5``, ``abc``, ``1e9`` and ``99999`` gave 10 minutes without a word while
    ``999`` was capped at 60: each now says the valid range and what was used."""
    host = make_users(1)[0]
    group = bot.h.group(creator=host)
    await bot.h.command(host, group, f"/newgame {arg}")
    await bot.settle()
    assert abs(join_by(lobby_message(bot, group).text) - (time.time() + used * 60)) < 30
    note = (
        f"⏰ The join time is a whole number of minutes from 1 to 60; “{arg}” is not one, so "
        f"joining stays open for {used} minutes."
    )
    said = [m.plain_text for m in bot.fake.messages(group.id) if "from 1 to 60" in m.plain_text]
    assert said == ([note] if told else []), said
    bot.h.assert_no_errors()


async def test_the_lobby_names_who_has_not_opened_the_private_chat(bot: Bot) -> None:
    """Issue 31: a lobby listing 5 was cancelled with "Fewer than 5 players" without a word
    on who was missing: the lobby names them, and so does the cancellation."""
    users = make_users(4)
    group = await open_game(bot, users, start=False)
    late = make_user("Latecomer")
    bot.fake.chats[group.id].members.add(late.id)
    await bot.h.command(late, group, "/join")  # never opens the private chat
    await bot.settle()
    text = unisolated(lobby_message(bot, group).plain_text)
    assert "Players (5/10)" in text
    assert "Still to open a private chat with me, where I send the secret roles: Latecomer." in text
    assert "do not count toward the 5 players" in text
    assert await fire(bot, "joinby", group.id)
    text = unisolated(bot.fake.message(group.id, lobby_message_id(bot, group)).plain_text)
    assert (
        "⌛ Fewer than 5 players had opened a private chat with me by the join deadline "
        "(4 of 5): the game is cancelled. Still to open it: Latecomer." in text
    ), text
    bot.h.assert_no_errors()


async def test_a_warning_due_while_the_bot_was_down_comes_at_restart(bot: Bot) -> None:
    """Issue 31: the bot was down when the one-minute warning was due; the deadline is
    still ahead at the restart, so the warning comes then."""
    users = make_users(3)
    group = await open_game(bot, users, start=False)

    def closing_soon(record: GameRecord) -> None:
        record.data["options"][lobby_clock.JOIN_BY] = time.time() + 30

    await bot.store.update_game(group.id, closing_soon)
    bot.svc.outbox.tables.pop(group.id)
    await recover(bot.app)
    for _ in range(100):
        await bot.settle()
        if "Less than a minute left to join!" in lobby_message(bot, group).plain_text:
            break
        await asyncio.sleep(0.02)
    assert "Less than a minute left to join!" in lobby_message(bot, group).plain_text
    bot.h.assert_no_errors()
