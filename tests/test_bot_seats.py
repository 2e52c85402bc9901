"""Computer players at the table, through the real Application and the fake Bot API:
filling a lobby (/addbot, the lobby buttons, their limits), games where computers act on
their own through their jobs, and the secrets they must keep."""

from __future__ import annotations

import re

import pytest

from shbot.bot import callbacks as cb
from shbot.bot import render as r
from shbot.engine.claims import Claim, ClaimKind
from shbot.i18n import translator
from shbot.storage import Store
from shbot.table import seats
from tests.botplay import (
    Bot,
    button_data,
    check_calls_valid,
    check_group_keeps_secrets,
    group_calls,
    lobby_message,
    open_game,
    running_bot,
    secret_hand_strings,
    split_at_game_over,
)
from tests.botrestart import StoreFactory, reopen, restartable_bot
from tests.fake_telegram import FakeChat, StoredMessage
from tests.harness import FakeUser, make_users, refused
from tests.seatplay import play_with_computers, robot_jobs, slow_computers
from tests.test_bot_settings import open_menu, settings_button
from tests.test_bot_timers import fire

__all__ = ["reopen"]  # the fixture, imported for this module's tests

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
        # Computer players talk like people: after their sessions they claimed what they saw,
        # and the group read it in the round messages and on the end card.
        said = [Claim.from_list(c) for c in final.talk.get("claims", {}).values()]
        spoken = [c for c in said if final.at(c.seat).id < 0 and c.kind is not ClaimKind.NONE]
        assert spoken, f"no computer claim in {said}"
        assert any("🗣" in t and "🤖" in t for t in texts), "no computer claim in the group"
        assert "claimed" in over
        # Per-user statistics count only people; the group counts the game.
        stats = await store.group_stats(group.id)
        assert stats["games"] == 1
        assert all(p["user_id"] > 0 for p in stats["players"])
        assert (await store.user_stats(people[0].id))["games"] == 1
        # /history of the last game names the computer seats as such.
        await bot.h.command(people[0], group, "/history")
        await bot.settle()
        assert "🤖 Alice" in bot.h.last(group).text
        bot.h.assert_no_errors()


async def test_addbot_limits_and_refusals(store: Store) -> None:
    async with running_bot(store) as bot:
        people = make_users(2)
        group = await lobby_with_computers(bot, people, 9)
        table = await bot.table(group)
        assert table is not None and len(table.players) == seats.MAX_SEATS  # 2 + 8: full
        # /addbot that worked costs no bubble of its own: the lobby's edit shows the seats.
        replies = re.compile(r"\d+ computer players? joined")  # /addbot's own reply
        assert not [m for m in bot.fake.messages(group.id) if replies.search(m.text)]
        await bot.h.command(people[0], group, "/addbot")
        await bot.settle()
        assert bot.h.last(group).text == EN._("The game is full (10 players).")
        # Only the host (or an admin) adds or removes computer players.
        lobby = lobby_message(bot, group)
        query = await bot.h.press(people[1], lobby, data=button_data(lobby, cb.REMOVE_BOT))
        await bot.settle()
        answer = bot.h.answer(query)
        assert refused(answer) and "Only the host" in str(answer.text)
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


async def test_a_restart_with_a_computer_to_act_resumes_and_finishes(
    reopen: StoreFactory,
) -> None:
    async with restartable_bot(reopen) as (restarts, bot):
        people = make_users(1)
        group = await lobby_with_computers(bot, people, 6, seed=9)
        lobby = lobby_message(bot, group)
        await bot.h.press(people[0], lobby, data=button_data(lobby, cb.START))
        await bot.settle()
        assert robot_jobs(bot, group.id)
        job = robot_jobs(bot, group.id)[0]  # one computer acts, others still have to
        job.schedule_removal()
        await job.run(bot.app)
        await bot.settle()
        before = await bot.table(group)
        assert before is not None and seats.pending(before)
        await restarts.restart(bot, crash=True)
        slow_computers(bot)
        assert robot_jobs(bot, group.id), "the restart did not arm the computer moves again"
        final = await play_with_computers(bot, group, people, seed=3)
        assert final.game is not None and final.game.is_over
        check_group_keeps_secrets(bot.fake, group.id)
        assert sent_to(bot) <= {group.id, people[0].id}
        restarts.assert_no_errors(bot)


def seatback_message(bot: Bot, user: FakeUser) -> StoredMessage:
    for message in reversed(bot.h.private_messages(user)):
        for button in message.buttons():
            press = cb.parse(button.get("callback_data", ""))
            if isinstance(press, cb.GamePress) and press.op == cb.TAKE_BACK:
                return message
    raise AssertionError(f"no take-back button for {user.full_name}")


async def test_two_missed_deadlines_bring_a_computer_and_the_person_takes_the_seat_back(
    store: Store,
) -> None:
    async with running_bot(store, timers="short") as bot:
        slow_computers(bot)
        people = make_users(5)
        group = await open_game(bot, people, seed=4)
        table = await bot.table(group)
        assert table is not None and table.game is not None
        absent = next(u for u in people if u.id == table.at(table.game.president).id)
        for _ in range(2):  # the President misses the nomination, then the vote
            assert await fire(bot, "deadline", group.id)
        table = await bot.table(group)
        assert table is not None and table.standins == [absent.id]
        line = EN._(
            "🤖 A computer player now plays for {name}, who missed two deadlines in a row.",
            name=f"\u2068{absent.full_name}\u2069",
        )
        assert any(m.text == line for m in bot.fake.messages(group.id)), "no stand-in line"
        message = seatback_message(bot, absent)
        # The computer plays for the seat whenever it must act; the game goes on.
        seat = table.seat_of(absent.id)
        for _ in range(10):
            mine = [j for j in robot_jobs(bot, group.id) if j.name.endswith(f":{seat}")]
            if mine:
                break
            assert await fire(bot, "deadline", group.id)
        else:
            raise AssertionError("the computer never had to act for the absent seat")
        before = await bot.table(group)
        assert before is not None and before.game is not None
        mine[0].schedule_removal()
        await mine[0].run(bot.app)
        await bot.settle()
        after = await bot.table(group)
        assert after is not None and after.game is not None
        assert after.step > before.step or after.game.votes[seat] >= 0, "it did not act"
        # /start in private while a computer plays for them: the take-back button again
        # (the first one may never have reached them).
        sent = len(bot.fake.messages(absent.id))
        await bot.h.command(absent, absent, "/start")
        await bot.settle()
        again = bot.fake.messages(absent.id)[sent:]
        assert any(
            str(b.get("callback_data", "")).endswith(f":{cb.TAKE_BACK}")
            for m in again
            for b in m.buttons()
        ), [m.text for m in again]
        # The person is back: one press in private.
        query = await bot.h.press(absent, message, data=button_data(message, cb.TAKE_BACK))
        await bot.settle()
        assert bot.h.answer(query).text == EN._("Welcome back: you play your seat again.")
        table = await bot.table(group)
        assert table is not None and absent.id not in table.standins
        back = EN._("🙋 {name} plays their seat again.", name=f"\u2068{absent.full_name}\u2069")
        assert bot.h.last(group).text == back or any(
            m.text == back for m in bot.fake.messages(group.id)
        )
        assert all(table.at(s).id != absent.id for s in seats.pending(table))
        query = await bot.h.press(absent, message, data=button_data(message, cb.TAKE_BACK))
        await bot.settle()
        assert bot.h.answer(query).text == EN._("You are playing your seat yourself already.")
        check_calls_valid(bot.fake)
        bot.h.assert_no_errors()


async def test_leave_in_a_running_game_hands_the_seat_to_a_computer(store: Store) -> None:
    async with running_bot(store) as bot:
        slow_computers(bot)
        people = make_users(5)
        group = await open_game(bot, people, seed=6)
        await bot.h.command(people[2], group, "/leave")
        await bot.settle()
        table = await bot.table(group)
        assert table is not None and table.standins == [people[2].id]
        line = EN._(
            "🤖 A computer player now plays for {name}, who left the game.",
            name=f"\u2068{people[2].full_name}\u2069",
        )
        assert any(m.text == line for m in bot.fake.messages(group.id))
        seatback_message(bot, people[2])
        # Four people and the computer finish the game.
        final = await play_with_computers(bot, group, people[:2] + people[3:], seed=2)
        assert final.game is not None and final.game.is_over
        check_group_keeps_secrets(bot.fake, group.id)
        bot.h.assert_no_errors()


async def test_a_group_can_turn_stand_ins_off(store: Store) -> None:
    async with running_bot(store) as bot:
        people = make_users(5)
        group = await open_game(bot, people, seed=6)
        menu = await open_menu(bot, people[0], group)
        assert "A computer plays for an absent player: on" in menu.text
        await bot.h.press(people[0], menu, data=settings_button(menu, "b0"))
        await bot.settle()
        assert "A computer plays for an absent player: off" in bot.h.last(people[0]).text
        await bot.h.command(people[2], group, "/leave")
        await bot.settle()
        table = await bot.table(group)
        assert table is not None and table.standins == []
        refused = EN._("The game has already started; you cannot leave now.")
        assert bot.h.last(group).text == refused
        bot.h.assert_no_errors()


@pytest.mark.parametrize(
    ("lang", "names"),
    [("en", ["🤖 Alice", "🤖 Ben", "🤖 Clara"]), ("ja", ["🤖 さくら", "🤖 はると", "🤖 ゆい"])],
)
async def test_two_people_and_three_computers_play_to_the_end(
    store: Store, lang: str, names: list[str]
) -> None:
    """Issue 15: 2 people + 3 computers in a group, in English and Japanese, to the end."""
    t = translator(lang)
    async with running_bot(store) as bot:
        people = make_users(2, language_code=lang)
        group = await lobby_with_computers(bot, people, 3, seed=21)
        table = await bot.table(group)
        assert table is not None
        assert [p.name for p in table.players[2:]] == names
        lobby = lobby_message(bot, group)
        assert t._("🤖 Add a computer player") in str(lobby.buttons())
        await bot.h.press(people[0], lobby, data=button_data(lobby, cb.START))
        await bot.settle()
        final = await play_with_computers(bot, group, people, seed=4)
        assert final.game is not None and final.game.is_over
        check_group_keeps_secrets(bot.fake, group.id, t)
        # Hands, investigation results and role messages, in the group's words, never there.
        before, _ = split_at_game_over(group_calls(bot.fake, group.id), t)
        found = [
            r.investigation_text(t, final, seat, party)
            for seat in range(final.game.n)
            for party in ("liberal", "fascist")
        ]
        roles = [r.role_text(t, final, s, final.game.private_view(s)) for s in range(5)]
        secrets = [*secret_hand_strings(t), *found, *roles]
        for call in before:
            text = str(call.params.get("text", ""))
            assert not any(secret in text for secret in secrets), text
        assert sent_to(bot) <= {group.id, *(u.id for u in people)}
        check_calls_valid(bot.fake)
        bot.h.assert_no_errors()
