"""🔁 Rematch on the end card, through the real Application and the fake Bot API."""

from __future__ import annotations

from shbot.bot import callbacks as cb
from shbot.bot.render import rolecard
from shbot.i18n import translator
from shbot.table import Table
from tests.botplay import EN, Bot, button_data, lobby_message, play_planned
from tests.fake_telegram import StoredMessage
from tests.harness import make_users

TOKENS = ["F", "L", "x", "F", "F", "F"]


def end_card(bot: Bot, group_id: int) -> StoredMessage:
    cards = [
        m
        for m in bot.fake.messages(group_id)
        if any(b.get("callback_data", "").endswith(":0:rm") for b in m.buttons())
    ]
    assert len(cards) == 1, "one end card, with one Rematch button"
    return cards[0]


async def test_rematch_invites_the_same_players_and_one_tap_each_joins(bot: Bot) -> None:
    users = make_users(5)
    played = await play_planned(bot, users, TOKENS, targets=["H"], hitler=3)
    group = played.group
    card = end_card(bot, group.id)
    assert card.buttons()[0]["text"] == EN._("🔁 Rematch")
    host = users[2]
    query = await bot.h.press(host, card, data=button_data(card, cb.REMATCH))
    await bot.settle()
    assert bot.h.answer(query).text == EN._("🔁 A new game is open: the same players are invited.")
    table = await bot.table(group)
    assert table is not None and table.game is None
    assert [p.id for p in table.players] == [host.id]
    assert sorted(p.id for p in table.invited) == sorted(u.id for u in users if u is not host)
    lobby = lobby_message(bot, group)
    assert "📨 Invited, one tap on Join to confirm:" in lobby.text
    for user in users:
        if user is not host:
            assert f"tg://user?id={user.id}" in lobby.text
    # A second press (stale, or someone else's at once) changes nothing.
    sends = bot.fake.group_sends(group.id)
    again = await bot.h.press(users[0], card, data=button_data(card, cb.REMATCH))
    await bot.settle()
    assert "already open" in (bot.h.answer(again).text or "")
    assert bot.fake.group_sends(group.id) == sends
    assert [p.id for p in (await bot.table(group) or table).players] == [host.id]
    # One tap on Join each, then the usual start.
    join = button_data(lobby, cb.JOIN)
    for user in users:
        if user is not host:
            await bot.h.press(user, lobby, data=join)
            await bot.settle()
    lobby = lobby_message(bot, group)
    assert "Invited" not in lobby.text
    await bot.h.press(host, lobby, data=button_data(lobby, cb.START))
    await bot.settle()
    table = await bot.table(group)
    assert table is not None and table.game is not None and table.game.n == 5
    # The old card while the rematch runs: a toast, nothing else.
    late = await bot.h.press(users[4], card, data=button_data(card, cb.REMATCH))
    assert "already open" in (bot.h.answer(late).text or "")
    bot.h.assert_no_errors()


async def test_a_rematch_of_another_game_is_refused(bot: Bot) -> None:
    users = make_users(5)
    played = await play_planned(bot, users, TOKENS, targets=["H"], hitler=3)
    card = end_card(bot, played.group.id)
    query = await bot.h.press_raw(
        users[0], played.group.id, card.message_id, cb.game_data("abcd1234", 0, cb.REMATCH)
    )
    assert bot.h.answer(query).text == EN._("This rematch is no longer offered.")
    assert await bot.table(played.group) is None, "no lobby was opened"
    bot.h.assert_no_errors()


def test_rematch_words_exist_in_every_language() -> None:
    table = Table(gid="abcd1234", host=1, created=0.0)
    for lang, label in (("ja", "🔁 再戦"), ("fr", "🔁 Revanche")):
        t = translator(lang)
        assert rolecard.rematch_keyboard(t, table).inline_keyboard[0][0].text == label
        toast = t._("🔁 A new game is open: the same players are invited.")
        assert toast != EN._("🔁 A new game is open: the same players are invited.")
