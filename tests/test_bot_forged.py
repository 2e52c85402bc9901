"""Hostile and odd input through the real Application and the fake Bot API.

* Forged input changes nothing: random, oversized, non-UTF-8 and other games' callback data,
  commands with 4,000-character arguments, forged ``/start`` payloads, posts from channels
  and anonymous admins (``sender_chat``), edited messages, updates without a user, and a
  flood of presses: each press is answered (a flood of commands ignored) within Telegram's
  limits, nothing raises, the work stays bounded and the stored games stay as they were.
* No member can stall a game: informational commands are limited per sender and coalesced
  per chat, so a spectator's spam never delays the game's own messages (virtual clock).
* Only people play: bots, anonymous admins and channels can neither join nor host; an
  anonymous admin is an admin of the group it posts as (never one person across groups).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest

from shbot import rules_text
from shbot.bot import callbacks as cb
from shbot.bot.handlers import common, help_text
from shbot.bot.refusals import refusal_text, vote_answer
from shbot.engine import Phase
from shbot.i18n import translator
from shbot.storage import Store
from shbot.table import Refusal
from tests.botplay import (
    Bot,
    button_data,
    find_seed,
    lobby_message,
    markup_buttons,
    next_turn,
    open_game,
    press_move,
    running_bot,
)
from tests.fake_telegram import FakeChat, JSONDict, utf16_len
from tests.harness import in_capitals, make_user, make_users

EN = translator("en")
NOT_PERSON = refusal_text(EN, Refusal("not_person"))
INVALID = "This button is not valid."

# Telegram's stand-in accounts, as they appear in ``from``.
ANONYMOUS: JSONDict = {
    "id": common.ANONYMOUS_ADMIN,
    "is_bot": True,
    "first_name": "Group",
    "username": "GroupAnonymousBot",
}
CHANNEL_BOT: JSONDict = {
    "id": common.CHANNEL_BOT,
    "is_bot": True,
    "first_name": "Channel",
    "username": "Channel_Bot",
}
TELEGRAM: JSONDict = {"id": common.TELEGRAM, "is_bot": False, "first_name": "Telegram"}
OTHER_BOT: JSONDict = {
    "id": 5_000_000_001,
    "is_bot": True,
    "first_name": "Other",
    "username": "other_helper_bot",
}
CHANNEL: JSONDict = {"id": -1_009_999_000_001, "type": "channel", "title": "News"}


@pytest.fixture
async def bot(store: Store) -> AsyncIterator[Bot]:
    """The bot as ``run_polling`` starts it (``post_init`` learns its username)."""
    async with running_bot(store) as running:
        await running.app.post_init(running.app)
        yield running


@contextlib.asynccontextmanager
async def paced_bot(store: Store) -> AsyncIterator[Bot]:
    """The bot with PTB's limiter and the outbox's pacing on (run under looptime)."""
    async with running_bot(store, limiter=True) as running:
        await running.app.post_init(running.app)
        yield running


# ------------------------------------------------------------------------------ helpers


async def frozen(bot: Bot, *groups: FakeChat) -> list[tuple[int, object] | None]:
    """The stored games exactly (version and data), once earlier deliveries are recorded."""
    await bot.settle()
    out: list[tuple[int, object] | None] = []
    for group in groups:
        record = await bot.record(group)
        out.append(None if record is None else (record.version, record.data))
    return out


async def game_state(bot: Bot, group: FakeChat) -> dict[str, Any] | None:
    """The game itself (not what it owes or shows): players, engine, step, host."""
    await bot.settle()
    record = await bot.record(group)
    if record is None:
        return None
    keys = ("gid", "host", "players", "game", "step", "options", "deadline", "ending")
    return {k: record.data.get(k) for k in keys}


def sent_as(
    bot: Bot,
    chat: FakeChat,
    sender: JSONDict | None,
    text: str,
    *,
    as_chat: JSONDict | None = None,
    kind: str = "message",
    **extra: Any,
) -> JSONDict:
    """The update Telegram pushes for ``text`` posted in ``chat``: by ``sender`` (None: no
    ``from`` at all), as the chat ``as_chat`` (``sender_chat``), possibly edited."""
    entities = None
    if text.startswith("/"):
        head = text.split(" ", 1)[0]
        entities = [{"type": "bot_command", "offset": 0, "length": utf16_len(head)}]
    stored = bot.fake.receive_message(chat.id, sender or TELEGRAM, text, entities)
    message = stored.to_dict()
    if sender is None:
        del message["from"]
    if as_chat is not None:
        message["sender_chat"] = as_chat
    if kind == "edited_message":
        message["edit_date"] = message["date"] + 5
    message.update(extra)
    return {kind: message}


def query_payload(
    query_id: str, sender: JSONDict, message: JSONDict | None, **fields: Any
) -> JSONDict:
    body: JSONDict = {"id": query_id, "from": sender, "chat_instance": "42", **fields}
    if message is not None:
        body["message"] = message
    return {"callback_query": body}


async def press_as(bot: Bot, sender: JSONDict, chat: FakeChat, message_id: int, data: str) -> str:
    """A press by a stand-in account (the harness presses as FakeUsers only)."""
    query_id = f"q{sender['id']}-{len(bot.fake.calls)}-{message_id}-{abs(hash(data)) % 10**6}"
    bot.fake.register_callback_query(query_id, sender["id"])
    message = bot.fake.message(chat.id, message_id).to_dict()
    await bot.h.feed(query_payload(query_id, sender, message, data=data))
    return query_id


def answered(bot: Bot, query_id: str) -> str | None:
    """The answer's text ('' for a silent answer); None if the press was not answered."""
    try:
        return bot.h.answer(query_id).text or ""
    except KeyError:
        return None


def bot_texts_since(bot: Bot, chat_id: int, count: int) -> list[str]:
    """Texts of the bot's calls to ``chat_id`` after the first ``count`` calls."""
    return [
        str(c.params.get("text", ""))
        for c in bot.fake.calls[count:]
        if c.chat_id == chat_id and "text" in c.params
    ]


def forged_data(gid: str, other_gid: str, step: int) -> list[str]:
    """Callback data no honest button of this game carries at this step."""
    return [
        "x",
        "\x00\x01\x02",
        "💣" * 16,  # exactly 64 bytes, but no format of ours
        "💣" * 17,  # 68 bytes: more than Telegram allows
        "a" * 65,
        "a" * 4000,
        "\udcff\udcfe",  # lone surrogates: what undecodable bytes become in Python text
        "\ud83d",
        "@set:\udcff",
        f"{gid}:{step}:v:1" + "1" * 60,
        f"{gid}:{step}:v:1\n",
        f"{gid}:{step}:zz",
        f"{gid}:{step}:n:999999",
        f"{gid}:{step}:n:{'9' * 16}",
        f"{gid}:{step}:p:{'9' * 16}",
        f"{gid}:{step}:n:-1",
        f"{gid}:{step}:n:٣",  # an Arabic-Indic digit: int() would take it
        f"{gid}:٣:n:1",
        f"{gid}:999999:v:1",
        f"{gid}:{step + 1}:v:1",
        f"{gid}:0:v:1",
        f"{gid}:0:j",
        f"{gid}:0:s",
        f"{gid}:0:l",
        f"{gid}:0:cy",
        f"{other_gid}:{step}:n:1",
        f"{other_gid}:0:j",
        f"{other_gid}:0:cy",
        f"{other_gid}:0:r",
        "@lang:gxx",
        "@lang:x" + "a" * 40,
        "@rules:nope",
        "@set:m100_lfr",
        "@set:" + "9" * 59,
        "@set:m1000000000001_zz",
        "@nope:x",
        ":0:j",
        "ABCD:0:j",
    ]


# ------------------------------------------------------------------------------ 1. forged input


async def test_forged_callback_data_changes_nothing(bot: Bot) -> None:
    users_a, users_b = make_users(5), make_users(5)
    group_a = await open_game(bot, users_a, seed=find_seed(5, first_president=0))
    group_b = await open_game(bot, users_b, seed=find_seed(5, first_president=0, start=77))
    table_a, table_b = await bot.table(group_a), await bot.table(group_b)
    assert table_a is not None and table_b is not None
    round_a = table_a.shown[f"round:{table_a.game.round if table_a.game else 1}"]
    board_b = table_b.shown["board"]
    before = await frozen(bot, group_a, group_b)
    data = forged_data(table_a.gid, table_b.gid, table_a.step)
    # A player who is not President, a player of the other game and a stranger press each.
    pressers = [(users_a[2], group_a.id, round_a), (users_b[1], group_a.id, round_a)]
    pressers += [(make_user("Stranger"), group_b.id, board_b), (users_a[3], users_a[3].id, 1)]
    queries = []
    calls = len(bot.fake.calls)
    for user, chat_id, message_id in pressers:
        for d in data:
            queries.append((d, await bot.h.press_raw(user, chat_id, message_id, d)))
    await bot.settle()
    for d, query in queries:
        text = answered(bot, query)
        assert text is not None, f"{d!r} was not answered"
        assert 0 < len(text) <= 200, f"{d!r}: {text!r}"
    assert await frozen(bot, group_a, group_b) == before, "a forged press changed a game"
    # A settings button naming a group asks Telegram (fresh) whether the presser is its admin.
    others = [c for c in bot.fake.calls[calls:] if c.method != "answerCallbackQuery"]
    assert {c.method for c in others} <= {"getChatMember"}, f"forged presses made {others}"
    assert len(others) <= len(pressers) * sum(d.startswith("@set:") for d in data)
    # A press from a message the bot cannot see (an inline message) and a press without data
    # (a game button) or with neither: ignored or answered, never an error.
    stranger = make_user("Inline")
    bot.fake.add_user(stranger.to_dict())
    odd = [
        {"inline_message_id": "AAAB", "data": f"{table_a.gid}:0:j"},
        {"inline_message_id": "AAAC", "data": "\udcff"},
        {"game_short_name": "secret_hitler"},
        {},
    ]
    message = bot.fake.message(group_a.id, round_a).to_dict()
    for i, fields in enumerate(odd):
        query_id = f"odd{i}-{stranger.id}"
        bot.fake.register_callback_query(query_id, stranger.id)
        target = None if "inline_message_id" in fields else message
        await bot.h.feed(query_payload(query_id, stranger.to_dict(), target, **fields))
        text = answered(bot, query_id)
        assert text in (None, INVALID), f"{fields}: {text!r}"
    await bot.settle()
    assert await frozen(bot, group_a, group_b) == before
    # The honest button still works after all that.
    turn = await next_turn(bot, group_a, {u.id: u for u in users_a})
    assert turn is not None and turn.seat == 0
    await press_move(bot, turn, cb.NOMINATE, "1")
    bot.h.assert_no_errors()


COMMANDS = [
    "/lang",
    "/start",
    "/join",
    "/newgame",
    "/leave",
    "/startgame",
    "/cancelgame",
    "/board",
    "/history",
    "/rules",
    "/help",
    "/ping",
    "/settings",
    "/stats",
    "/nextgame",
    "/frobnicate",
]


def huge_arguments() -> Iterator[str]:
    yield "x" * 4000
    yield " ".join(["9" * 19] * 200)[:4000]
    yield "ü" * 2000 + "\udcff" + "名" * 1900
    yield "<b>&amp;</i>" * 300


async def test_commands_with_huge_arguments_change_nothing(bot: Bot) -> None:
    users = make_users(5)
    group = await open_game(bot, users, seed=find_seed(5, first_president=0))
    game = await game_state(bot, group)
    calls = len(bot.fake.calls)
    sent = 0
    for command in COMMANDS:
        for i, argument in enumerate(huge_arguments()):
            # A fresh member each time, so the informational limit lets every answer through.
            member = make_user(f"Member{i}")
            for chat in (group.id, member):
                before = len(bot.fake.calls)
                await bot.h.command(member, chat, f"{command} {argument}")
                sent += 1
                assert len(bot.fake.calls) - before <= 3, f"{command}: too many calls"
            # A player too, addressed to the bot by name.
            head = f"{command}@{bot.fake.bot_username}"
            await bot.h.command(users[(i % 4) + 1], group, f"{head} {argument}")
            sent += 1
    await bot.settle()
    assert await game_state(bot, group) == game, "a command with a huge argument changed the game"
    assert len(bot.fake.calls) - calls <= 3 * sent
    failed = [c for c in bot.fake.calls[calls:] if not c.ok]
    assert not failed, f"Telegram refused {[(c.method, c.description) for c in failed]}"
    bot.h.assert_no_errors()


async def test_forged_start_payloads_join_nobody(bot: Bot) -> None:
    users = make_users(5)
    running = await open_game(bot, users, seed=find_seed(5, first_president=0))
    hosts = make_users(3)
    lobby_group = bot.h.group(creator=hosts[0], members=hosts[1:])
    for user in hosts:
        await bot.h.command(user, user, "/start")
    await bot.h.command(hosts[0], lobby_group, "/newgame")
    await bot.settle()
    lobby_table, running_table = await bot.table(lobby_group), await bot.table(running)
    assert lobby_table is not None and running_table is not None
    lid = str(lobby_group.id).replace("-", "m")
    rid = str(running.id).replace("-", "m")
    payloads = [
        "j" + "9" * 4000 + "_" + lobby_table.gid,
        "j" + "9" * 40 + "_" + lobby_table.gid,
        "jm" + "9" * 40 + "_" + lobby_table.gid,
        "jm" + "9" * 16 + "_" + lobby_table.gid,
        "j" + "0" * 60 + "1_abcd",
        "j١٢٣_abcd",
        "j1e9_abcd",
        "j-5_abcd",
        "j_",
        "j",
        "jm_",
        "j0_",
        f"j{lid}",
        f"j{lid}_",
        f"j{lid}_zzzz",  # the lobby's group, another game
        f"j{lid}_{lobby_table.gid}_x",
        f"j{lid}_{lobby_table.gid}" + "x" * 4000,
        f"j{lid}_{in_capitals(lobby_table.gid)}",
        f"j{rid}_{running_table.gid}",  # a game that has started
        f"j{users[0].id}_{running_table.gid}",  # a private chat's id
        "x" * 4000,
        "\udcff" * 10,
    ]
    before = await frozen(bot, lobby_group, running)
    for payload in payloads:
        stranger = make_user("Stranger")
        calls = len(bot.fake.calls)
        await bot.h.command(stranger, stranger, f"/start {payload}")
        texts = bot_texts_since(bot, stranger.id, calls)
        assert len(texts) == 1, f"{payload[:40]!r}: {texts}"
        assert await bot.store.player_chat(stranger.id) is None, f"{payload[:40]!r} joined"
    assert await frozen(bot, lobby_group, running) == before
    # The genuine link still joins a member of the group.
    stranger = make_user("Welcome")
    lobby_group.members.add(stranger.id)
    await bot.h.command(stranger, stranger, f"/start j{lid}_{lobby_table.gid}")
    assert await bot.store.player_chat(stranger.id) == lobby_group.id
    bot.h.assert_no_errors()


async def test_posts_as_a_chat_without_a_user_or_edited_change_nothing(bot: Bot) -> None:
    users = make_users(5)
    group = bot.h.group(creator=users[0], members=users[1:])
    await open_game(bot, users, group=group, start=False)
    lobby = lobby_message(bot, group)
    before = await frozen(bot, group)
    as_group = {"id": group.id, "type": "supergroup", "title": group.title}
    refused = [
        (ANONYMOUS, as_group, "/join"),
        (ANONYMOUS, as_group, "/newgame"),
        (ANONYMOUS, as_group, "/leave"),
        (CHANNEL_BOT, CHANNEL, "/join"),
        (CHANNEL_BOT, CHANNEL, "/newgame"),
        (CHANNEL_BOT, CHANNEL, "/startgame"),
        (CHANNEL_BOT, CHANNEL, "/cancelgame"),
        (TELEGRAM, CHANNEL, "/join"),
        (OTHER_BOT, None, "/join"),
        (OTHER_BOT, None, "/newgame"),
        (OTHER_BOT, None, "/startgame"),
    ]
    for sender, as_chat, command in refused:
        calls = len(bot.fake.calls)
        await bot.h.feed(sent_as(bot, group, sender, command, as_chat=as_chat))
        await bot.h.replies_delivered()
        texts = bot_texts_since(bot, group.id, calls)
        assert len(texts) == 1, f"{command} by {sender['first_name']}: {texts}"
        assert texts[0] in (
            NOT_PERSON,
            "Only the host or a group admin can cancel the game.",
        ), f"{command} by {sender['first_name']}: {texts[0]!r}"
    # Nothing at all: no sender, an edited command, a channel's own post, an unknown update.
    quiet = [
        sent_as(bot, group, None, "/join", as_chat=CHANNEL),
        sent_as(bot, group, None, "/newgame"),
        sent_as(bot, group, users[0].to_dict(), "/startgame", kind="edited_message"),
        sent_as(bot, group, make_user("Late").to_dict(), "/join", kind="edited_message"),
        sent_as(bot, group, ANONYMOUS, "/cancelgame", as_chat=as_group, kind="edited_message"),
        sent_as(bot, group, TELEGRAM, "/newgame", as_chat=CHANNEL, is_automatic_forward=True),
    ]
    channel = bot.fake.add_chat(CHANNEL["id"], title="News", chat_type="channel")
    post = sent_as(bot, channel, None, "/newgame", as_chat=CHANNEL, kind="channel_post")
    quiet += [
        post,
        sent_as(bot, channel, None, "/join", as_chat=CHANNEL, kind="edited_channel_post"),
    ]
    for payload in quiet:
        calls = len(bot.fake.calls)
        await bot.h.feed(payload)
        await bot.h.replies_delivered()
        assert len(bot.fake.calls) == calls, f"{payload}: the bot answered"
    # Presses by stand-ins: refused in words, nothing joined or started.
    for sender in (ANONYMOUS, OTHER_BOT, CHANNEL_BOT):
        for op in (cb.JOIN, cb.START):
            query = await press_as(bot, sender, group, lobby.message_id, button_data(lobby, op))
            assert answered(bot, query) == NOT_PERSON
    assert await frozen(bot, group) == before, "a stand-in changed the lobby"
    for account in (ANONYMOUS, CHANNEL_BOT, TELEGRAM, OTHER_BOT):
        assert await bot.store.player_chat(account["id"]) is None
    bot.h.assert_no_errors()


@pytest.mark.looptime
async def test_two_hundred_presses_in_two_seconds(store: Store) -> None:
    async with paced_bot(store) as bot:
        users = make_users(5)
        spectator = make_user("Spammer")
        group = bot.h.group(creator=users[0], members=[*users[1:], spectator])
        await open_game(bot, users, group=group, seed=find_seed(5, first_president=0))
        by_id = {u.id: u for u in users}
        turn = await next_turn(bot, group, by_id)
        assert turn is not None and turn.phase is Phase.NOMINATE
        await press_move(bot, turn, cb.NOMINATE, "1")
        turn = await next_turn(bot, group, by_id)
        assert turn is not None and turn.phase is Phase.VOTE
        loop = asyncio.get_running_loop()
        await asyncio.sleep(61)  # a quiet minute: every window is empty
        before = await frozen(bot, group)
        gid, step = turn.table.gid, turn.table.step
        ja, nein = cb.game_data(gid, step, cb.VOTE, 1), cb.game_data(gid, step, cb.VOTE, 0)
        calls = len(bot.fake.calls)
        started = loop.time()
        spam: list[str] = []
        for _ in range(200):  # a spectator: nothing of it may change the game
            spam.append(await bot.h.press_raw(spectator, group.id, turn.message.message_id, ja))
            await asyncio.sleep(0.01)
        assert loop.time() - started <= 2.5
        await bot.h.settle()  # the answers to presses beyond the flood budget too
        await bot.settle()
        assert await frozen(bot, group) == before, "the spectator's presses changed the game"
        texts = [answered(bot, q) for q in spam]
        shown = [t for t in texts if t is not None]
        assert len(shown) == 200, f"{len(shown)} of 200 presses answered"
        assert set(shown) == {"You are not playing in this game."}
        # A player hammering Ja!: counted once; their next, different press still counts.
        voter = turn.user
        votes = []
        for _ in range(200):
            votes.append(await bot.h.press_raw(voter, group.id, turn.message.message_id, ja))
            await asyncio.sleep(0.01)
        await bot.h.settle()
        await bot.settle()
        table = await bot.table(group)
        assert table is not None and table.game is not None
        assert table.game.votes[turn.seat] == 1, "the vote counted"
        told = [answered(bot, q) for q in votes]
        assert None not in told, f"{told.count(None)} of 200 presses unanswered"
        assert bot.h.answers_for(voter)[-1].text == vote_answer(EN, True)
        changed = await bot.h.press_raw(voter, group.id, turn.message.message_id, nein)
        await bot.settle()
        table = await bot.table(group)
        assert table is not None and table.game is not None
        assert table.game.votes[turn.seat] == 0, "a different press right after the flood counts"
        assert answered(bot, changed) is not None
        # Within Telegram's limits: at most 30 calls to chats in any second, 20 a minute to
        # the group. Callback answers are not limited ("You can call answerCallbackQuery
        # without any limits": tdlib/telegram-bot-api#648, #636), so each press gets one.
        times = sorted(c.time for c in bot.fake.calls[calls:] if c.chat_id is not None)
        per_second = max(sum(1 for t in times if start <= t <= start + 1.0) for start in times)
        assert per_second <= 30, per_second
        assert bot.fake.max_calls_in_window(group.id, 60) <= 20
        bot.h.assert_no_errors()


@pytest.mark.looptime
async def test_a_flood_of_commands_costs_the_group_a_few_messages(store: Store) -> None:
    """A player alternating /join and /leave and a stranger repeating /newgame, 50 times each
    in 2 s, in a running game: a few refusals reach the group, nothing changes."""
    async with paced_bot(store) as bot:
        users = make_users(5)
        stranger = make_user("Stranger")
        group = bot.h.group(creator=users[0], members=[*users[1:], stranger])
        await open_game(bot, users, group=group, seed=find_seed(5, first_president=0))
        await asyncio.sleep(61)
        # /leave in a running game would hand the seat to a computer: not in this group.
        await bot.store.update_group(group.id, {"standin": "off"})
        before = await frozen(bot, group)
        calls = len(bot.fake.calls)
        for i in range(50):
            await bot.h.command(users[2], group, ("/join", "/leave")[i % 2], wait=False)
            await bot.h.command(stranger, group, "/newgame", wait=False)
            await asyncio.sleep(0.04)
        await bot.settle()
        assert await frozen(bot, group) == before, "the flood changed the game"
        sent = [c for c in bot.fake.calls[calls:] if c.chat_id == group.id]
        assert all(c.method == "sendMessage" for c in sent), sent
        texts = [str(c.params["text"]) for c in sent]
        assert any(t.startswith("The game has already started") for t in texts)
        assert any(t.startswith("A game is already open") for t in texts)
        assert len(sent) <= 2 * (1 + common.COMMAND_BURST) + 1, texts
        print(f"{len(sent)} group messages for 100 commands")
        bot.h.assert_no_errors()


async def test_a_my_role_press_in_private_posts_nothing(bot: Bot) -> None:
    users = make_users(5)
    group = await open_game(bot, users, seed=find_seed(5, first_president=0))
    table = await bot.table(group)
    assert table is not None
    before = await frozen(bot, group)
    calls = len(bot.fake.calls)
    player = users[3]
    query = await bot.h.press_raw(player, player.id, 1, cb.game_data(table.gid, 0, cb.MY_ROLE))
    await bot.settle()
    assert answered(bot, query)
    others = [c.method for c in bot.fake.calls[calls:] if c.method != "answerCallbackQuery"]
    assert others == [], f"a 'My role' press in private made the bot call {others}"
    assert await frozen(bot, group) == before


# ------------------------------------------------------------------------------ 2. no stalling


def has_op(params: JSONDict, gid: str, step: int, op: str) -> bool:
    prefix = f"{gid}:{step}:{op}"
    return any(
        b.get("callback_data", "") == prefix or b.get("callback_data", "").startswith(prefix + ":")
        for b in markup_buttons(params)
    )


async def first_call(bot: Bot, since: int, match: Any, within: float = 30.0) -> float:
    """The time of the first call after ``since`` for which ``match(call)`` holds."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + within
    while loop.time() < deadline:
        for call in bot.fake.calls[since:]:
            if call.ok and match(call):
                return call.time
        await asyncio.sleep(0.05)
    raise AssertionError("the message never came")


@pytest.mark.looptime
async def test_a_spectator_spamming_information_does_not_delay_the_game(store: Store) -> None:
    """30 x /board, /history, /rules and /help from one spectator over 30 s, while the game
    nominates and votes: each game message reaches the group within a few seconds, the
    spectator gets a handful of answers, and the group never gets over 20 calls a minute."""
    async with paced_bot(store) as bot:
        loop = asyncio.get_running_loop()
        users = make_users(5)
        by_id = {u.id: u for u in users}
        spectator = make_user("Spectator")
        group = bot.h.group(creator=users[0], members=[*users[1:], spectator])
        await open_game(bot, users, group=group, seed=find_seed(5, first_president=0))
        await asyncio.sleep(61)  # the start's burst is out of the window
        calls = len(bot.fake.calls)

        async def spam() -> None:
            for _ in range(30):
                for command in ("/board", "/history", "/rules", "/help"):
                    await bot.h.command(spectator, group, command, wait=False)
                await asyncio.sleep(1.0)

        spamming = asyncio.create_task(spam())
        await asyncio.sleep(10.5)  # well into the spam
        turn = await next_turn(bot, group, by_id)
        assert turn is not None and turn.phase is Phase.NOMINATE
        gid = turn.table.gid
        pressed = loop.time()
        await press_move(bot, turn, cb.NOMINATE, "1", settle=False)
        step = turn.table.step + 1
        mark = len(bot.fake.calls)
        shown = await first_call(
            bot, mark, lambda c: c.chat_id == group.id and has_op(c.params, gid, step, cb.VOTE)
        )
        assert shown - pressed <= 3.0, f"the vote reached the group {shown - pressed:.1f} s late"
        await asyncio.sleep(5.0)
        round_id = turn.message.message_id
        for _ in users:
            turn = await next_turn(bot, group, by_id)
            assert turn is not None and turn.phase is Phase.VOTE
            voted, mark = loop.time(), len(bot.fake.calls)
            await press_move(bot, turn, cb.VOTE, "1", settle=False)
            await asyncio.sleep(0.5)
        result = await first_call(
            bot,
            mark,
            lambda c: (
                c.chat_id == group.id
                and c.method == "editMessageText"
                and c.params.get("message_id") == round_id
            ),
        )
        assert result - voted <= 3.0, f"the vote's result came {result - voted:.1f} s late"
        await spamming
        await bot.settle()
        table = await bot.table(group)
        assert table is not None and table.game is not None
        assert table.game.phase is Phase.PRESIDENT_DISCARD, "the government was elected"
        # The spectator's 120 commands got a handful of answers (about one per 10 s).
        texts = {help_text(EN), rules_text.rules_intro(EN)}
        answers = [
            c
            for c in bot.fake.calls[calls:]
            if c.chat_id == group.id
            and c.method == "sendMessage"
            and (
                c.params.get("text") in texts
                or str(c.params.get("text", "")).startswith("<b>History so far")
                or has_op(c.params, gid, 0, cb.MY_ROLE)  # the board, posted again
            )
        ]
        limit = common.INFO_BURST + 30 / common.INFO_EVERY + 1
        window = bot.fake.max_calls_in_window(group.id, 60)
        print(
            f"vote shown after {shown - pressed:.2f} s, result after {result - voted:.2f} s, "
            f"{len(answers)} answers to 120 commands, at most {window} group calls a minute"
        )
        assert 1 <= len(answers) <= limit, f"{len(answers)} answers to 120 commands"
        assert bot.fake.max_calls_in_window(group.id, 60) <= 20
        bot.h.assert_no_errors()


# ------------------------------------------------------------------------------ 3. only people


async def test_anonymous_admins_are_admins_of_their_own_group_only(bot: Bot) -> None:
    h, fake = bot.h, bot.fake
    users = make_users(5)
    boss, bystander = make_user("Boss"), make_user("Bystander")
    group = h.group(creator=users[0], admins=[boss], members=[*users[1:], bystander])
    await open_game(bot, users, group=group, seed=find_seed(5, first_president=0))
    others = make_users(5)
    lobby_group = h.group(creator=others[0], members=others[1:])
    await open_game(bot, others, group=lobby_group, start=False)
    here = {"id": group.id, "type": "supergroup", "title": group.title}
    there = {"id": lobby_group.id, "type": "supergroup", "title": lobby_group.title}

    async def post(chat: FakeChat, sender: JSONDict, text: str, as_chat: JSONDict | None) -> str:
        await h.feed(sent_as(bot, chat, sender, text, as_chat=as_chat))
        await h.replies_delivered()
        return h.last(chat).plain_text

    # /lang during a game: the group's anonymous admin may; a channel may not.
    await post(group, ANONYMOUS, "/lang fr", here)
    assert (await bot.store.get_group(group.id))["lang"] == "fr"
    refused = await post(group, CHANNEL_BOT, "/lang ja", CHANNEL)
    assert refused == translator("fr")._(
        "Only a group admin can change the language during a game."
    )
    await post(group, ANONYMOUS, "/lang en", here)
    assert (await bot.store.get_group(group.id))["lang"] == "en"
    # /settings: the menu opens in the group (no private chat with an anonymous admin); a
    # bystander's press is refused, an admin's counts.
    await post(group, ANONYMOUS, "/settings", here)
    menu = h.last(group)
    assert menu.plain_text.startswith("⚙️ Settings of")
    query = await h.press(bystander, menu, text="Rebalanced: on")
    assert h.answer(query).text == "Only a group admin can change the settings."
    assert not (await bot.store.get_group(group.id)).get("rebalanced")
    await h.press(boss, menu, text="Rebalanced: on")
    assert (await bot.store.get_group(group.id)).get("rebalanced") is True
    # /cancelgame: asked (an admin), answered by a real admin's press.
    assert await post(group, CHANNEL_BOT, "/cancelgame", CHANNEL) == (
        "Only the host or a group admin can cancel the game."
    )
    # Posting as another group is not being its admin.
    assert await post(lobby_group, ANONYMOUS, "/cancelgame", here) == (
        "Only the host or a group admin can cancel the game."
    )
    question = await post(group, ANONYMOUS, "/cancelgame", here)
    assert question == "Cancel the current game? This cannot be undone."
    ask = h.last(group)
    query = await h.press(bystander, ask, text="Yes, cancel it")
    assert h.answer(query).text == "Only the host or a group admin can cancel the game."
    assert (await bot.table(group)) is not None
    await h.press(boss, ask, text="Yes, cancel it")
    await bot.settle()
    assert await bot.table(group) is None, "the game was cancelled"
    # The same account in the other group: never a player there, but that group's admin.
    assert await post(lobby_group, ANONYMOUS, "/join", there) == NOT_PERSON
    assert await bot.store.player_chat(common.ANONYMOUS_ADMIN) is None
    await post(lobby_group, ANONYMOUS, "/startgame", there)
    table = await bot.table(lobby_group)
    assert table is not None and table.game is not None, "an anonymous admin may start"
    assert common.ANONYMOUS_ADMIN not in [p.id for p in table.players]
    # Admin rights were never asked for the shared anonymous id.
    asked = [c.params.get("user_id") for c in fake.calls_to("getChatMember")]
    assert common.ANONYMOUS_ADMIN not in asked and str(common.ANONYMOUS_ADMIN) not in asked
    h.assert_no_errors()


async def test_bots_and_channels_never_host_or_join(bot: Bot) -> None:
    h = bot.h
    people = make_users(2)
    group = h.group(creator=people[0], members=people[1:])
    as_group = {"id": group.id, "type": "supergroup", "title": group.title}
    for sender, as_chat in ((ANONYMOUS, as_group), (CHANNEL_BOT, CHANNEL), (OTHER_BOT, None)):
        await h.feed(sent_as(bot, group, sender, "/newgame", as_chat=as_chat))
        await h.replies_delivered()
        assert h.last(group).plain_text == NOT_PERSON
        assert await bot.record(group) is None, f"{sender['first_name']} opened a game"
    assert (await bot.store.get_group(group.id)).get("lang") is None, "no language chosen"
    # A person opens it; the stand-ins still cannot join, by command or by button.
    await h.command(people[0], group, "/newgame")
    lobby = lobby_message(bot, group)
    for sender, as_chat in ((ANONYMOUS, as_group), (CHANNEL_BOT, CHANNEL), (OTHER_BOT, None)):
        await h.feed(sent_as(bot, group, sender, "/join", as_chat=as_chat))
        await h.replies_delivered()
        assert h.last(group).plain_text == NOT_PERSON
        query = await press_as(bot, sender, group, lobby.message_id, button_data(lobby, cb.JOIN))
        assert answered(bot, query) == NOT_PERSON
    await h.press(people[1], lobby, data=button_data(lobby, cb.JOIN))
    table = await bot.table(group)
    assert table is not None and [p.id for p in table.players] == [u.id for u in people]
    h.assert_no_errors()
