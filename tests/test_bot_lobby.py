"""The lobby and the start, through the real Application over the fake Bot API.

One lobby message per game, edited in place; joining through the group's buttons, the
/join command or the deep link that opens the private chat; the refusals that keep a game
startable only with 5 to 10 reachable players; /cancelgame with its confirmation; one game
per group and one running game per person; the secret role each player gets at the start
(R2) and the "My role" button.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence

import pytest

from shbot.bot import callbacks as cb
from shbot.engine import FASCIST, HITLER, LIBERAL
from shbot.storage import Store
from tests.botplay import (
    Bot,
    button_data,
    find_seed,
    lobby_message,
    open_game,
    original_text,
    running_bot,
)
from tests.fake_telegram import FakeChat, StoredMessage
from tests.harness import FakeUser, html_user, make_user, make_users, refused

FSI, PDI = "\u2068", "\u2069"
LOBBY_TITLE = "<b>Secret Hitler</b> — a new game is open."


@pytest.fixture
async def bot(store: Store) -> AsyncIterator[Bot]:
    """The bot as ``run_polling`` starts it: ``post_init`` learns its username (for deep
    links), sets the menus and recovers games."""
    async with running_bot(store) as running:
        await running.app.post_init(running.app)
        yield running


async def snapshot(bot: Bot, group: FakeChat) -> tuple[int, object] | None:
    """The stored game, to prove that a refused action changed nothing."""
    await bot.settle()  # delivery bookkeeping of earlier changes is part of them
    record = await bot.record(group)
    return None if record is None else (record.version, record.data)


def lobby_messages(bot: Bot, group: FakeChat) -> list[StoredMessage]:
    """Every lobby message the group got."""
    return [m for m in bot.fake.messages(group.id) if original_text(m).startswith(LOBBY_TITLE)]


async def new_lobby(bot: Bot, host: FakeUser, members: Sequence[FakeUser] = ()) -> FakeChat:
    group = bot.h.group(creator=host, members=members)
    await bot.h.command(host, host, "/start")
    await bot.h.command(host, group, "/newgame")
    await bot.settle()
    return group


async def press_lobby(bot: Bot, user: FakeUser, group: FakeChat, op: str) -> str:
    lobby = lobby_message(bot, group)
    query = await bot.h.press(user, lobby, data=button_data(lobby, op))
    await bot.settle()
    return query


# ------------------------------------------------------------------------------ the lobby


async def test_one_lobby_message_edited_in_place(bot: Bot) -> None:
    h = bot.h
    host, ready, unready, third = make_users(4)
    group = await new_lobby(bot, host, [ready, unready, third])
    lobby = lobby_message(bot, group)
    assert "Players (1/10)" in lobby.plain_text
    assert f"Host: {FSI}Player1{PDI}" in lobby.plain_text

    await h.command(ready, ready, "/start")  # opened the private chat earlier
    query = await press_lobby(bot, ready, group, cb.JOIN)
    assert h.answer(query).text == "You joined the game."
    await h.command(unready, group, "/join")  # never opened the private chat
    await bot.settle()
    lobby = bot.fake.message(group.id, lobby.message_id)
    assert "Players (3/10)" in lobby.plain_text
    assert "2. ✅" in lobby.plain_text and "3. ⏳" in lobby.plain_text
    assert (
        f"Still to open a private chat with me, where I send the secret roles: {FSI}Player3{PDI}."
        in lobby.plain_text
    )

    await press_lobby(bot, third, group, cb.JOIN)
    await h.command(third, group, "/leave")
    await bot.settle()
    lobby = bot.fake.message(group.id, lobby.message_id)
    assert "Players (3/10)" in lobby.plain_text and "Player4" not in lobby.plain_text

    # The host leaves: the next player hosts.
    await press_lobby(bot, host, group, cb.LEAVE)
    lobby = bot.fake.message(group.id, lobby.message_id)
    assert f"Host: {FSI}Player2{PDI}" in lobby.plain_text
    assert "Players (2/10)" in lobby.plain_text

    assert lobby_messages(bot, group) == [lobby], "the lobby must be one message"
    assert lobby.edit_count >= 5
    h.assert_no_errors()


async def test_last_leaver_closes_the_lobby(bot: Bot) -> None:
    host, other = make_users(2)
    group = await new_lobby(bot, host, [other])
    await press_lobby(bot, other, group, cb.JOIN)
    await bot.h.command(other, group, "/leave")
    await bot.h.command(host, group, "/leave")
    await bot.settle()
    assert await bot.record(group) is None
    lobby = lobby_messages(bot, group)[0]
    assert lobby.buttons() == [] and "cancelled" in lobby.plain_text
    assert await bot.store.player_chat(host.id) is None
    # Leaving a game one is not in is refused.
    await bot.h.command(other, group, "/leave")
    assert "no open game" in bot.h.last(group).plain_text


async def test_join_button_for_an_unreachable_user_opens_the_deep_link(bot: Bot) -> None:
    h = bot.h
    host, newcomer = make_users(2)
    group = await new_lobby(bot, host, [newcomer])
    query = await press_lobby(bot, newcomer, group, cb.JOIN)
    answer = h.answer(query)
    prefix = f"https://t.me/{bot.fake.bot_username}?start="
    assert answer.url is not None and answer.url.startswith(prefix)
    lobby = lobby_message(bot, group)
    assert "2. ⏳" in lobby.plain_text
    # Telegram opens the private chat with "/start <payload>": one tap, and the player is in.
    await h.command(newcomer, newcomer, "/start " + answer.url.removeprefix(prefix))
    await bot.settle()
    assert "You are in the game" in h.last(newcomer).plain_text
    assert "2. ✅" in lobby_message(bot, group).plain_text
    assert "Still to open a private chat" not in lobby_message(bot, group).plain_text


async def test_lobby_deep_link_joins_in_one_tap(bot: Bot) -> None:
    """The lobby's "Open private chat" link both joins and makes the player reachable."""
    h = bot.h
    host, newcomer, joined = make_users(3)
    group = await new_lobby(bot, host, [newcomer, joined])
    await h.command(joined, group, "/join")
    await bot.settle()
    lobby = lobby_message(bot, group)
    url = lobby.button(text="💬 Open private chat")["url"]
    prefix = f"https://t.me/{bot.fake.bot_username}?start="
    assert url.startswith(prefix)
    payload = url.removeprefix(prefix)
    assert len(payload) <= 64 and payload.replace("_", "").replace("-", "").isalnum()

    await h.command(newcomer, newcomer, f"/start {payload}")  # not in the game yet
    await h.command(joined, joined, f"/start {payload}")  # joined, not reachable yet
    await bot.settle()
    for user in (newcomer, joined):
        assert "You are in the game" in h.last(user).plain_text
    lobby = lobby_message(bot, group)
    assert "Players (3/10)" in lobby.plain_text
    assert lobby.plain_text.count("✅") == 3, lobby.plain_text


async def test_plain_start_in_private_makes_a_lobby_player_reachable(bot: Bot) -> None:
    h = bot.h
    host, joined = make_users(2)
    group = await new_lobby(bot, host, [joined])
    await h.command(joined, group, "/join")
    await h.command(joined, joined, "/start")
    await bot.settle()
    assert "2. ✅" in lobby_message(bot, group).plain_text


async def test_start_refused_below_five_players(bot: Bot) -> None:
    h = bot.h
    users = make_users(4)
    group = await new_lobby(bot, users[0], users[1:])
    for user in users[1:]:
        await h.command(user, user, "/start")
        await press_lobby(bot, user, group, cb.JOIN)
    before = await snapshot(bot, group)
    # No Start button below five (issue 24); /startgame says why.
    assert not any(b.get("text") == "▶️ Start" for b in lobby_message(bot, group).buttons())
    await h.command(users[0], group, "/startgame")
    assert h.last(group).plain_text == "A game needs at least 5 players; 4 have joined."
    assert await snapshot(bot, group) == before


async def test_start_refused_while_someone_is_unreachable(bot: Bot) -> None:
    h = bot.h
    users = make_users(5)
    group = await new_lobby(bot, users[0], users[1:])
    for user in users[1:4]:
        await h.command(user, user, "/start")
        await press_lobby(bot, user, group, cb.JOIN)
    await h.command(users[4], group, "/join")  # never opened the private chat: 403 for us
    await bot.settle()
    before = await snapshot(bot, group)
    query = await press_lobby(bot, users[0], group, cb.START)
    answer = h.answer(query)
    assert refused(answer) and answer.text is not None
    assert answer.text.startswith("Waiting for Player5 to open a private chat with me")
    assert await snapshot(bot, group) == before
    assert bot.fake.count("sendMessage", users[4].id, ok=None) == 0, "nothing tried in private"
    # Once reachable, the same Start works.
    await h.command(users[4], users[4], "/start")
    await press_lobby(bot, users[0], group, cb.START)
    table = await bot.table(group)
    assert table is not None and table.game is not None
    h.assert_no_errors()


async def test_only_the_host_or_an_admin_starts(bot: Bot) -> None:
    h = bot.h
    users = make_users(6)
    admin = users[5]
    group = h.group(creator=users[0], admins=[admin], members=users[1:5])
    await open_game(bot, users[:5], group=group, start=False)
    before = await snapshot(bot, group)
    query = await press_lobby(bot, users[1], group, cb.START)
    assert h.refused(query)
    assert h.answer(query).text == "Only the host or a group admin can start the game."
    assert await snapshot(bot, group) == before
    await h.command(admin, group, "/startgame")  # an admin who does not play may start it
    await bot.settle()
    table = await bot.table(group)
    assert table is not None and table.game is not None


async def test_eleventh_player_is_refused(bot: Bot) -> None:
    h = bot.h
    users = make_users(11)
    group = h.group(creator=users[0], members=users[1:])
    await open_game(bot, users[:9], group=group, start=False)
    await h.command(users[9], group, "/join")  # unreachable in private: no auto-start
    await bot.settle()
    assert "Players (10/10)" in lobby_message(bot, group).plain_text
    await h.command(users[10], users[10], "/start")
    before = await snapshot(bot, group)
    query = await press_lobby(bot, users[10], group, cb.JOIN)
    assert h.refused(query) and h.answer(query).text == "The game is full (10 players)."
    await h.command(users[10], group, "/join")
    assert h.last(group).plain_text == "The game is full (10 players)."
    assert await snapshot(bot, group) == before
    assert await bot.store.player_chat(users[10].id) is None, "a refused player stays free"


# ------------------------------------------------------------------------------ cancel


async def test_cancel_needs_the_host_or_an_admin_and_a_confirmation(bot: Bot) -> None:
    h = bot.h
    users = make_users(5)
    admin, stranger = make_user("Admin"), make_user("Stranger")
    group = h.group(creator=users[0], admins=[admin], members=[*users[1:], stranger])
    await open_game(bot, users, group=group)
    running = await snapshot(bot, group)

    await h.command(users[1], group, "/cancelgame")
    assert h.last(group).plain_text == "Only the host or a group admin can cancel the game."
    await h.command(users[0], group, "/cancelgame")
    confirm = h.last(group)
    assert confirm.plain_text == "Cancel the current game? This cannot be undone."
    # Pressing the host's confirmation is still checked: others are refused.
    query = await h.press(stranger, confirm, text="Yes, cancel it")
    await bot.settle()
    assert h.refused(query)
    assert h.answer(query).text == "Only the host or a group admin can cancel the game."
    query = await h.press(users[3], confirm, text="No, keep playing")
    assert h.refused(query), "others cannot dismiss the host's question"
    assert bot.fake.message(group.id, confirm.message_id).buttons() == confirm.buttons()
    await h.press(users[0], confirm, text="No, keep playing")
    await bot.settle()
    confirm = bot.fake.message(group.id, confirm.message_id)
    assert confirm.plain_text == "The game goes on." and confirm.buttons() == []
    assert await snapshot(bot, group) == running

    await h.command(admin, group, "/cancelgame")  # a group admin who does not play
    confirm = h.last(group)
    query = await h.press(admin, confirm, text="Yes, cancel it")
    await bot.settle()
    assert not h.refused(query)
    assert await bot.record(group) is None
    confirm = bot.fake.message(group.id, confirm.message_id)
    assert confirm.plain_text == f"🛑 The game was cancelled by {FSI}Admin{PDI}."
    assert not confirm.buttons()
    for user in users:
        assert await bot.store.player_chat(user.id) is None, "players are free again"
    await h.command(users[1], group, "/cancelgame")
    assert h.last(group).plain_text == "There is no game to cancel."
    h.assert_no_errors()


async def test_cancel_a_lobby(bot: Bot) -> None:
    h = bot.h
    host, other = make_users(2)
    group = await new_lobby(bot, host, [other])
    await h.command(other, other, "/start")
    await press_lobby(bot, other, group, cb.JOIN)
    await h.command(host, group, "/cancelgame")
    await h.press(host, h.last(group), text="Yes, cancel it")
    await bot.settle()
    assert await bot.record(group) is None
    assert await bot.store.player_chat(other.id) is None
    await h.command(other, group, "/newgame")  # the group is free for a new game
    await bot.settle()
    assert await bot.record(group) is not None


# ------------------------------------------------------------------------------ one game


async def test_one_game_per_group(bot: Bot) -> None:
    h = bot.h
    host, other = make_users(2)
    group = await new_lobby(bot, host, [other])
    before = await snapshot(bot, group)
    await h.command(other, group, "/newgame")
    await bot.settle()
    assert h.last(group).plain_text.startswith("A game is already open in this group.")
    assert await snapshot(bot, group) == before
    assert len(lobby_messages(bot, group)) == 1
    assert await bot.store.player_chat(other.id) is None


async def test_a_player_of_a_running_game_cannot_join_another(bot: Bot) -> None:
    h = bot.h
    users = make_users(5)
    group_a = await open_game(bot, users)
    host_b = make_user("HostB")
    group_b = await new_lobby(bot, host_b, [users[1]])
    before = await snapshot(bot, group_b)
    query = await press_lobby(bot, users[1], group_b, cb.JOIN)
    assert h.refused(query)
    assert h.answer(query).text == "You are already playing in another group."
    await h.command(users[1], group_b, "/join")
    assert h.last(group_b).plain_text == "You are already playing in another group."
    # Nor open one there, nor join through a deep link.
    url = lobby_message(bot, group_b).button(text="💬 Open private chat")["url"]
    await h.command(users[1], users[1], "/start " + url.split("start=", 1)[1])
    await bot.settle()
    assert await snapshot(bot, group_b) == before
    assert await bot.store.player_chat(users[1].id) == group_a.id
    other_group = h.group(members=[users[2]])
    await h.command(users[2], other_group, "/newgame")
    assert h.last(other_group).plain_text == "You are already playing in another group."
    assert await bot.record(other_group) is None
    h.assert_no_errors()


# ------------------------------------------------------------------------------ roles


def fascist_names(names: list[str], roles: list[str]) -> list[str]:
    return [n for n, r in zip(names, roles, strict=True) if r == FASCIST]


@pytest.mark.parametrize("players", [5, 6, 7, 10])
async def test_each_role_message_spells_out_exactly_r2(bot: Bot, players: int) -> None:
    """R2: Fascists know each other and Hitler; Hitler knows the Fascist only at 5-6
    players; Liberals know nothing. Names are checked, not the wording alone."""
    users = make_users(players)
    group = await open_game(bot, users, seed=find_seed(players, start=players * 31))
    table = await bot.table(group)
    assert table is not None and table.game is not None
    roles = table.game.roles
    names = [u.first_name for u in users]  # join order is seat order
    hitler = names[roles.index(HITLER)]
    fascists = fascist_names(names, roles)
    for seat, user in enumerate(users):
        privates = bot.h.private_messages(user)
        texts = [m.plain_text for m in privates if m.plain_text.startswith("🤫")]
        assert len(texts) == 1, f"seat {seat} got {len(texts)} role messages"
        text = texts[0]
        others = [n for n in names if n != names[seat] and n in text]
        if roles[seat] == LIBERAL:
            assert "secret role in this game: Liberal" in text
            assert "You do not know who the Fascists are." in text
            assert others == [], f"a Liberal learns names: {text!r}"
        elif roles[seat] == FASCIST:
            assert "secret role in this game: Fascist" in text
            assert f"Hitler is {FSI}{hitler}{PDI}." in text
            fellows = [n for n in fascists if n != names[seat]]
            if fellows:
                listed = ", ".join(f"{FSI}{n}{PDI}" for n in fellows)
                assert f"Your fellow Fascists: {listed}." in text
            else:
                assert "You are the only ordinary Fascist." in text
            assert sorted(others) == sorted([hitler, *fellows]), text
        else:
            assert "secret role in this game: Hitler" in text
            if players <= 6:
                assert f"The Fascists are: {FSI}{fascists[0]}{PDI}." in text
                assert others == fascists
            else:
                assert "You do not know who the Fascists are, but they know who you are." in text
                assert others == [], f"Hitler learns names at {players} players: {text!r}"
    bot.h.assert_no_errors()


async def test_my_role_button_answers_privately(bot: Bot) -> None:
    h = bot.h
    users = make_users(5)
    stranger = make_user("Stranger")
    group = await open_game(bot, users, seed=find_seed(5, start=77))
    table = await bot.table(group)
    assert table is not None and table.game is not None
    board = bot.fake.message(group.id, table.shown["board"])
    group_calls = len(bot.fake.calls_to(chat_id=group.id, ok=None))
    expected = {LIBERAL: "You are Liberal.", FASCIST: "You are Fascist.", HITLER: "You are Hitler."}
    for seat, user in enumerate(users):
        query = await h.press(user, board, text="🂠 My role")
        answer = h.answer(query)
        assert refused(answer) and answer.text is not None
        assert answer.text.startswith(expected[table.game.roles[seat]]), answer.text
    query = await h.press(stranger, board, text="🂠 My role")
    assert h.refused(query)
    assert h.answer(query).text == "You are not playing in this game."
    await bot.settle()
    assert len(bot.fake.calls_to(chat_id=group.id, ok=None)) == group_calls, "nothing in public"
    h.assert_no_errors()


async def test_refusals_answered_as_messages_escape_names(bot: Bot) -> None:
    """A refusal to a command is a message in HTML mode: a name in it must be escaped."""
    h = bot.h
    users = [*make_users(4), html_user()]
    group = await new_lobby(bot, users[0], users[1:])
    for user in users[1:4]:
        await h.command(user, user, "/start")
        await press_lobby(bot, user, group, cb.JOIN)
    await h.command(users[4], group, "/join")
    await h.command(users[0], group, "/startgame")
    await bot.settle()
    assert bot.fake.failed_calls == []
    assert h.last(group).plain_text.startswith("Waiting for <b>&amp; </i><script> to open")
    h.assert_no_errors()


async def test_join_where_no_game_is_open_binds_nobody(bot: Bot) -> None:
    h = bot.h
    user, host = make_user("Wanderer"), make_user("Host")
    empty = h.group(members=[user])
    await h.command(user, user, "/start")
    await h.command(user, empty, "/join")
    assert h.last(empty).plain_text == "There is no open game. /newgame opens one."
    assert await bot.store.player_chat(user.id) is None
    group = await new_lobby(bot, host, [user])
    query = await press_lobby(bot, user, group, cb.JOIN)
    assert h.answer(query).text == "You joined the game."


async def test_a_binding_left_by_a_crash_before_the_join_holds_nobody(bot: Bot) -> None:
    """A crash between binding a player to a group and the join's commit left them bound to
    a lobby that does not seat them (issue 13): joining elsewhere releases that binding."""
    h = bot.h
    user = make_user("Stranded")
    await h.command(user, user, "/start")
    group_a = await new_lobby(bot, make_user("HostA"), [])
    assert await bot.store.claim_player(user.id, group_a.id) is None  # the crash's leftover
    group_b = await new_lobby(bot, make_user("HostB"), [])
    query = await press_lobby(bot, user, group_b, cb.JOIN)
    assert h.answer(query).text == "You joined the game."
    assert await bot.store.player_chat(user.id) == group_b.id
    table_b = await bot.table(group_b)
    assert table_b is not None and table_b.player(user.id) is not None
    # A player really seated in a lobby stays bound to it.
    group_c = await new_lobby(bot, make_user("HostC"), [])
    query = await press_lobby(bot, user, group_c, cb.JOIN)
    assert h.answer(query).text == "You are already playing in another group."
    h.assert_no_errors()
