"""/settings (admins only, checked on every press), each setting's effect, /stats, /nextgame."""

from __future__ import annotations

from typing import Any

from shbot.bot import callbacks as cb
from shbot.bot.render import settings as rs
from shbot.storage import Store
from tests.botplay import Bot, RandomPlay, open_game, play, running_bot
from tests.harness import FakeUser, make_users


def settings_button(message: Any, code: str) -> str:
    for button in message.buttons():
        data = button.get("callback_data", "")
        press = cb.parse(data)
        if (
            isinstance(press, cb.FreePress)
            and press.op == cb.SETTINGS
            and press.arg.endswith("_" + code)
        ):
            return str(data)
    raise AssertionError(f"no settings button {code!r}: {message.buttons()}")


async def open_menu(bot: Bot, admin: FakeUser, group: Any) -> Any:
    await bot.h.command(admin, admin, "/start")
    await bot.h.command(admin, group, "/settings")
    await bot.settle()
    menu = bot.h.last(admin)
    assert "Settings of" in menu.text, menu.text
    return menu


async def test_only_admins_open_the_menu_and_every_press_checks_again(store: Store) -> None:
    async with running_bot(store) as bot:
        admin, member = make_users(2)
        group = bot.h.group(creator=admin, members=[member])
        await bot.h.command(member, member, "/start")
        await bot.h.command(member, group, "/settings")
        await bot.settle()
        assert "Only a group admin" in bot.h.last(group).text
        assert "Settings of" not in bot.h.last(member).text
        menu = await open_menu(bot, admin, group)
        assert "sent you the settings" in bot.h.last(group).text
        # Somebody else pressing the admin's button (forwarded menu, forged data): refused.
        data = settings_button(menu, rs.TIMER_CODES["long"])
        await bot.h.press_raw(member, admin.id, menu.message_id, data)
        assert "Only a group admin" in bot.h.alerts_for(member)[-1]
        assert (await store.get_group(group.id)).get("timers") is None
        # The admin loses their rights after opening the menu: refused too.
        bot.fake.set_admins(group.id, creator=None, admins=[])
        await bot.h.press(admin, menu, data=data)
        assert "Only a group admin" in bot.h.alerts_for(admin)[-1]
        assert (await store.get_group(group.id)).get("timers") is None
        bot.fake.set_admins(group.id, creator=admin.id)
        await bot.h.press(admin, menu, data=data)
        await bot.settle()
        assert (await store.get_group(group.id)).get("timers") == "long"
        edited = bot.fake.message(admin.id, menu.message_id)
        assert "✅ 5 min per step" in str(edited.buttons()), "the menu shows the new choice"


async def test_forged_settings_data_changes_nothing(store: Store) -> None:
    async with running_bot(store) as bot:
        admin, other = make_users(2)
        group = bot.h.group(creator=admin, members=[other])
        menu = await open_menu(bot, admin, group)
        before = await store.get_group(group.id)
        for data in ("@set:m1_t9", "@set:12345_t1", "@set:garbage", "@set:m" + "9" * 30):
            await bot.h.press_raw(admin, admin.id, menu.message_id, data)
        assert await store.get_group(group.id) == before
        assert all("not valid" in a for a in bot.h.alerts_for(admin)[-4:])


async def test_language_seats_variant_and_timers_take_effect(store: Store) -> None:
    async with running_bot(store) as bot:
        users = make_users(6)
        admin = users[0]
        group = bot.h.group(creator=admin, members=users[1:])
        menu = await open_menu(bot, admin, group)
        for code in ("ss", "r1", "vi", "t1"):
            await bot.h.press(admin, menu, data=settings_button(menu, code))
        await bot.settle()
        settings = await store.get_group(group.id)
        assert settings["shuffle_seats"] is True and settings["rebalanced"] is True
        assert settings["missing_votes"] == "ignore" and settings["timers"] == "short"
        await open_game(bot, users, group=group)
        table = await bot.table(group)
        assert table is not None and table.game is not None
        assert table.options["shuffle_seats"] and table.options["rebalanced"]
        assert table.game.fascist == 1, "rebalanced 6-player games start with a Fascist policy"
        assert table.options["timer"] == 60 and table.deadline is not None
        # Timers off mid-game: the current step loses its deadline at once.
        await bot.h.press(admin, menu, data=settings_button(menu, "t0"))
        await bot.settle()
        table = await bot.table(group)
        assert table is not None and table.deadline is None
        assert not [j for j in bot.app.job_queue.jobs() if j.name == f"deadline:{group.id}"]
        # Language mid-game: the board is re-rendered in Japanese.
        await bot.h.press(admin, menu, data=settings_button(menu, "lja"))
        await bot.settle()
        board = bot.fake.message(group.id, table.shown["board"])
        assert "ボード" in board.text and "大統領" in board.text, board.text


async def test_stats_count_complete_games(store: Store) -> None:
    async with running_bot(store) as bot:
        users = make_users(5)
        group = await open_game(bot, users, seed=21)
        played = await play(bot, group, users, RandomPlay(4))
        game = played.game
        assert game.is_over and game.winner is not None
        await bot.h.command(users[1], group, "/stats")
        await bot.settle()
        text = bot.h.last(group).text
        assert "1 game finished" in text
        side = "Liberals won 1" if game.winner.value == "liberal" else "Fascists won 1"
        assert side in text
        assert all(u.full_name in text for u in users), "every player is among the frequent ones"
        for user in users[:2]:
            await bot.h.command(user, user, "/stats")
            await bot.settle()
            mine = bot.h.last(user).text
            assert "1 game, " in mine and "By role" in mine
        stats = await store.group_stats(group.id)
        assert stats["games"] == 1 and sum(stats["wins"].values()) == 1


async def test_nextgame_tells_subscribers_once(store: Store) -> None:
    async with running_bot(store) as bot:
        host, fan, stranger = make_users(3)
        group = bot.h.group(creator=host, members=[fan, stranger])
        await bot.h.command(stranger, group, "/nextgame")  # never opened the private chat
        await bot.settle()
        assert "Open a private chat with me first" in bot.h.last(group).text
        await bot.h.command(fan, fan, "/start")
        await bot.h.command(fan, group, "/nextgame")
        await bot.settle()
        assert "I will tell you" in bot.h.last(group).text
        await bot.h.command(fan, group, "/nextgame")
        await bot.settle()
        assert "already on the list" in bot.h.last(group).text
        await bot.h.command(host, group, "/newgame")
        await bot.settle()
        told = [m for m in bot.h.private_messages(fan) if "A new game of Secret Hitler" in m.text]
        assert len(told) == 1
        await bot.h.command(host, group, "/cancelgame")
        await bot.settle()
        assert bot.h.last(group).buttons(), "cancel asks for confirmation"


async def test_settings_in_private_explains_where_to_send_it(store: Store) -> None:
    async with running_bot(store) as bot:
        (user,) = make_users(1)
        await bot.h.command(user, user, "/start")
        await bot.h.command(user, user, "/settings")
        await bot.settle()
        assert "Send /settings in your group" in bot.h.last(user).text


def test_timer_labels_show_the_durations() -> None:
    from shbot.i18n import translator

    t = translator("en")
    labels = [rs.timer_label(t, p) for p in rs.TIMER_CODES]
    assert labels == ["Off", "1 min per step", "2 min per step", "5 min per step"]
