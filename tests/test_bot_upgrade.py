"""Games left running by an older bot (commit ccc40d7) finish under the current code.

An upgrade keeps two things: the store, and what Telegram holds (every message the old bot
sent, with the callback data it wrote into its buttons). ``tests/data/upgrade_ccc40d7/``
has both as the bot of ccc40d7 left them (its README.md says how they were made): group A
in the middle of a vote (two ballots cast, live Ja!/Nein! in the group), group B with a
President's hand waiting in a private chat, group C an open lobby with three of its five
members in. Here the store is restored (the SQLite file copied, or the Redis keys put under
the test's prefix), the fake Bot API is seeded with the old chats, users and messages (same
ids: the message ids the old bot stored point at them), and the current Application starts
on them as after a deploy, its recovery included. Telegram then delivers the old bot's last
press of each group again (it had not seen the offset), and the players press the OLD
buttons first, with the callback data the old bot wrote, then whatever appears, until every
game is over.
"""

from __future__ import annotations

import itertools
import json
import shutil
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import redis
from telegram.error import BadRequest

from shbot.bot import callbacks as cb
from shbot.engine import Game, Phase
from shbot.storage import open_store
from tests.botplay import (
    Bot,
    Plan,
    Played,
    check_finished,
    check_group_keeps_secrets,
    check_private_entitlements,
    find_seed,
    play,
)
from tests.botrestart import Restarts, StoreFactory
from tests.fake_telegram import NOT_MODIFIED, FakeBotAPI, FakeChat, JSONDict
from tests.harness import LATE, FakeUser, refused
from tests.redis_server import RedisServer

FIXTURE = Path(__file__).parent / "data" / "upgrade_ccc40d7"
#: Buttons that act on a game: none may be left on any message once the games are over.
#: (The current end card's Rematch and the role message's "What I know" are meant to
#: outlive their game; the old bot wrote neither.)
LIVE_OPS = cb.GAME_OPS - {cb.REMATCH, cb.MYLOG, cb.BACK}


def load(name: str) -> Any:
    return json.loads((FIXTURE / name).read_text(encoding="utf-8"))


# ------------------------------------------------------------------------ restoring the state


def seed_telegram(dump: JSONDict) -> FakeBotAPI:
    """A fake Telegram holding what the old bot's Telegram held, message ids preserved."""
    me = dump["bot"]
    fake = FakeBotAPI(bot_id=me["id"], bot_username=me["username"], bot_first_name=me["first_name"])
    for user in dump["users"]:
        fake.add_user(user)
    fake.started.update(dump["started"])
    fake.blocked.update(dump["blocked"])
    for chat in dump["chats"]:
        if chat["type"] == "private":
            fake.private_chat(fake.users[chat["id"]])
        else:
            group = fake.add_chat(
                chat["id"], title=chat["title"], chat_type=chat["type"], username=chat["username"]
            )
            group.admins = {int(k): v for k, v in chat["admins"].items()}
            group.members = set(chat["members"])
            group.bot_status = chat["bot_status"]
        for m in chat["messages"]:
            message = fake.add_message(
                chat["id"],
                m["message_id"],
                m["text"],
                from_bot=m["from_bot"],
                sender=m["sender"],
                parse_mode=m["parse_mode"],
                reply_markup=m["reply_markup"],
                entities=m["entities"],
                date=m["date"],
                edit_count=m["edit_count"],
                edit_date=m["edit_date"],
                history=m["history"],
                deleted=m["deleted"],
                pinned=m["pinned"],
            )
            assert message.plain_text == m["plain_text"]
        # The old fake numbered messages only: the next id follows the newest (add_message).
        assert chat["next_message_id"] == 1 + max(m["message_id"] for m in chat["messages"])
    return fake


def restore_redis(url: str, prefix: str) -> None:
    """Every key the old bot left under its prefix, under ``prefix``, with its TTL."""
    client = redis.Redis.from_url(url, decode_responses=True)
    try:
        for entry in load("redis.json")["keys"]:
            key, kind, value = prefix + entry["key"], entry["type"], entry["value"]
            if kind == "string":
                client.set(key, value)
            elif kind == "hash":
                client.hset(key, mapping=value)
            else:  # the bot of ccc40d7 left no other kind of key in these games
                raise AssertionError(f"cannot restore a {kind} key ({entry['key']})")
            if entry["pttl"] > 0:
                client.pexpire(key, entry["pttl"])
    finally:
        client.close()


@pytest.fixture(params=["sqlite", "redis"])
def upgraded(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[StoreFactory, JSONDict]:
    """The store the old bot left (opened by the current code) and its Telegram's dump.

    The store's clock runs as if the upgrade came a minute after the old bot stopped, so the
    open lobby (it expires an hour after its last change) and the old bot's memory of the
    callback queries it saw are as a deploy finds them, whenever this test runs."""
    telegram = load(f"telegram_{request.param}.json")
    offset = time.time() - (telegram["dumped_at"] + 60)

    def clock() -> float:
        return time.time() - offset

    if request.param == "sqlite":
        path = tmp_path / "shbot.sqlite3"
        shutil.copyfile(FIXTURE / "shbot.sqlite3", path)
        return (lambda: open_store(sqlite_path=str(path), clock=clock)), telegram
    server: RedisServer = request.getfixturevalue("redis_server")
    prefix: str = request.getfixturevalue("redis_prefix")
    restore_redis(server.url, prefix)
    return (lambda: open_store(redis_url=server.url, prefix=prefix, clock=clock)), telegram


# ------------------------------------------------------------------------------ the players


def users_of(group: JSONDict) -> dict[int, FakeUser]:
    return {
        u["id"]: FakeUser(u["id"], u["first_name"], username=u.get("username"))
        for u in group["users"]
    }


def old_button(dump: JSONDict, chat_id: int, data: Callable[[str], bool]) -> tuple[int, str]:
    """The message id and callback data of the one button the old bot left in ``chat_id``
    whose data satisfies ``data``."""
    found = [
        (m["message_id"], b["callback_data"])
        for chat in dump["chats"]
        if chat["id"] == chat_id
        for m in chat["messages"]
        for row in (m["reply_markup"] or {}).get("inline_keyboard", [])
        for b in row
        if "callback_data" in b and data(b["callback_data"])
    ]
    assert len(found) == 1, found
    return found[0]


async def press_old(bot: Bot, user: FakeUser, chat_id: int, mid: int, data: str) -> None:
    """``user`` presses a button the old bot wrote; the current bot must take it."""
    query = await bot.h.press(user, bot.fake.message(chat_id, mid), data=data)
    await bot.settle()
    answer = bot.h.answer(query)
    assert not refused(answer), f"the old button {data} was refused: {answer.text}"


async def press_stale(bot: Bot, user: FakeUser, chat_id: int, mid: int, data: str) -> None:
    """The same old button again once its step is over (an old client, a double tap):
    refused, nothing changes."""
    group_id = chat_id if chat_id < 0 else await bot.store.player_chat(user.id)
    assert group_id is not None
    before = await bot.record(group_id)
    query = await bot.h.press_raw(user, chat_id, mid, data)
    await bot.settle()
    answer = bot.h.answer(query)
    assert refused(answer) and LATE.fullmatch(answer.text or ""), answer
    after = await bot.record(group_id)
    assert before is not None and after is not None and after.version == before.version


async def redeliver(bot: Bot, group: JSONDict) -> str:
    """Telegram delivers the old bot's last press of ``group`` again (the old bot stopped
    before Telegram saw the update's offset): the current bot must not apply it twice.
    Returns the query id.

    The old bot answered that query, so the fake does not know it: a second answer is
    refused ("query is too old"), which the bot's error handler takes calmly. The lobby's
    Join does answer a refused press again (as for a press of its own delivered twice); the
    harness records that refusal as a handler error, checked and dropped here."""
    press = group["presses"][-1]
    user = users_of(group)[press["user_id"]]
    before = await bot.record(group["chat_id"])
    message = bot.fake.message(press["chat_id"], press["message_id"])
    errors = len(bot.h.errors)
    await bot.h.feed(
        {
            "callback_query": {
                "id": press["query_id"],
                "from": user.to_dict(),
                "message": message.to_dict(),
                "chat_instance": str(abs(press["chat_id"]) * 7 + 3),
                "data": press["data"],
            }
        }
    )
    await bot.settle()
    after = await bot.record(group["chat_id"])
    assert before is not None and after is not None
    assert after.data.get("game") == before.data.get("game"), "an old press applied twice"
    assert after.data["players"] == before.data["players"], "an old press applied twice"
    new = bot.h.errors[errors:]
    assert all(isinstance(e, BadRequest) and "query is too old" in e.message.lower() for e in new)
    del bot.h.errors[errors:]
    return str(press["query_id"])


async def game_of(bot: Bot, chat_id: int) -> Game:
    table = await bot.table(chat_id)
    assert table is not None and table.game is not None
    return table.game


def plan_of(group: JSONDict, *, election: int) -> Plan:
    """The plan the old bot's players followed, at the election in progress (0: the first)."""
    spec = group["plan"]
    plan = Plan(spec["tokens"], spec["targets"], seed=spec["seed"])
    plan.election = election
    return plan


# -------------------------------------------------------------------------------- the games


async def finish_vote(bot: Bot, dump: JSONDict, group: JSONDict) -> Played:
    """Group A: two ballots were cast before the upgrade; the other three are cast on the
    old Ja! button, then the plan plays the rest (a Fascist policy, the peek, Hitler shot)."""
    chat_id, gid, step = group["chat_id"], group["gid"], group["step"]
    users = users_of(group)
    seats = [users[i] for i in group["seats"]]
    old = Game.from_dict(group["game"])
    assert old.phase is Phase.VOTE and old.votes == [1, 1, -1, -1, -1]
    mid, ja = old_button(dump, chat_id, lambda d: d == f"{gid}:{step}:v:1")
    # "My role" under the old board answers with the presser's role (a pop-up).
    board, my_role = old_button(dump, chat_id, lambda d: d == f"{gid}:0:r")
    query = await bot.h.press(seats[4], bot.fake.message(chat_id, board), data=my_role)
    assert (bot.h.answer(query).text or "").startswith("You are Hitler."), bot.h.answer(query)
    # A ballot cast before the upgrade, cast again: still one ballot of that seat.
    await press_old(bot, seats[0], chat_id, mid, ja)
    game = await game_of(bot, chat_id)
    assert game.phase is Phase.VOTE and game.votes == [1, 1, -1, -1, -1]
    for seat in (2, 3, 4):
        await press_old(bot, seats[seat], chat_id, mid, ja)
    await press_stale(bot, seats[2], chat_id, mid, ja)
    game = await game_of(bot, chat_id)
    assert game.phase is Phase.PRESIDENT_DISCARD
    assert game.history == [*old.history, ["e", 2, 1, 0, "jjjjj"]]
    # /mylog (new since ccc40d7) on a game whose start the current bot never saw.
    before = len(bot.fake.messages(seats[1].id))
    await bot.h.command(seats[1], seats[1], "/mylog")
    await bot.settle()
    (told,) = [m.plain_text for m in bot.fake.messages(seats[1].id)[before:]]
    assert told.startswith("📜 What you know") and "Fascist (Fascist party)" in told, told
    assert "Hitler is \u2068Emeka\u2069" in told and "You drew:" in told, told
    return await play(bot, FakeChat(chat_id, "supergroup"), seats, plan_of(group, election=1))


async def finish_hand(bot: Bot, dump: JSONDict, group: JSONDict) -> Played:
    """Group B: the President discards on the hand the old bot sent in private, then the
    plan plays the rest (two rejections, chaos, Liberal policies to the end)."""
    chat_id, gid, step = group["chat_id"], group["gid"], group["step"]
    users = users_of(group)
    seats = [users[i] for i in group["seats"]]
    old = Game.from_dict(group["game"])
    assert old.phase is Phase.PRESIDENT_DISCARD and old.hand == ["F", "F", "F"]
    president = seats[old.president]
    mid, discard = old_button(dump, president.id, lambda d: d == f"{gid}:{step}:d:F")
    await press_old(bot, president, president.id, mid, discard)
    await press_stale(bot, president, president.id, mid, discard)
    game = await game_of(bot, chat_id)
    assert game.phase is Phase.CHANCELLOR_ENACT and game.history == old.history
    hand = bot.fake.message(president.id, mid)
    assert hand.plain_text.startswith("🎩 You discarded"), hand.text
    # The old hand asks the President's claim now (no discard button is left on it).
    assert {b["callback_data"].split(":")[2] for b in hand.buttons()} == {cb.CLAIM}, hand.text
    played = await play(bot, FakeChat(chat_id, "supergroup"), seats, plan_of(group, election=1))
    assert played.game.history[len(old.history)] == ["p", "F"]
    return played


async def finish_lobby(bot: Bot, dump: JSONDict, group: JSONDict) -> Played:
    """Group C: the last two join on the old lobby's Join, the host presses its Start, and
    a plan plays the game (three Fascist policies, then Hitler elected)."""
    chat_id, gid = group["chat_id"], group["gid"]
    by_id = users_of(group)
    users = [by_id[u["id"]] for u in group["users"]]
    mid, join = old_button(dump, chat_id, lambda d: d == f"{gid}:0:j")
    _, start = old_button(dump, chat_id, lambda d: d == f"{gid}:0:s")
    assert group["joined"] == [u.id for u in users[:3]]
    for user in users[3:]:
        await press_old(bot, user, chat_id, mid, join)
    bot.fix_seed(find_seed(5, hitler=4, first_president=0, start=13))
    await press_old(bot, users[0], chat_id, mid, start)
    table = await bot.table(chat_id)
    assert table is not None and table.game is not None, "the old Start did not start"
    assert table.gid == gid and [p.id for p in table.players] == [u.id for u in users]
    lobby = bot.fake.message(chat_id, mid)
    assert lobby.buttons() == [] and "started" in lobby.plain_text, lobby.plain_text
    seats = [by_id[table.at(s).id] for s in range(5)]
    return await play(bot, FakeChat(chat_id, "supergroup"), seats, Plan(["F", "F", "F", "H"]))


def live_buttons(fake: FakeBotAPI, gids: set[str]) -> list[tuple[int, int, str]]:
    """Buttons that still act on one of the games: any on a chat's newest message, and any
    but an unanswered claim prompt's on an older one (see ``botplay.stale_buttons``)."""
    out = []
    for chat_id in fake.store:
        messages = fake.messages(chat_id)
        newest = max((m.message_id for m in messages), default=None)
        out += [
            (chat_id, message.message_id, button["callback_data"])
            for message in messages
            for button in message.buttons()
            if isinstance(press := cb.parse(button.get("callback_data")), cb.GamePress)
            and press.game_id in gids
            and press.op in LIVE_OPS
            and (press.op != cb.CLAIM or message.message_id == newest)
        ]
    return out


async def test_games_of_ccc40d7_finish_after_the_upgrade(
    upgraded: tuple[StoreFactory, JSONDict],
) -> None:
    reopen, dump = upgraded
    groups = dump["groups"]
    fake = seed_telegram(dump)
    restarts = Restarts(reopen, fake)
    # Telegram never reuses update or callback query ids (and the old bot's store remembers
    # the query ids it saw): the new harness goes on from the old one's.
    restarts._update_ids = itertools.count(dump["next_update_id"])
    restarts._query_ids = itertools.count(dump["next_query_id"])
    bot = await restarts.start()
    try:
        await bot.settle()
        redelivered = {await redeliver(bot, groups[name]) for name in "ABC"}
        played = {
            "A": await finish_vote(bot, dump, groups["A"]),
            "B": await finish_hand(bot, dump, groups["B"]),
            "C": await finish_lobby(bot, dump, groups["C"]),
        }
        await bot.settle()
        ends = {name: p.game.history[-1] for name, p in played.items()}
        assert ends == {
            "A": ["end", "liberal", "hitler_executed"],
            "B": ["end", "liberal", "five_liberal"],
            "C": ["end", "fascist", "hitler_elected"],
        }
        for name, p in played.items():
            await check_finished(bot, p)  # the winner and every role in the group's last word
            check_group_keeps_secrets(fake, p.group.id)
            # The roles of A and B were dealt by the old bot, in its own words.
            check_private_entitlements(bot, p, role_texts=name == "C")
            game = p.game
            if name != "C":  # the engine's history goes on from the old one
                old = Game.from_dict(groups[name]["game"])
                assert game.history[: len(old.history)] == old.history
            rounds = [e[1] for e in game.history if e[0] == "e"]
            assert rounds == list(range(1, game.round + 1)), f"elections: {rounds}"
            policies = [e for e in game.history if e[0] in ("p", "c")]
            assert len(policies) == game.liberal + game.fascist, game.history
        assert not [a for a in fake.answers if a.query_id in redelivered]
        refusals = [
            c
            for c in fake.failed_calls
            if c.description != NOT_MODIFIED
            and c.params.get("callback_query_id") not in redelivered
        ]
        assert not refusals, refusals
        gids = {g["gid"] for g in groups.values()}
        assert not live_buttons(fake, gids), live_buttons(fake, gids)
        restarts.assert_no_errors(bot)
    finally:
        await restarts.stop(bot)
