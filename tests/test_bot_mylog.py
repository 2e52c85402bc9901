"""/mylog, the "What I know" button and the role message's cheat sheet, through the real
Application and the fake Bot API."""

from __future__ import annotations

import re

import pytest

from shbot.bot import callbacks as cb
from shbot.bot import render as r
from shbot.bot.render import mylog as rm
from shbot.engine import FASCIST, HITLER, LIBERAL, Kind
from shbot.i18n import translator
from shbot.table import FSI, PDI, Table
from shbot.table.knowledge import read
from tests.botplay import (
    EN,
    Bot,
    Turn,
    button_data,
    check_game,
    find_seed,
    open_game,
    play_planned,
    secret_hand_strings,
)
from tests.harness import FakeUser, make_users

#: Team sizes and Fascist tracks of RULES-SPEC R1 and R9, written out independently.
TEAMS = {5: (3, 1), 6: (4, 1), 7: (4, 2), 8: (5, 2), 9: (5, 3), 10: (6, 3)}
TRACKS = {
    5: "⬜ ⬜ 👁 💀 💀 🏁",
    6: "⬜ ⬜ 👁 💀 💀 🏁",
    7: "⬜ 🔍 🗳 💀 💀 🏁",
    8: "⬜ 🔍 🗳 💀 💀 🏁",
    9: "🔍 🔍 🗳 💀 💀 🏁",
    10: "🔍 🔍 🗳 💀 💀 🏁",
}


async def mylog(bot: Bot, user: FakeUser) -> str:
    """Send /mylog in private; the text of every message it brought, joined."""
    before = len(bot.fake.messages(user.id))
    await bot.h.command(user, user, "/mylog")
    await bot.settle()
    new = bot.fake.messages(user.id)[before:]
    assert new, "no answer to /mylog"
    return "\n".join(m.text for m in new)


def role_message(bot: Bot, user: FakeUser) -> str:
    texts = [m.text for m in bot.fake.messages(user.id) if m.text.startswith("🤫")]
    assert len(texts) == 1
    return texts[0]


async def test_mylog_shows_my_hand_and_never_another_players(bot: Bot) -> None:
    users = make_users(5)
    checked: list[int] = []

    async def after_first_session(turn: Turn) -> None:
        table = turn.table
        game = table.game
        assert game is not None
        if checked or game.liberal + game.fascist == 0:
            return
        entries = read(table.log)
        hand = next(e for e in entries if e.kind == Kind.PRESIDENT_HAND)
        got = next(e for e in entries if e.kind == Kind.CHANCELLOR_HAND)
        president, chancellor = hand.to[0], got.to[0]  # type: ignore[index]
        by_seat = [next(u for u in users if u.id == table.at(s).id) for s in range(game.n)]
        text = await mylog(bot, by_seat[president])
        assert EN._("🎩 You drew: {hand}.", hand=r.hand_text(EN, hand.data["policies"])) in text
        assert "🎩 You discarded a " in text
        assert "You received" not in text, "the President never saw the Chancellor's hand"
        text = await mylog(bot, by_seat[chancellor])
        assert EN._("👔 You received: {hand}.", hand=r.hand_text(EN, got.data["policies"])) in text
        assert "You drew" not in text and "👔 You enacted a " in text
        for seat in range(game.n):
            if seat in (president, chancellor):
                continue
            text = await mylog(bot, by_seat[seat])
            assert "You drew" not in text and "You received" not in text
            assert not [s for s in secret_hand_strings(EN) if s in text], text
            assert "📜 A " in text and "Ja! (" in text, "the public record is there"
        checked.append(president)

    played = await play_planned(
        bot,
        users,
        ["F", "L", "x", "F", "F", "F"],
        targets=["H"],
        hitler=3,
        before=after_first_session,
    )
    assert checked
    await check_game(bot, played)


def seat_users(table: Table, users: list[FakeUser]) -> list[FakeUser]:
    assert table.game is not None
    return [next(u for u in users if u.id == table.at(s).id) for s in range(table.game.n)]


async def test_a_fascist_knows_the_team_a_liberal_does_not(bot: Bot) -> None:
    users = make_users(7)
    group = await open_game(bot, users, seed=find_seed(7, hitler=2))
    table = await bot.table(group)
    assert table is not None and table.game is not None
    game, names = table.game, table.names()
    by_seat = seat_users(table, users)
    fascists = [s for s, role in enumerate(game.roles) if role == FASCIST]
    liberal = game.roles.index(LIBERAL)
    text = await mylog(bot, by_seat[fascists[0]])
    assert EN._("Hitler is {hitler}.", hitler=r.name(names, 2)) in text
    fellow = EN._("Your fellow Fascists: {names}.", names=r.name(names, fascists[1]))
    assert fellow in text
    text = await mylog(bot, by_seat[liberal])
    assert EN._("You do not know who the Fascists are.") in text
    assert "Hitler is" not in text and "fellow Fascists" not in text
    for seat in [*fascists, 2]:
        assert r.name(names, seat) not in text, "a Liberal learns no Fascist's name"
    # Hitler in a game of seven does not know the Fascists (R2.4).
    text = await mylog(bot, by_seat[game.roles.index(HITLER)])
    assert EN._("You do not know who the Fascists are, but they know who you are.") in text


async def test_mylog_in_a_group_points_to_the_private_chat(bot: Bot) -> None:
    users = make_users(5)
    group = await open_game(bot, users)
    sent = len(bot.fake.calls)
    privately = {u.id: len(bot.fake.messages(u.id)) for u in users}
    await bot.h.command(users[1], group, "/mylog")
    await bot.settle()
    answer = bot.h.last(group)
    assert answer.text == rm.mylog_in_group_text(EN)
    assert not re.search(r"Liberal|Fascist|Hitler|drew", answer.text)
    (button,) = answer.buttons()
    assert button["url"].endswith("?start=mylog")
    assert {u.id: len(bot.fake.messages(u.id)) for u in users} == privately
    assert len(bot.fake.calls) > sent
    # The link's /start mylog gives the log in private.
    await bot.h.command(users[1], users[1], "/start mylog")
    await bot.settle()
    assert bot.fake.last(users[1].id).text.startswith("📜")


async def test_what_i_know_button_and_back_link(bot: Bot) -> None:
    users = make_users(5)
    group = await open_game(bot, users)
    table = await bot.table(group)
    assert table is not None
    user = users[0]
    message = next(m for m in bot.fake.messages(user.id) if m.text.startswith("🤫"))
    back = [b for b in message.buttons() if "url" in b]
    assert len(back) == 1
    # Back to the game: its board, sent first (Round 1 reads top to bottom from it).
    assert back[0]["url"] == f"https://t.me/c/{str(group.id)[4:]}/{table.shown['board']}"
    before = len(bot.fake.messages(user.id))
    query = await bot.h.press(user, message, data=button_data(message, cb.MYLOG))
    await bot.settle()
    assert not bot.h.answer(query).show_alert
    new = bot.fake.messages(user.id)[before:]
    assert new and new[0].text.startswith("📜") and "🤫 Your secret role" in new[0].text


@pytest.mark.parametrize("players", sorted(TEAMS))
async def test_the_role_message_has_a_cheat_sheet(bot: Bot, players: int) -> None:
    users = make_users(players)
    await open_game(bot, users)
    liberals, fascists = TEAMS[players]
    for user in users:
        text = role_message(bot, user)
        assert f"📋 <b>Cheat sheet</b> · {players} players" in text
        assert f"Liberals: {liberals} · Fascists: {fascists} + Hitler" in text
        assert f"Fascist track: {TRACKS[players]}" in text


async def test_after_the_end_mylog_tells_the_whole_game(bot: Bot) -> None:
    """After the end, /mylog is first a five-line summary; its button brings the whole game."""
    users = make_users(5)
    played = await play_planned(bot, users, ["F", "L", "x", "F", "F", "F"], targets=["H"], hitler=3)
    game, names = played.game, played.table.names()
    user = played.users[0]
    summary = await mylog(bot, user)
    lines = summary.split("\n")
    assert len(lines) == 5, summary
    assert lines[0].startswith("📜 <b>Your game</b>")
    assert lines[1] == "🏁 <b>The Liberals win!</b> Hitler was executed."
    role_word = {LIBERAL: "Liberal", FASCIST: "Fascist", HITLER: "Hitler"}[game.roles[0]]
    assert lines[2] == f"You were <b>{role_word}</b>: you won.", lines[2]
    assert lines[3].startswith("Final tracks: 🔵 1/5 · 🔴 4/6")
    # Five players: one Fascist besides Hitler, named in the singular.
    assert lines[4].startswith(f"Hitler: {FSI}<b>{names[3]}</b>{PDI} · Fascist: ")
    assert "🏁 <b>The whole game</b>" not in summary
    message = bot.fake.messages(user.id)[-1]
    assert [b["text"] for b in message.buttons()] == ["📜 The whole game"]
    before = len(bot.fake.messages(user.id))
    query = await bot.h.press(user, message, data=message.buttons()[0]["callback_data"])
    await bot.settle()
    assert not bot.h.answer(query).show_alert
    text = "\n".join(m.text for m in bot.fake.messages(user.id)[before:])
    assert "🏁 <b>The whole game</b>" in text
    whole = text.split("🏁 <b>The whole game</b>")[1]
    for seat, role in enumerate(game.roles):
        role_word = {LIBERAL: "Liberal", FASCIST: "Fascist", HITLER: "Hitler"}[role]
        assert f"{FSI}{names[seat]}{PDI}: {role_word}" in whole
    assert "[private]" in whole, "the hands everybody drew are told once it is over"
    for page in bot.fake.messages(played.users[0].id)[-3:]:
        assert len(page.text) <= 4096


@pytest.mark.parametrize("lang", ["ja", "fr"])
async def test_mylog_speaks_the_players_language(bot: Bot, lang: str) -> None:
    users = make_users(5, language_code=lang)
    await open_game(bot, users)
    t = translator(lang)
    text = await mylog(bot, users[0])
    head = t._("📜 <b>What you know</b> in this game, {player}:", player="\0")
    assert all(part in text.split("\n", 1)[0] for part in head.split("\0")), text[:200]
    assert "What you know" not in text
    assert "Cheat sheet" not in role_message(bot, users[0])


def test_a_long_log_is_split_under_telegrams_limit() -> None:
    lines = [f"line {i} " + "x" * 90 for i in range(200)]
    pages = rm.pages(lines)
    assert len(pages) > 4 and all(len(p) <= 4096 for p in pages)
    assert "\n".join(pages).split("\n") == lines


async def test_a_basic_group_gets_a_way_back_by_its_name(bot: Bot) -> None:
    """Issue 24: a basic group (no -100 id) has no message links; the role message names
    the group instead, on a button whose alert says where the game is."""
    users = make_users(5)
    group = bot.h.group(-4242, "Board game night", creator=users[0], members=users[1:])
    assert group.type == "group"
    await open_game(bot, users, group=group)
    message = next(m for m in bot.fake.messages(users[1].id) if m.text.startswith("🤫"))
    assert not [b for b in message.buttons() if "url" in b], "no link into a basic group"
    back = [b for b in message.buttons() if b.get("text") == "↩️ The game: Board game night"]
    assert len(back) == 1, message.buttons()
    query = await bot.h.press(users[1], message, data=back[0]["callback_data"])
    await bot.settle()
    answer = bot.h.answer(query)
    assert answer.show_alert and "Board game night" in str(answer.text)
