"""Computer seats at a table of people (issue 24): a computer never goes by a person's
name, in any language, and the group hears of a stand-in and of the take-back in order,
in the third person."""

from __future__ import annotations

import re

import pytest

from shbot.bot import callbacks as cb
from shbot.i18n import translator
from shbot.storage import Store
from shbot.table import naming
from tests.botplay import button_data, group_calls, lobby_message, open_game, running_bot
from tests.harness import make_user, make_users
from tests.seatplay import slow_computers
from tests.test_bot_seats import seatback_message

EN = translator("en")


@pytest.mark.parametrize(
    ("lang", "people"),
    [
        ("en", ["Alice", "Ben Smith", "clara"]),
        ("ja", ["さくら", "はると"]),
        ("fr", ["Chloe", "LÉA"]),  # no accent, other case: still the same name to a reader
    ],
)
async def test_computers_never_take_a_persons_name(
    store: Store, lang: str, people: list[str]
) -> None:
    async with running_bot(store) as bot:
        slow_computers(bot)
        users = [make_user(n, language_code=lang) for n in people]
        group = await open_game(bot, users, start=False)
        await bot.h.command(users[0], group, f"/addbot {10 - len(users)}")
        await bot.settle()
        table = await bot.table(group)
        assert table is not None and len(table.players) == 10
        computers = [p.name for p in table.players if p.id < 0]
        assert all(n.startswith("🤖 ") for n in computers)
        assert len(set(computers)) == len(computers)
        person_names = {naming.folded(n) for n in people} | {
            naming.folded(n).split()[0] for n in people
        }
        for name in computers:
            assert naming.folded(name) not in person_names, (name, people)
            assert naming.folded(name).split()[0] not in person_names, (name, people)
        bot.h.assert_no_errors()


async def test_a_person_joining_renames_a_computer_of_the_same_name(store: Store) -> None:
    async with running_bot(store) as bot:
        slow_computers(bot)
        host = make_users(1)
        group = await open_game(bot, host, start=False)
        await bot.h.command(host[0], group, "/addbot 3")
        await bot.settle()
        table = await bot.table(group)
        assert table is not None
        assert [p.name for p in table.players[1:]] == ["🤖 Alice", "🤖 Ben", "🤖 Clara"]
        ben = make_user("Ben")
        bot.fake.chats[group.id].members.add(ben.id)
        await bot.h.command(ben, ben, "/start")
        lobby = lobby_message(bot, group)
        await bot.h.press(ben, lobby, data=button_data(lobby, cb.JOIN))
        await bot.settle()
        table = await bot.table(group)
        assert table is not None
        names = [p.name for p in table.players]
        assert "Ben" in names and "🤖 Ben" not in names, names
        assert len({naming.folded(n) for n in names}) == len(names)
        assert "🤖 Ben" not in lobby_message(bot, group).text
        bot.h.assert_no_errors()


_SECOND_PERSON = re.compile(r"\b(you|your|yours)\b", re.IGNORECASE)


async def test_leave_and_take_back_are_told_in_order_in_the_third_person(store: Store) -> None:
    async with running_bot(store) as bot:
        slow_computers(bot)
        people = make_users(5)
        group = await open_game(bot, people, seed=6)
        before = len(group_calls(bot.fake, group.id))
        leaver = people[2]
        await bot.h.command(leaver, group, "/leave")
        await bot.settle()
        message = seatback_message(bot, leaver)
        query = await bot.h.press(leaver, message, data=button_data(message, cb.TAKE_BACK))
        await bot.settle()
        assert EN._("Welcome back") in str(bot.h.answer(query).text)  # in private: "you"
        name = f"\u2068{leaver.full_name}\u2069"
        took = EN._("🤖 A computer player now plays for {name}, who left the game.", name=name)
        back = EN._("🙋 {name} plays their seat again.", name=name)
        sent = [
            c.shown_text()
            for c in group_calls(bot.fake, group.id)[before:]
            if c.method == "sendMessage"
        ]
        assert [s for s in sent if s in (took, back)] == [took, back], sent
        for text in sent:
            assert not _SECOND_PERSON.search(text), text
        bot.h.assert_no_errors()
