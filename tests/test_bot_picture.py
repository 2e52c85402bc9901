"""The board picture through the real Application and the fake Bot API: a photo whose
caption is the localized text board, kept current by editMessageMedia within the group's
budget, posted again by /board; the text style as before; the choice in /settings."""

from __future__ import annotations

import io
import itertools

import pytest
from PIL import Image

from shbot.bot import render as r
from shbot.bot.delivery import media
from shbot.bot.render import picture
from shbot.i18n import Translator, translator
from shbot.storage import Store
from shbot.table import lobby as table_lobby
from shbot.table.model import Table
from tests.botplay import (
    EN,
    Bot,
    check_game,
    open_game,
    play_planned,
    running_bot,
)
from tests.fake_telegram import NOT_MODIFIED
from tests.harness import make_user, make_users
from tests.test_bot_settings import open_menu, settings_button

NINE = {"tokens": ["F", "F", "F", "F", "L", "F"], "targets": [1, 2, 3, 4, "H"], "hitler": 7}


def assert_board_shows(bot: Bot, group_id: int, table: Table, t: Translator = EN) -> None:
    """The board message is a photo of the table's state with its caption."""
    assert table.game is not None
    board = bot.fake.message(group_id, table.shown["board"])
    assert board.photo is not None and board.image is not None
    assert board.image == picture.render(picture.facts(table.game.public_view(), table.names()))
    assert board.text == media.board_caption(t, table)
    image = Image.open(io.BytesIO(board.image))
    assert (image.format, image.size, image.mode) == ("PNG", (800, 560), "P")
    assert board.photo[-1]["file_size"] == len(board.image) < 100 * 1024


async def test_picture_game_ends_with_the_final_board(bot: Bot) -> None:
    """Nine players, every power: one photo, edited in place when policies, the tracker or
    the seats change while it is on screen (no newer round's message under it); at the end
    it shows the final state, without buttons; no secret in a caption."""
    users = make_users(9)
    played = await play_planned(bot, users, **NINE)  # type: ignore[arg-type]
    await check_game(bot, played)  # includes: captions keep every secret until the end
    group, table = played.group.id, played.table
    sends = bot.fake.calls_to("sendPhoto", group)
    edits = bot.fake.calls_to("editMessageMedia", group)
    assert len(sends) == 1, "one board photo, kept by edits"
    # Edited while Round 1's message is the only one under it, then at the end: once a
    # newer round's message stands under it, that message's glance line tells the changes.
    assert 1 <= len(edits) <= 2, len(edits)
    assert all(c.params["message_id"] == table.shown["board"] for c in edits)
    assert_board_shows(bot, group, table)
    board = bot.fake.message(group, table.shown["board"])
    assert board.buttons() == []
    # the final picture: roles by colour (its caption says which), no government, no marks
    final = picture.facts(table.game.public_view(), table.names())
    assert (final.liberal, final.fascist, final.president, final.term_limited) == (1, 5, -1, ())
    assert final.roles == tuple(table.game.roles)
    assert "⚫ Hitler" in board.plain_text and "⭐" not in board.plain_text
    # The same image is never uploaded twice in a row: an unchanged board costs no call.
    images = board.images
    assert len(images) == len(edits) + 1
    assert all(a != b for a, b in itertools.pairwise(images))
    texts = bot.fake.calls_to("editMessageText", group, ok=None)
    assert all(c.params["message_id"] != table.shown["board"] for c in texts)


async def test_text_style_is_todays_text_board(store: Store) -> None:
    """Chosen in /settings before the game: the board is the text message, as before."""
    async with running_bot(store) as bot:
        users = make_users(7)
        admin = users[0]
        group = bot.h.group(creator=admin, members=users[1:])
        menu = await open_menu(bot, admin, group)
        assert "🖼 Board: a picture" in menu.plain_text
        await bot.h.press(admin, menu, data=settings_button(menu, "bt"))
        await bot.settle()
        assert (await store.get_group(group.id))["board"] == "text"
        assert "🖼 Board: text" in bot.fake.message(admin.id, menu.message_id).plain_text
        played = await play_planned(
            bot, users, ["L", "F", "F", "L", "F", "L", "L", "L"], hitler=2, group=group
        )
        await check_game(bot, played)
        assert bot.fake.calls_to("sendPhoto", ok=None) == []
        assert bot.fake.calls_to("editMessageMedia", ok=None) == []
        board = bot.fake.message(group.id, played.table.shown["board"])
        assert board.photo is None
        assert board.text == r.board_text(EN, played.table)


async def test_board_command_posts_the_photo_again(bot: Bot) -> None:
    users = make_users(5)
    group = await open_game(bot, users)
    table = await bot.table(group)
    assert table is not None
    old = table.shown["board"]
    await bot.h.command(users[2], group, "/board")
    await bot.settle()
    new = bot.h.last(group)
    assert new.message_id > old and new.photo is not None
    assert bot.fake.calls_to("sendPhoto", group.id)[-1].result["message_id"] == new.message_id
    table = await bot.table(group)
    assert table is not None and table.shown["board"] == new.message_id
    assert_board_shows(bot, group.id, table)
    assert new.image == bot.fake.message(group.id, old).image, "the same state: the same image"


async def test_style_changed_mid_game_posts_the_board_in_that_style(store: Store) -> None:
    async with running_bot(store) as bot:
        users = make_users(5)
        admin = users[0]
        group = bot.h.group(creator=admin, members=users[1:])
        menu = await open_menu(bot, admin, group)
        await open_game(bot, users, group=group)
        table = await bot.table(group)
        assert table is not None
        photo_id = table.shown["board"]
        await bot.h.press(admin, menu, data=settings_button(menu, "bt"))
        await bot.settle()
        table = await bot.table(group)
        assert table is not None and table.options["board"] == "text"
        text_board = bot.fake.message(group.id, table.shown["board"])
        assert text_board.message_id > photo_id and text_board.photo is None
        assert text_board.text == r.board_text(EN, table)
        await bot.h.press(admin, menu, data=settings_button(menu, "bp"))
        await bot.settle()
        table = await bot.table(group)
        assert table is not None and table.shown["board"] > text_board.message_id
        assert_board_shows(bot, group.id, table)
        bot.h.assert_no_errors()


async def test_long_names_keep_the_caption_within_telegram_limit(bot: Bot) -> None:
    """Ten players with the longest names: the caption fits in 1,024 characters (the fake
    refuses longer ones), names shortened if need be."""
    users = [make_user(f"{i}" + "Ŵ" * 40, last_name="&<b>" * 8) for i in range(10)]
    group = await open_game(bot, users)
    table = await bot.table(group)
    assert table is not None
    board = bot.fake.message(group.id, table.shown["board"])
    assert board.photo is not None
    assert len(board.plain_text) <= 1024
    assert media.visible_length(media.board_caption(EN, table)) <= 1024
    assert "📋 Board" in board.plain_text
    bot.h.assert_no_errors()


@pytest.mark.looptime
async def test_picture_game_stays_within_the_group_budget(store: Store) -> None:
    """With the rate limiter: ≤ 20 group calls in any 60 s, board edits coalesced."""
    async with running_bot(store, limiter=True) as bot:
        users = make_users(9)
        played = await play_planned(bot, users, fast=True, **NINE)  # type: ignore[arg-type]
        await check_game(bot, played)
        group = played.group.id
        assert bot.fake.max_calls_in_window(group, 60) <= 20
        assert_board_shows(bot, group, played.table)
        print(
            "picture game, 9 players: group sends",
            bot.fake.group_sends(group),
            "edits",
            bot.fake.group_edits(group),
            "board edits",
            len(bot.fake.calls_to("editMessageMedia", group)),
        )


@pytest.mark.parametrize("lang", ["ja", "fr"])
async def test_caption_in_the_group_language(store: Store, lang: str) -> None:
    async with running_bot(store) as bot:
        users = make_users(5)
        group = bot.h.group(creator=users[0], members=users[1:])
        await store.update_group(group.id, {"lang": lang})
        group = await open_game(bot, users, group=group)
        table = await bot.table(group)
        assert table is not None
        board = bot.fake.message(group.id, table.shown["board"])
        assert board.photo is not None
        assert board.text == media.board_caption(translator(lang), table)
        assert "Board" not in board.plain_text and "Draw pile" not in board.plain_text


async def test_unchanged_media_edit_and_a_deleted_board(bot: Bot) -> None:
    """A restarted bot does not know what the board shows: its edit to the same picture
    gets "message is not modified", which is success. A board deleted in the group is
    sent anew at its next change, as the text board is."""
    users = make_users(5)
    group = await open_game(bot, users)
    table = await bot.table(group)
    assert table is not None
    board_id = table.shown["board"]
    bot.svc.outbox.sender.content.clear()  # what a new process knows of the messages shown
    await bot.svc.commit.run(group.id, table_lobby.redraw)  # as a language change does
    await bot.settle()
    refused = bot.fake.calls_to("editMessageMedia", group.id, ok=False)
    assert [c.description for c in refused] == [NOT_MODIFIED]
    table = await bot.table(group)
    assert table is not None and table.shown["board"] == board_id
    assert len(bot.fake.calls_to("editMessageMedia", group.id, ok=None)) == 1, "not retried"
    bot.fake.message(group.id, board_id).deleted = True
    await bot.h.command(users[0], group, "/lang fr")  # the host may: no game step yet
    await bot.settle()
    table = await bot.table(group)
    assert table is not None and table.shown["board"] > board_id
    assert_board_shows(bot, group.id, table, translator("fr"))
    bot.h.assert_no_errors()
