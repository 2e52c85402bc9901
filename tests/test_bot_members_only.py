"""Who may join (issue 24): only members of the group, whether by the Join button, /join
or a join link (a forwarded link must not seat a stranger, who would get a role for a game
they cannot see). Membership is asked of Telegram once, directly, and remembered; anyone
else is told why, in private. Updates without a sender are ignored quietly."""

from __future__ import annotations

from shbot.bot import callbacks as cb
from tests.botplay import Bot, button_data, lobby_message, open_game
from tests.harness import make_user, make_users


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
