"""Every Telegram failure has a defined answer, each tried through the fake Bot API.

* a group upgraded to a supergroup (the service message, or the first call refused with
  ``migrate_to_chat_id``): the game, its settings and its players move to the new chat id,
  the board and the round are posted there again, and the game goes on to its end there;
* the bot removed from a group (a ``my_chat_member`` update, or a 403 on a send) and a group
  that is gone (400 "chat not found"): the game ends as cancelled, nothing more is sent
  there, its players are free at once, other groups play on, and a restart does not
  revive it;
* a player who blocked the bot: the game goes on (timers decide their steps), the group is
  told once, without any secret; their /start sends their current prompt again;
* Redis unreachable, then back (with its data, or empty): presses in between are answered
  "temporarily unavailable" and change nothing, the game resumes without a stray
  "unavailable"; a game Redis lost is announced once in its group and the pressed
  message loses its buttons;
* the same update twice, late, or again after a restart (a webhook retry): applied once.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable
from typing import Any

import pytest
import redis
from telegram import Update

from shbot.bot import callbacks as cb
from shbot.bot import render as r
from shbot.devtools.fake_telegram import MIGRATED
from shbot.engine import Phase
from shbot.i18n import translator
from shbot.storage import Store, StoreUnavailable
from shbot.storage.redis import RedisStore
from shbot.table.model import Table
from tests.botplay import (
    Bot,
    Hook,
    RandomPlay,
    Strategy,
    Turn,
    board_shown,
    button_data,
    check_calls_valid,
    check_finished,
    check_game,
    check_group_keeps_secrets,
    find_seed,
    lobby_message,
    next_turn,
    open_game,
    play,
    press_move,
    running_bot,
    secret_hand_strings,
    step_message,
)
from tests.botrestart import StoreFactory, reopen, restartable_bot  # noqa: F401
from tests.fake_telegram import FakeChat
from tests.harness import FakeUser, make_users, new_group_id, refused
from tests.redis_server import RedisServer
from tests.test_bot_outage import UNAVAILABLE, outage_store  # noqa: F401

EN = translator("en")
LOST = EN._(
    "⚠️ This game was lost: my storage was reset and its state is gone. Sorry! "
    "/newgame opens a new one."
)
_basic_ids = itertools.count(700_000_001)


def basic_group(bot: Bot, users: list[FakeUser]) -> FakeChat:
    """A basic group (small negative id): the kind Telegram upgrades to a supergroup."""
    return bot.h.group(-next(_basic_ids), creator=users[0], members=users[1:])


class Stop(Exception):
    """Raised by a hook to leave :func:`play` before a given move."""


def stop_at(want: Callable[[Turn], bool]) -> Hook:
    async def hook(turn: Turn) -> None:
        if want(turn):
            raise Stop

    return hook


async def play_until(
    bot: Bot, group: FakeChat, users: list[FakeUser], s: Strategy, want: Callable[[Turn], bool]
) -> Turn:
    """Play with ``s`` until the next move satisfies ``want``; returns that move's turn."""
    with pytest.raises(Stop):
        await play(bot, group, users, s, before=stop_at(want))
    turn = await next_turn(bot, group, {u.id: u for u in users})
    assert turn is not None and want(turn)
    return turn


def calls_after(bot: Bot, chat_id: int, mark: int, *, ok: bool | None = None) -> list[Any]:
    return [c for c in bot.fake.calls[mark:] if c.chat_id == chat_id and ok in (None, c.ok)]


def group_texts(bot: Bot, chat_id: int) -> list[str]:
    return [m.text for m in bot.fake.messages(chat_id)]


def no_secret_in(bot: Bot, chat_id: int) -> None:
    """Nothing a group was ever shown names a party or a hand (a game that never ended)."""
    forbidden = [EN._("Liberal party"), EN._("Fascist party"), *secret_hand_strings(EN)]
    for call in bot.fake.calls:
        if call.chat_id != chat_id:
            continue
        text = str(call.params.get("text", ""))
        for secret in forbidden:
            assert secret not in text, f"{secret!r} shown in {chat_id}: {text!r}"


# ------------------------------------------------------------------------------ migration


def second_round_vote(turn: Turn) -> bool:
    return turn.game.round >= 2 and turn.phase is Phase.VOTE


@pytest.mark.parametrize("how", ["service_message", "refused_send"])
async def test_a_group_upgraded_to_a_supergroup_takes_its_game_along(
    store: Store, how: str
) -> None:
    async with running_bot(store, timers="long") as bot:
        h = bot.h
        users = make_users(6)
        strategy = RandomPlay(11)
        group = basic_group(bot, users)
        await store.update_group(group.id, {"missing_votes": "ignore"})
        await open_game(bot, users, group=group, seed=find_seed(6, start=40))
        turn = await play_until(bot, group, users, strategy, second_round_vote)
        before = await bot.table(group)
        assert before is not None and before.game is not None
        # An earlier game of this group, in its statistics and /history.
        earlier = {"game_id": "earlier1", "winner": "liberal", "condition": "five_liberal"}
        players = [{"user_id": users[0].id, "name": "A", "role": "liberal", "won": True}]
        await store.record_result(group.id, {**earlier, "players": players})
        new_id = new_group_id()
        new, service = bot.fake.migrate_chat(group.id, new_id, users[0].to_dict())
        mark = len(bot.fake.calls)
        if how == "service_message":
            await h.feed({"message": service["old"]})
            await h.feed({"message": service["new"]})
            await bot.settle()
        else:
            # Nobody told the bot: the vote is taken, and the round message's edit is the
            # first call Telegram refuses with migrate_to_chat_id.
            await press_move(bot, turn, cb.VOTE, "1")
            refused = calls_after(bot, group.id, mark, ok=False)
            assert refused and all(c.description == MIGRATED for c in refused), refused
            assert len(refused) == 1, "the bot kept calling the old chat"
        assert await bot.record(group) is None, "the game stayed in the old chat"
        moved = await bot.table(new)
        assert moved is not None and moved.game is not None
        assert (moved.gid, moved.game.round) == (before.gid, before.game.round)
        assert (await store.get_group(new.id)).get("missing_votes") == "ignore"
        for user in users:
            assert await store.player_chat(user.id) == new.id, "a player left behind"
        assert not calls_after(bot, group.id, mark, ok=True), "the old chat was written to"
        # The board and the round are on screen in the new chat, buttons and all.
        assert {"board", f"round:{moved.game.round}"} <= set(moved.shown)
        board = bot.fake.message(new.id, moved.shown["board"])
        assert board.text == board_shown(EN, moved, board)
        assert step_message(bot.fake, new.id, moved, frozenset({cb.VOTE})) is not None
        # The deadline moved along.
        assert bot.app.job_queue is not None
        names = {j.name for j in bot.app.job_queue.jobs() if not j.removed}
        assert f"deadline:{new.id}" in names
        if how == "refused_send":  # Telegram's service message comes late: nothing changes
            await h.feed({"message": service["old"]})
            await bot.settle()
            again = await bot.table(new)
            assert again is not None and (again.step, again.gid) == (moved.step, moved.gid)
        played = await play(bot, new, users, strategy)
        await check_finished(bot, played)
        check_group_keeps_secrets(bot.fake, new.id)
        no_secret_in(bot, group.id)
        # Statistics moved along (the earlier game and this one), none left behind; /mylog
        # finds the game under the new id.
        assert (await store.group_stats(new.id))["games"] == 2
        assert (await store.group_stats(group.id))["games"] == 0
        assert (await store.get_user(users[1].id)).get("last_game") == [new.id, before.gid]
        assert not calls_after(bot, group.id, mark, ok=True)
        check_calls_valid(bot.fake, allowed_failures=1 if how == "refused_send" else 0)
        h.assert_no_errors()


async def test_a_lobby_moves_to_the_supergroup_and_starts_there(store: Store) -> None:
    async with running_bot(store) as bot:
        users = make_users(5)
        group = basic_group(bot, users)
        await open_game(bot, users, group=group, start=False)
        lobby = await bot.table(group)
        assert lobby is not None
        new, service = bot.fake.migrate_chat(group.id, new_group_id(), users[0].to_dict())
        await bot.h.feed({"message": service["old"]})
        await bot.settle()
        moved = await bot.table(new)
        assert moved is not None and moved.gid == lobby.gid and moved.game is None
        posted = bot.fake.message(new.id, moved.shown["lobby"])
        start = [b for b in posted.buttons() if b.get("callback_data", "").endswith(":s")]
        assert start, "the lobby was not posted again with its buttons"
        await bot.h.press(users[0], posted, data=start[0]["callback_data"])
        await bot.settle()
        played = await play(bot, new, users, RandomPlay(3))
        await check_game(bot, played)


# ------------------------------------------------------------------------------ lost access


LOSSES = ["kicked_update", "left_update", "403_on_send", "400_chat_not_found"]


async def lose_access(bot: Bot, group: FakeChat, by: FakeUser, how: str) -> None:
    if how == "kicked_update":
        await bot.h.feed(bot.fake.remove_bot(group.id, by.to_dict(), "kicked"))
    elif how == "left_update":
        await bot.h.feed(bot.fake.remove_bot(group.id, by.to_dict(), "left"))
    elif how == "403_on_send":
        bot.fake.remove_bot(group.id, by.to_dict(), "kicked")  # the update never came
    else:
        bot.fake.delete_chat(group.id)


@pytest.mark.parametrize("how", LOSSES)
async def test_a_group_the_bot_lost_ends_its_game_and_frees_its_players(
    reopen: StoreFactory,  # noqa: F811
    how: str,
) -> None:
    async with restartable_bot(reopen) as (restarts, bot):
        users, others = make_users(5), make_users(5)
        lost = await open_game(bot, users, seed=find_seed(5, first_president=0))
        other = await open_game(bot, others, seed=find_seed(5, start=77))
        strategy = RandomPlay(5)
        turn = await play_until(
            bot, lost, users, strategy, lambda t: t.phase is Phase.PRESIDENT_DISCARD
        )
        table = await bot.table(lost)
        assert table is not None
        mark = len(bot.fake.calls)
        await lose_access(bot, lost, users[1], how)
        if how in ("403_on_send", "400_chat_not_found"):
            # The President's discard is taken; the round message's edit meets the error.
            await press_move(bot, turn, cb.DISCARD, turn.args(cb.DISCARD)[0])
            failed = calls_after(bot, lost.id, mark, ok=False)
            assert len(failed) == 1, f"the bot kept calling a chat it cannot write to: {failed}"
            assert failed[0].status == (403 if how == "403_on_send" else 400)
        await bot.settle()
        assert await bot.record(lost) is None, "the game of a lost group goes on"
        assert not calls_after(bot, lost.id, mark, ok=True), "a message reached a lost group"
        # The players are free at once: one of them opens a game in another group.
        for user in users:
            assert await bot.store.player_chat(user.id) is None, f"{user.full_name} held"
        elsewhere = bot.h.group(creator=users[2], members=[users[3]])
        await bot.h.command(users[2], elsewhere, "/newgame")
        opened = await bot.table(elsewhere)
        assert opened is not None and opened.host == users[2].id
        # A press on a message of the lost game changes nothing.
        if how not in ("403_on_send", "400_chat_not_found"):
            data = cb.game_data(table.gid, table.step, cb.DISCARD, turn.args(cb.DISCARD)[0])
            query = await bot.h.press_raw(turn.user, turn.user.id, turn.message.message_id, data)
            assert bot.h.answer(query).text == EN._("This button belongs to a game that is over.")
        # A restart does not revive it; the other group's game goes on to its end.
        calls_before_restart = len(bot.fake.calls)
        await restarts.restart(bot)
        assert await bot.record(lost) is None
        assert not calls_after(bot, lost.id, calls_before_restart), "called again at restart"
        played = await play(bot, other, others, RandomPlay(8))
        await check_finished(bot, played)
        check_group_keeps_secrets(bot.fake, other.id)
        no_secret_in(bot, lost.id)
        assert not calls_after(bot, lost.id, mark, ok=True)
        restarts.assert_no_errors(bot)


# ------------------------------------------------------------------------------ blocked


class NominateThem(Strategy):
    """Random play, except that every President nominates ``target`` when allowed, so the
    target gets a private hand again and again."""

    def __init__(self, target: int, seed: int) -> None:
        self.target = str(target)
        self.random = RandomPlay(seed)

    def choose(self, turn: Turn) -> tuple[str, str | None]:
        if turn.phase is Phase.NOMINATE and (cb.NOMINATE, self.target) in turn.options:
            return cb.NOMINATE, self.target
        if turn.phase is Phase.VOTE:
            return cb.VOTE, "1"
        return self.random.choose(turn)


async def test_a_player_who_blocks_the_bot_is_reported_once_and_the_game_goes_on(
    store: Store,
) -> None:
    async with running_bot(store, timers="short") as bot:
        h = bot.h
        users = make_users(5)
        group = await open_game(bot, users, seed=find_seed(5, first_president=0, hitler=4))
        blocked = users[1]
        by_id = {u.id: u for u in users}
        strategy = NominateThem(1, seed=2)
        h.block(blocked)
        warning = r.unreachable_text(EN, blocked.full_name)
        resent = timed_out = 0
        for _ in range(400):
            table = await bot.table(group)
            if table is None:
                break
            assert table.game is not None
            game = table.game
            actor = table.at(game.to_act()[0]).id
            if game.phase not in (Phase.NOMINATE, Phase.VOTE) and actor == blocked.id:
                pending = step_message(bot.fake, blocked.id, table, frozenset({cb.DISCARD}))
                assert pending is None or not resent, "a blocked player got a prompt"
                if not resent:
                    # They unblock and press Start: the prompt they missed comes again.
                    await h.command(blocked, blocked, "/start")
                    resent += 1
                    turn = await next_turn(bot, group, by_id)
                    assert turn is not None and turn.user == blocked
                    await press_move(bot, turn, *strategy.choose(turn))
                    h.block(blocked)
                    continue
                # Blocked again: the deadline plays their step.
                await fire_deadline(bot, group.id)
                after = await bot.table(group)
                assert after is None or after.step > table.step, "the deadline did nothing"
                timed_out += 1
                continue
            turn = await next_turn(bot, group, by_id)
            assert turn is not None
            await press_move(bot, turn, *strategy.choose(turn))
        else:
            raise AssertionError("the game did not end")
        assert resent == 1 and timed_out >= 1, (resent, timed_out)
        failed = [c for c in bot.fake.calls if c.chat_id == blocked.id and not c.ok]
        assert len(failed) >= 2, "the test should meet the blocked player more than once"
        texts = group_texts(bot, group.id)
        assert texts.count(warning) == 1, f"told {texts.count(warning)} times"
        finished = await bot.finished(group)
        assert finished.game is not None and finished.game.is_over
        check_group_keeps_secrets(bot.fake, group.id)
        check_calls_valid(bot.fake, allowed_failures=len(failed))
        h.assert_no_errors()


async def fire_deadline(bot: Bot, chat_id: int) -> None:
    assert bot.app.job_queue is not None
    jobs = [j for j in bot.app.job_queue.jobs() if j.name == f"deadline:{chat_id}"]
    jobs = [j for j in jobs if not j.removed]
    assert len(jobs) == 1, f"{len(jobs)} deadlines armed"
    jobs[0].schedule_removal()
    await jobs[0].run(bot.app)
    await bot.settle()


# ------------------------------------------------------------------------------ Redis


def kill_redis(server: RedisServer, *, keep: bool) -> None:
    """Redis dies; ``keep``: with a snapshot its next start loads (persistence)."""
    if keep:
        client = redis.Redis.from_url(server.url)
        try:
            client.save()
        finally:
            client.close()
    server.stop(kill=True)


def start_redis(server: RedisServer) -> None:
    server.start()  # loads the snapshot if there is one
    assert server.workdir is not None
    (server.workdir / "dump.rdb").unlink(missing_ok=True)  # later starts are empty


def unavailable_after(bot: Bot, answers: int, calls: int) -> list[str]:
    """Every "temporarily unavailable" the bot said after these marks (answers, calls)."""
    said = [a.text or "" for a in bot.fake.answers[answers:]]
    said += [str(c.params.get("text", "")) for c in bot.fake.calls[calls:]]
    return [s for s in said if s == UNAVAILABLE]


def discard_step(turn: Turn) -> bool:
    return turn.game.round >= 2 and turn.phase is Phase.PRESIDENT_DISCARD


async def test_presses_while_redis_is_down_change_nothing_and_the_game_resumes(
    restartable_redis: RedisServer,
    outage_store: RedisStore,  # noqa: F811
) -> None:
    async with running_bot(outage_store) as bot:
        h = bot.h
        users = make_users(5)
        strategy = RandomPlay(21)
        group = await open_game(bot, users, seed=find_seed(5, start=5))
        turn = await play_until(bot, group, users, strategy, discard_step)
        before = await bot.record(group)
        assert before is not None
        board = bot.fake.message(group.id, Table.from_dict(before.data).shown["board"])
        kill_redis(restartable_redis, keep=True)
        try:
            hand = turn.message.buttons()[0]["callback_data"]
            discard = await h.press(turn.user, turn.message, data=hand)
            role = await h.press(users[3], board, text="🂠 My role")
            await h.command(users[2], group, "/board")
            assert h.errors and all(isinstance(e, StoreUnavailable) for e in h.errors), h.errors
            h.errors.clear()
        finally:
            start_redis(restartable_redis)
        for query in (discard, role):
            answer = h.answer(query)
            assert refused(answer) and answer.text == UNAVAILABLE, answer
        assert h.last(group).text == UNAVAILABLE
        after = await bot.record(group)
        assert after is not None and (after.version, after.data) == (before.version, before.data)
        # Right away, the same buttons work: no stray "unavailable", ever after.
        marks = len(bot.fake.answers), len(bot.fake.calls)
        await press_move(bot, turn, *strategy.choose(turn))
        played = await play(bot, group, users, strategy)
        await check_finished(bot, played)
        check_group_keeps_secrets(bot.fake, group.id)
        assert not unavailable_after(bot, *marks)
        h.assert_no_errors()


async def test_redis_dying_while_a_game_starts_delays_its_messages_but_loses_none(
    restartable_redis: RedisServer,
    outage_store: RedisStore,  # noqa: F811
) -> None:
    """Redis dies just as the first role goes out: what Telegram got is recorded once Redis is
    back, and the rest of the start (roles, board, round 1) follows by itself."""
    async with running_bot(outage_store) as bot:
        users = make_users(5)
        group = await open_game(bot, users, seed=find_seed(5, start=3), start=False)
        user_ids = {u.id for u in users}

        def die_on_first_role(method: str, params: dict[str, Any]) -> None:
            if method.lower() == "sendmessage" and params.get("chat_id") in user_ids:
                bot.fake.before_call = None
                kill_redis(restartable_redis, keep=True)

        bot.fake.before_call = die_on_first_role
        lobby = lobby_message(bot, group)
        start = await bot.h.press(users[0], lobby, data=button_data(lobby, cb.START))
        assert not bot.h.refused(start)
        await asyncio.sleep(1.5)  # the delivery meets the outage
        start_redis(restartable_redis)
        await bot.settle()
        table = await bot.table(group)
        assert table is not None and table.game is not None
        assert not {s for s in table.owed if not s.startswith("role")}, table.owed
        for user in users:
            roles = [m for m in bot.h.private_messages(user) if m.text.startswith("🤫")]
            assert roles, f"{user.full_name} never got a role"
        played = await play(bot, group, users, RandomPlay(2))
        await check_finished(bot, played)
        check_group_keeps_secrets(bot.fake, group.id)
        bot.h.assert_no_errors()


async def test_a_game_redis_lost_is_announced_once_and_its_buttons_go(
    restartable_redis: RedisServer,
    outage_store: RedisStore,  # noqa: F811
) -> None:
    async with running_bot(outage_store) as bot:
        h = bot.h
        users = make_users(5)
        strategy = RandomPlay(9)
        group = await open_game(bot, users, seed=find_seed(5, start=15))
        turn = await play_until(bot, group, users, strategy, discard_step)
        table = await bot.table(group)
        assert table is not None
        board = bot.fake.message(group.id, table.shown["board"])
        kill_redis(restartable_redis, keep=False)
        try:  # while it is down, presses are told so
            query = await h.press(users[1], board, text="🂠 My role")
            assert h.answer(query).text == UNAVAILABLE
            assert h.errors and all(isinstance(e, StoreUnavailable) for e in h.errors)
            h.errors.clear()
        finally:
            start_redis(restartable_redis)  # empty: the game is gone
        over = EN._("This button belongs to a game that is over.")
        # The President's hand: the press is answered and the hand loses its buttons.
        hand = turn.message.buttons()[0]["callback_data"]
        query = await h.press(turn.user, turn.message, data=hand)
        await bot.settle()
        assert h.answer(query).text == over
        assert bot.fake.message(turn.user.id, turn.message.message_id).buttons() == []
        # "My role" on the board: the same, and the group hears of it, once.
        role = board.button(text="🂠 My role")["callback_data"]
        query = await h.press(users[2], board, data=role)
        await bot.settle()
        assert h.answer(query).text == over
        assert bot.fake.message(group.id, board.message_id).buttons() == []
        for user in users[3:]:  # pressed before the buttons went (or a forged press)
            query = await h.press_raw(user, group.id, board.message_id, role)
            await bot.settle()
            assert h.answer(query).text == over
        texts = group_texts(bot, group.id)
        assert texts.count(LOST) == 1, f"told {texts.count(LOST)} times"
        assert UNAVAILABLE not in texts
        # The players are free: a new game opens and plays in the same group.
        await h.command(users[1], group, "/newgame")
        opened = await bot.table(group)
        assert opened is not None and opened.gid != table.gid
        h.assert_no_errors()


async def test_the_first_press_after_a_redis_restart_is_served(
    restartable_redis: RedisServer,
    outage_store: RedisStore,  # noqa: F811
) -> None:
    async with running_bot(outage_store) as bot:
        users = make_users(5)
        strategy = RandomPlay(4)
        group = await open_game(bot, users, seed=find_seed(5, start=25))
        turn = await play_until(bot, group, users, strategy, lambda t: t.phase is Phase.VOTE)
        kill_redis(restartable_redis, keep=True)  # a quick restart, between two presses
        start_redis(restartable_redis)
        marks = len(bot.fake.answers), len(bot.fake.calls)
        data = turn.message.buttons()[0]["callback_data"]
        query = await bot.h.press(turn.user, turn.message, data=data)
        await bot.settle()
        assert not unavailable_after(bot, *marks), bot.h.answer(query)


# ------------------------------------------------------------------------------ duplicates


def press_update(bot: Bot, user: FakeUser, message: Any, data: str) -> dict[str, Any]:
    """The callback query update Telegram sends for a press (to deliver it more than once)."""
    query_id = f"{user.id}9{len(bot.fake.calls):09d}"
    bot.fake.register_callback_query(query_id, user.id)
    return {
        "callback_query": {
            "id": query_id,
            "from": user.to_dict(),
            "message": bot.fake.message(message.chat_id, message.message_id).to_dict(),
            "chat_instance": "1",
            "data": data,
        }
    }


_update_ids = itertools.count(5_000_001)


async def deliver(bot: Bot, update: dict[str, Any], update_id: int) -> None:
    """Telegram delivers ``update`` (again: a webhook retry keeps the update id)."""
    await bot.app.process_update(Update.de_json({"update_id": update_id, **update}, bot.app.bot))
    await bot.settle()


def answers_to(bot: Bot, update: dict[str, Any]) -> int:
    query_id = update["callback_query"]["id"]
    return sum(1 for a in bot.fake.answers if a.query_id == query_id)


async def test_a_press_delivered_twice_or_late_is_applied_once(store: Store) -> None:
    async with running_bot(store) as bot:
        users = make_users(5)
        strategy = RandomPlay(30)
        group = await open_game(bot, users, seed=find_seed(5, start=50))
        turn = await play_until(bot, group, users, strategy, lambda t: t.phase is Phase.NOMINATE)
        first = turn.message.buttons()[0]["callback_data"]
        nominate = press_update(bot, turn.user, turn.message, first)
        nomination_id = next(_update_ids)
        await deliver(bot, nominate, nomination_id)
        turn = await next_turn(bot, group, {u.id: u for u in users})
        assert turn is not None and turn.phase is Phase.VOTE
        vote_data = cb.game_data(turn.table.gid, turn.table.step, cb.VOTE, "1")
        vote = press_update(bot, turn.user, turn.message, vote_data)
        vote_id = next(_update_ids)
        await deliver(bot, vote, vote_id)
        once = await bot.record(group)
        assert once is not None
        table = Table.from_dict(once.data)
        assert table.game is not None and table.game.votes[turn.seat] == 1
        # The same vote again (a webhook retry), then the nomination again, late.
        await deliver(bot, vote, vote_id)
        await deliver(bot, vote, next(_update_ids))  # the same query in a new update
        await deliver(bot, nominate, nomination_id)
        again = await bot.record(group)
        assert again is not None and (again.version, again.data) == (once.version, once.data)
        assert answers_to(bot, vote) == 1 and answers_to(bot, nominate) == 1
        played = await play(bot, group, users, strategy)
        await check_game(bot, played)


async def test_a_press_delivered_again_after_a_restart_is_applied_once(
    reopen: StoreFactory,  # noqa: F811
) -> None:
    async with restartable_bot(reopen) as (restarts, bot):
        users = make_users(5)
        strategy = RandomPlay(31)
        group = await open_game(bot, users, seed=find_seed(5, start=60))
        turn = await play_until(
            bot, group, users, strategy, lambda t: t.phase is Phase.PRESIDENT_DISCARD
        )
        data = cb.game_data(turn.table.gid, turn.table.step, *strategy.choose(turn))
        discard = press_update(bot, turn.user, turn.message, data)
        update_id = next(_update_ids)
        await deliver(bot, discard, update_id)
        once = await bot.record(group)
        assert once is not None
        # The bot dies before Telegram heard that the update was handled: it comes again.
        await restarts.restart(bot, crash=True)
        await deliver(bot, discard, update_id)
        again = await bot.record(group)
        assert again is not None
        before, after = Table.from_dict(once.data), Table.from_dict(again.data)
        assert after.game is not None and before.game is not None
        assert (after.step, after.game.to_dict()) == (before.step, before.game.to_dict())
        played = await play(bot, group, users, strategy)
        await check_finished(bot, played)
        check_group_keeps_secrets(bot.fake, group.id)
        restarts.assert_no_errors(bot)


async def newgame_and_join_twice(bot: Bot, users: list[FakeUser]) -> FakeChat:
    """/newgame, then users[1]'s Join press, each delivered twice with the same update id."""
    h = bot.h
    group = h.group(creator=users[0], members=users[1:])
    for user in users:
        await h.command(user, user, "/start")
    text = "/newgame"
    entity = {"type": "bot_command", "offset": 0, "length": len(text)}
    sent = bot.fake.receive_message(group.id, users[0].to_dict(), text, [entity])
    newgame = {"message": sent.to_dict()}
    update_id = next(_update_ids)
    await deliver(bot, newgame, update_id)
    first = await bot.table(group)
    assert first is not None
    await deliver(bot, newgame, update_id)
    lobby = lobby_message(bot, group)
    join = press_update(bot, users[1], lobby, button_data(lobby, cb.JOIN))
    join_id = next(_update_ids)
    await deliver(bot, join, join_id)
    await deliver(bot, join, join_id)
    table = await bot.table(group)
    assert table is not None and table.gid == first.gid
    assert [p.id for p in table.players] == [users[0].id, users[1].id]
    lobbies = [m for m in bot.fake.messages(group.id) if m.buttons()]
    assert len(lobbies) == 1, "a second lobby message"
    assert answers_to(bot, join) == 1
    return group


async def test_a_command_or_join_delivered_twice_is_applied_once(store: Store) -> None:
    async with running_bot(store) as bot:
        await newgame_and_join_twice(bot, make_users(5))
        # What a second delivery may cost: the answer to an answered query is refused.
        errors = [str(e) for e in bot.h.errors]
        assert all("query is too old" in e.lower() for e in errors), errors
        bot.h.errors.clear()


async def test_a_join_delivered_twice_raises_nothing(store: Store) -> None:
    async with running_bot(store) as bot:
        await newgame_and_join_twice(bot, make_users(5))
        bot.h.assert_no_errors()


async def test_a_lost_game_with_timers_is_announced_at_its_deadline_without_a_press(
    restartable_redis: RedisServer,
    outage_store: RedisStore,  # noqa: F811
) -> None:
    """Redis restarts empty and nobody presses: the next deadline finds no game, the group
    is told once, and the round message and the board lose their buttons (issue 13)."""
    async with running_bot(outage_store, timers="short") as bot:
        users = make_users(5)
        group = await open_game(bot, users, seed=find_seed(5, start=3))
        await bot.settle()
        table = await bot.table(group)
        assert table is not None and table.game is not None
        kept = {s: table.shown[s] for s in ("board", f"round:{table.game.round}")}
        assert all(bot.fake.message(group.id, mid).buttons() for mid in kept.values())
        kill_redis(restartable_redis, keep=False)
        start_redis(restartable_redis)  # empty: the game is gone
        assert bot.app.job_queue is not None
        for _ in range(2):  # the deadline, then (a late duplicate) once more
            jobs = [
                j
                for j in bot.app.job_queue.jobs()
                if j.name and j.name.startswith(f"deadline:{group.id}")
            ]
            assert jobs, "no deadline armed"
            await jobs[0].run(bot.app)
            await bot.settle()
        texts = group_texts(bot, group.id)
        assert texts.count(LOST) == 1, f"told {texts.count(LOST)} times"
        for slot, mid in kept.items():
            assert bot.fake.message(group.id, mid).buttons() == [], (
                f"{slot} kept its buttons",
                [(c.method, c.status, c.description) for c in bot.fake.calls[-6:]],
            )
        bot.h.assert_no_errors()
