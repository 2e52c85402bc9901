"""The settings menu reaches Telegram through the outbox like every message (virtual time):
paced with the chat's other messages, a 429 waited out instead of an unhandled error, the
edit that shows a new choice never dropped. The few calls still made beside the outbox (a
lost game's buttons, the practice game's first words) count in their chat's window and
pause it on a 429."""

from __future__ import annotations

import asyncio

import pytest

from shbot.bot.render import settings as rs
from shbot.storage import Store
from tests.botplay import Bot, running_bot
from tests.fake_telegram import FakeChat
from tests.harness import make_users
from tests.test_bot_forged import ANONYMOUS, sent_as
from tests.test_bot_settings import settings_button


async def settled(bot: Bot) -> None:
    await bot.h.settle()
    await bot.settle()


async def group_menu(bot: Bot, group: FakeChat) -> object:
    """/settings posted by the group's anonymous admin: the menu opens in the group."""
    here = {"id": group.id, "type": "supergroup", "title": group.title}
    await bot.h.feed(sent_as(bot, group, ANONYMOUS, "/settings", as_chat=here))
    await settled(bot)
    menu = bot.h.last(group)
    assert menu.plain_text.startswith("⚙️ Settings of"), menu.plain_text
    return menu


def chosen(bot: Bot, chat_id: int, message_id: int, label: str) -> bool:
    """Whether the menu marks ``label`` as the current choice."""
    buttons = bot.fake.message(chat_id, message_id).buttons()
    return any(b.get("text") == f"✅ {label}" for b in buttons)


@pytest.mark.looptime
async def test_a_429_on_a_group_menus_edit_is_waited_out_and_the_edit_arrives(
    store: Store,
) -> None:
    """The edit of a settings menu in a group earns "retry after 20": no handler error (it
    was two tracebacks), the menu shows the choice once the wait is over (it was dropped),
    and the group's next message waits too instead of earning a 429 of its own."""
    async with running_bot(store, limiter=True) as bot:
        admin, member = make_users(2)
        group = bot.h.group(creator=admin, members=[member])
        menu = await group_menu(bot, group)
        mid = menu.message_id  # type: ignore[attr-defined]
        bot.fake.fail_next(method="editMessageText", chat_id=group.id, retry_after=20)
        query = await bot.h.press(admin, menu, text="Rebalanced: on")  # type: ignore[arg-type]
        await bot.h.command(admin, group, "/newgame", wait=False)
        await settled(bot)
        assert bot.h.answer(query).text == "Saved."
        assert (await store.get_group(group.id)).get("rebalanced") is True
        bot.h.assert_no_errors()
        assert chosen(bot, group.id, mid, "Rebalanced: on"), "the edit was dropped"
        refused = [c for c in bot.fake.calls if c.status == 429]
        assert len(refused) == 1, [(c.method, c.time) for c in refused]
        after = [c for c in bot.fake.calls if c.chat_id == group.id and c.time > refused[0].time]
        assert after and all(c.time >= refused[0].time + 20 for c in after)
        assert bot.fake.max_calls_in_window(group.id, 60) <= 20


@pytest.mark.looptime
async def test_presses_on_a_group_menu_are_paced_with_the_group(store: Store) -> None:
    """An admin switches an option 24 times in a row on the group's menu: every edit is counted in
    the group's window (the edits went straight to Telegram, outside it), the newest choice
    is shown, and Telegram's 20 a minute hold."""
    async with running_bot(store, limiter=True) as bot:
        bot.fake.strict_limits = True
        admin, member = make_users(2)
        group = bot.h.group(creator=admin, members=[member])
        menu = await group_menu(bot, group)
        mid = menu.message_id  # type: ignore[attr-defined]
        on = settings_button(menu, rs.REBALANCED_CODES[True])
        off = settings_button(menu, rs.REBALANCED_CODES[False])
        for i in range(24):
            await bot.h.press_raw(admin, group.id, mid, on if i % 2 else off)
        await settled(bot)
        bot.h.assert_no_errors()
        assert not [c for c in bot.fake.calls if c.status == 429]
        assert chosen(bot, group.id, mid, "Rebalanced: on")
        assert bot.fake.max_calls_in_window(group.id, 60) <= 20


@pytest.mark.looptime
async def test_a_429_on_the_private_menu_is_waited_out(store: Store) -> None:
    """/settings in the group, Telegram answers the private menu with "retry after 5": no
    handler error, the menu arrives once it may."""
    async with running_bot(store, limiter=True) as bot:
        admin, member = make_users(2)
        group = bot.h.group(creator=admin, members=[member])
        await bot.h.command(admin, admin, "/start")
        await settled(bot)
        bot.fake.fail_next(method="sendMessage", chat_id=admin.id, retry_after=5)
        await bot.h.command(admin, group, "/settings")
        await settled(bot)
        bot.h.assert_no_errors()
        assert "Settings of" in bot.h.last(admin).text
        assert "sent you the settings" in bot.h.last(group).text


@pytest.mark.looptime
async def test_a_lost_games_buttons_come_off_within_the_groups_window(store: Store) -> None:
    """Taking a lost game's buttons off (a call beside the outbox): a 429 pauses the group
    as the outbox's own would (it was swallowed, and the next message earned one too); with
    the group's window full, no call at all."""
    async with running_bot(store, limiter=True) as bot:
        admin, member = make_users(2)
        group = bot.h.group(creator=admin, members=[member])
        await bot.h.command(admin, group, "/newgame")
        await settled(bot)
        lobby = bot.h.last(group)
        pacer, loop = bot.svc.outbox.pacer, asyncio.get_running_loop()
        bot.fake.fail_next(method="editMessageReplyMarkup", chat_id=group.id, retry_after=30)
        await bot.svc._drop_buttons(group.id, lobby.message_id)
        assert pacer.ready_at(group.id) >= loop.time() + 29, "the group was not paused"
        await asyncio.sleep(61)
        for _ in range(20):
            pacer.take(group.id)
        calls = len(bot.fake.calls)
        await bot.svc._drop_buttons(group.id, lobby.message_id)
        assert len(bot.fake.calls) == calls, "a call beyond the group's window"


@pytest.mark.looptime
async def test_a_429_on_the_practice_explanation_pauses_the_chat(store: Store) -> None:
    """/practice explains itself with a direct call; Telegram answers "retry after 5": the
    outbox sends it once the wait is over (it sent it again at once, into the same 429)."""
    async with running_bot(store, limiter=True) as bot:
        (user,) = make_users(1)
        await bot.h.command(user, user, "/start")
        await settled(bot)
        bot.fake.fail_next(method="sendMessage", chat_id=user.id, retry_after=5)
        await bot.h.command(user, user, "/practice 5")
        await settled(bot)
        bot.h.assert_no_errors()
        refused = [c for c in bot.fake.calls if c.status == 429]
        assert len(refused) == 1
        later = [c for c in bot.fake.calls if c.chat_id == user.id and c.time > refused[0].time]
        assert later and all(c.time >= refused[0].time + 5 for c in later), [
            (c.method, c.time - refused[0].time) for c in later
        ]
        assert any("Practice game" in str(c.params.get("text")) for c in later)
