"""Who may join (issue 24): only members of the group, whether by the Join button, /join
or a join link (a forwarded link must not seat a stranger, who would get a role for a game
they cannot see). Membership is asked of Telegram directly and a "yes" remembered for minutes
(issue 31: not for the process's life); anyone else is told why, in private. A member who
leaves the group or is banned loses their lobby seat at once; a Telegram error never seats
anyone (a definite "no" refuses, a transient one says to try again); those seated through
the link are asked again at the start. Updates without a sender are ignored quietly."""

from __future__ import annotations

from typing import ClassVar

import pytest

from shbot.bot import callbacks as cb
from shbot.bot.main import ALLOWED_UPDATES
from tests.botplay import Bot, button_data, lobby_message, open_game
from tests.harness import FakeUser, make_user, make_users

TRY_AGAIN = "try again in a moment"
HOUR = 3600.0  # a "yes, member" is trusted for minutes, never this long


def member_checks(bot: Bot, user_id: int) -> int:
    return sum(
        1
        for c in bot.fake.calls
        if c.method.lower() == "getchatmember" and int(c.params.get("user_id", 0)) == user_id
    )


def join_link(group_id: int, gid: str) -> str:
    return f"/start j{str(group_id).replace('-', 'm')}_{gid}"


async def test_a_forwarded_join_link_does_not_seat_a_stranger(bot: Bot) -> None:
    users = make_users(3)
    group = await open_game(bot, users, start=False)
    table = await bot.table(group)
    assert table is not None
    stranger = make_user("Stranger")
    before = len(bot.fake.messages(stranger.id))
    await bot.h.command(stranger, stranger, join_link(group.id, table.gid))
    await bot.settle()
    table = await bot.table(group)
    assert table is not None and table.player(stranger.id) is None
    assert await bot.store.player_chat(stranger.id) is None
    told = [m.text for m in bot.fake.messages(stranger.id)[before:]]
    assert len(told) == 1 and "Only members of the group can join" in told[0], told
    assert not any("Stranger" in m.plain_text for m in bot.fake.messages(group.id))
    # Once a member, the same link seats them.
    bot.fake.chats[group.id].members.add(stranger.id)
    await bot.h.command(stranger, stranger, join_link(group.id, table.gid))
    await bot.settle()
    table = await bot.table(group)
    assert table is not None and table.player(stranger.id) is not None
    bot.h.assert_no_errors()


async def test_a_visitor_pressing_join_is_told_why_and_not_seated(bot: Bot) -> None:
    users = make_users(3)
    group = await open_game(bot, users, start=False)
    visitor = make_user("Visitor")
    await bot.h.command(visitor, visitor, "/start")
    lobby = lobby_message(bot, group)
    query = await bot.h.press(visitor, lobby, data=button_data(lobby, cb.JOIN), member=False)
    await bot.settle()
    answer = bot.h.answer(query)
    assert answer.show_alert and "Only members of the group" in str(answer.text)
    table = await bot.table(group)
    assert table is not None and table.player(visitor.id) is None
    # Someone banned from the group is no member either.
    banned = make_user("Banned")
    bot.fake.chats[group.id].members.add(banned.id)
    bot.fake.remove_member(group.id, banned.id, ban=True)
    await bot.h.command(banned, banned, "/start")
    query = await bot.h.press(banned, lobby, data=button_data(lobby, cb.JOIN), member=False)
    await bot.settle()
    assert bot.h.answer(query).show_alert and bot.h.refused(query)
    table = await bot.table(group)
    assert table is not None and table.player(banned.id) is None
    bot.h.assert_no_errors()


async def test_membership_is_asked_once_and_join_in_the_group_needs_no_call(bot: Bot) -> None:
    users = make_users(2)
    group = await open_game(bot, users[:1], start=False)
    joiner = users[1]
    bot.fake.chats[group.id].members.add(joiner.id)
    await bot.h.command(joiner, joiner, "/start")
    lobby = lobby_message(bot, group)
    for op in (cb.JOIN, cb.LEAVE, cb.JOIN, cb.LEAVE, cb.JOIN):
        await bot.h.press(joiner, lobby, data=button_data(lobby, op))
        await bot.settle()
    assert member_checks(bot, joiner.id) == 1, "asked once, then remembered"
    table = await bot.table(group)
    assert table is not None and table.player(joiner.id) is not None
    writer = make_user("Writer")
    await bot.h.command(writer, writer, "/start")
    await bot.h.command(writer, group, "/join")  # wrote in the group: a member
    await bot.settle()
    table = await bot.table(group)
    assert table is not None and table.player(writer.id) is not None
    assert member_checks(bot, writer.id) == 0


async def test_updates_without_a_sender_are_ignored_quietly(bot: Bot) -> None:
    users = make_users(2)
    group = await open_game(bot, users, start=False)
    lobby = lobby_message(bot, group)
    calls = len(bot.fake.calls)
    await bot.h.feed(
        {
            "callback_query": {
                "id": "4242",
                "message": lobby.to_dict(),
                "chat_instance": "1",
                "data": button_data(lobby, cb.JOIN),
            }
        }
    )
    await bot.h.feed(
        {"message": {"message_id": 999, "date": 0, "chat": group.to_dict(), "text": "/join"}}
    )
    await bot.settle()
    assert len(bot.fake.calls) == calls, "nothing said, nobody seated"
    table = await bot.table(group)
    assert table is not None and len(table.players) == 2
    bot.h.assert_no_errors()


async def seated_by_link(bot: Bot, user: FakeUser, group_id: int) -> bool:
    """``user`` opens the lobby's join link; whether they sit at its table afterwards."""
    table = await bot.table(group_id)
    assert table is not None
    await bot.h.command(user, user, join_link(group_id, table.gid))
    await bot.settle()
    table = await bot.table(group_id)
    return table is not None and table.player(user.id) is not None


def later(bot: Bot, seconds: float) -> None:
    """The membership cache's clock moves on by ``seconds``."""
    clock = bot.svc.clock
    bot.svc.clock = lambda: clock() + seconds


async def test_a_yes_lives_minutes_not_the_process_life(bot: Bot) -> None:
    """Issue 31: someone who joined once, left the lobby and then the group (no update
    about it reaches the bot: it is not an admin there) is not seated again by the link
    once the "yes" is minutes old."""
    users = make_users(3)
    group = await open_game(bot, users, start=False)
    joiner = make_user("Joiner")
    bot.fake.chats[group.id].members.add(joiner.id)
    assert await seated_by_link(bot, joiner, group.id)
    await bot.h.command(joiner, group, "/leave")
    await bot.settle()
    bot.fake.remove_member(group.id, joiner.id)  # the update is not delivered
    later(bot, HOUR)
    assert not await seated_by_link(bot, joiner, group.id)
    told = bot.fake.messages(joiner.id)[-1].plain_text
    assert "Only members of the group can join" in told, told
    assert await bot.store.player_chat(joiner.id) is None
    bot.h.assert_no_errors()


@pytest.mark.parametrize("how", ["chat_member", "left_message", "ban"])
async def test_a_member_who_leaves_the_group_loses_the_seat_at_once(bot: Bot, how: str) -> None:
    assert "chat_member" in ALLOWED_UPDATES  # Telegram sends them only if asked for
    users = make_users(3)
    group = await open_game(bot, users, start=False)
    joiner = make_user("Joiner")
    bot.fake.chats[group.id].members.add(joiner.id)
    assert await seated_by_link(bot, joiner, group.id)
    message = bot.fake.receive_message(group.id, users[0].to_dict(), "")
    update = bot.fake.remove_member(group.id, joiner.id, ban=how == "ban")
    if how == "left_message":  # a small group tells every bot in a service message
        payload = {**message.to_dict(), "left_chat_member": joiner.to_dict()}
        payload.pop("text", None)
        update = {"message": payload}
    await bot.h.feed(update)
    await bot.settle()
    table = await bot.table(group)
    assert table is not None and table.player(joiner.id) is None, "still seated"
    assert await bot.store.player_chat(joiner.id) is None
    assert "Joiner" not in lobby_message(bot, group).plain_text
    # Forgotten at once: the link asks Telegram again (within the minutes a "yes" lives).
    assert not await seated_by_link(bot, joiner, group.id)
    bot.h.assert_no_errors()


FAILURES = {
    "500": (500, "Internal Server Error", None),
    "429": (429, "Too Many Requests: retry after 3", {"retry_after": 3}),
    "timeout": (0, "", None),
}


@pytest.mark.parametrize("failure", sorted(FAILURES))
@pytest.mark.parametrize("way", ["link", "button"])
async def test_a_telegram_error_seats_nobody_and_says_try_again(
    bot: Bot, failure: str, way: str
) -> None:
    """Issue 31: four strangers were seated in one lobby because getChatMember failed."""
    users = make_users(3)
    group = await open_game(bot, users, start=False)
    stranger = make_user("Stranger")
    await bot.h.command(stranger, stranger, "/start")
    status, description, parameters = FAILURES[failure]
    bot.fake.fail_next_with(status, description, method="getChatMember", parameters=parameters)
    if way == "link":
        assert not await seated_by_link(bot, stranger, group.id)
        told = bot.fake.messages(stranger.id)[-1].plain_text
    else:
        lobby = lobby_message(bot, group)
        query = await bot.h.press(stranger, lobby, data=button_data(lobby, cb.JOIN), member=False)
        await bot.settle()
        answer = bot.h.answer(query)
        assert answer.show_alert
        told = str(answer.text)
    assert TRY_AGAIN in told, told
    table = await bot.table(group)
    assert table is not None and table.player(stranger.id) is None
    assert await bot.store.player_chat(stranger.id) is None
    # Asked again once Telegram answers: a stranger stays out.
    assert not await seated_by_link(bot, stranger, group.id)
    assert "Only members" in bot.fake.messages(stranger.id)[-1].plain_text
    bot.h.assert_no_errors()


async def test_a_400_is_a_definite_no(bot: Bot) -> None:
    users = make_users(3)
    group = await open_game(bot, users, start=False)
    stranger = make_user("Stranger")
    await bot.h.command(stranger, stranger, "/start")
    bot.fake.fail_next_with(400, "Bad Request: PARTICIPANT_ID_INVALID", method="getChatMember")
    assert not await seated_by_link(bot, stranger, group.id)
    assert "Only members" in bot.fake.messages(stranger.id)[-1].plain_text
    bot.h.assert_no_errors()


async def test_the_start_asks_again_about_those_seated_by_the_link(bot: Bot) -> None:
    """A player seated through the link who left the group unseen, minutes ago, does not
    get a role: the start asks Telegram again and counts without them."""
    users = make_users(4)
    group = await open_game(bot, users, start=False)
    joiner = make_user("Joiner")
    bot.fake.chats[group.id].members.add(joiner.id)
    assert await seated_by_link(bot, joiner, group.id)
    bot.fake.remove_member(group.id, joiner.id)  # unseen: the bot is not an admin
    later(bot, HOUR)
    lobby = lobby_message(bot, group)
    query = await bot.h.press(users[0], lobby, data=button_data(lobby, cb.START))
    await bot.settle()
    table = await bot.table(group)
    assert table is not None and table.game is None, "started with a stranger"
    assert table.player(joiner.id) is None and len(table.players) == 4
    assert bot.h.refused(query)
    assert member_checks(bot, users[1].id) == 1, "members seen by a press are not asked again"
    bot.h.assert_no_errors()


async def test_a_membership_change_is_forgotten_by_the_mini_app_too(bot: Bot) -> None:
    """A chat_member update tells the Mini App to ask Telegram again (its refusal lives
    30 s; a user who just joined the group should not wait for it)."""

    class Access:
        forgotten: ClassVar[list[tuple[int, int]]] = []

        def forget(self, chat_id: int, user_id: int) -> None:
            self.forgotten.append((chat_id, user_id))

    class Webapp:
        access = Access()

    bot.app.bot_data["webapp"] = Webapp()
    try:
        users = make_users(3)
        group = await open_game(bot, users, start=False)
        joiner = make_user("Joiner")
        bot.fake.chats[group.id].members.add(joiner.id)
        await bot.h.feed(bot.fake.remove_member(group.id, joiner.id))
        await bot.settle()
        assert Access.forgotten == [(group.id, joiner.id)]
        bot.h.assert_no_errors()
    finally:
        bot.app.bot_data.pop("webapp", None)
