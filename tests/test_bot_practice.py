"""/practice: one person against computer players in the private chat, to the end."""

from __future__ import annotations

from shbot.bot import render as r
from shbot.bot.render import seats as rs
from shbot.i18n import translator
from shbot.storage import Store
from tests.botplay import check_calls_valid, running_bot
from tests.harness import make_users
from tests.seatplay import play_with_computers, slow_computers

FR = translator("fr")
EN = translator("en")


async def test_a_practice_game_in_french_to_its_end(store: Store) -> None:
    async with running_bot(store) as bot:
        slow_computers(bot)
        (user,) = make_users(1, language_code="fr")
        await bot.h.command(user, user, "/start")
        await bot.h.command(user, user, "/practice 7")
        await bot.settle()
        table = await bot.table(user.id)
        assert table is not None and table.game is not None and table.game.n == 7
        assert table.options["timer"] == 0 and table.deadline is None
        names = [p.name for p in table.players if p.id < 0]
        assert len(names) == 6 and all(n.startswith("🤖 ") for n in names)
        assert "🤖 Camille" in names  # names of the person's language
        texts = [m.text for m in bot.fake.messages(user.id)]
        assert rs.practice_intro_text(FR, 6) in texts
        mark = rs.private_mark(FR)
        role = [t for t in texts if t.startswith(mark)]
        assert role and "rôle secret" in role[0].lower(), role
        final = await play_with_computers(bot, user.id, [user], seed=7)
        assert final.game is not None and final.game.is_over
        assert bot.h.last(user).text == r.game_over_text(FR, final)
        chats = {c.chat_id for c in bot.fake.calls if c.method.lower() == "sendmessage"}
        assert chats == {user.id}, "a practice game writes only to the person"
        # Nothing marked private is a public message, and private ones are all marked.
        for message in bot.fake.messages(user.id):
            if message.text.startswith(("👁", "🎩", "👔")):
                raise AssertionError(f"an unmarked private message: {message.text!r}")
        check_calls_valid(bot.fake)
        # Practice is no record: neither the person's statistics nor any group's count it.
        assert (await store.user_stats(user.id))["games"] == 0
        assert (await store.group_stats(user.id))["games"] == 0
        # The person can play again once it ended.
        await bot.h.command(user, user, "/practice 5")
        await bot.settle()
        again = await bot.table(user.id)
        assert again is not None and again.game is not None and again.game.n == 5
        await bot.h.command(user, user, "/cancelgame")
        await bot.settle()
        assert await bot.table(user.id) is None
        bot.h.assert_no_errors()


async def test_practice_refusals(store: Store) -> None:
    async with running_bot(store) as bot:
        users = make_users(2)
        group = bot.h.group(creator=users[0], members=users[1:])
        await bot.h.command(users[0], group, "/practice")
        await bot.settle()
        assert bot.h.last(group).text == rs.practice_in_private_text(EN)
        await bot.h.command(users[1], users[1], "/practice 11")
        await bot.settle()
        assert bot.h.last(users[1]).text == rs.practice_usage_text(EN)
        await bot.h.command(users[1], users[1], "/practice")
        await bot.settle()
        await bot.h.command(users[1], users[1], "/practice 5")
        await bot.settle()
        assert bot.h.last(users[1]).text == rs.practice_busy_text(EN, here=True)
        await bot.h.command(users[1], users[1], "/help")
        await bot.settle()
        assert "/practice" in bot.h.last(users[1]).text
        bot.h.assert_no_errors()


async def test_practice_explains_first_and_never_sends_you_to_a_group(store: Store) -> None:
    """Issue 24: the explanation is the first message of a practice game, and the role
    message says the game is played here, not "play in the group"."""
    async with running_bot(store) as bot:
        slow_computers(bot)
        (user,) = make_users(1)
        await bot.h.command(user, user, "/start")
        before = len(bot.fake.messages(user.id))
        await bot.h.command(user, user, "/practice 5")
        await bot.settle()
        texts = [m.text for m in bot.fake.messages(user.id)[before:]]
        assert texts[0] == rs.practice_intro_text(EN, 4), texts[:2]
        for text in texts:
            assert "in the group" not in text.lower(), text
        role = next(t for t in texts if "Your secret role" in t)
        assert "The whole game is played here" in role
        bot.h.assert_no_errors()
