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

import itertools
from collections.abc import Callable
from typing import Any

import pytest

from shbot.bot import callbacks as cb
from shbot.bot import render as r
from shbot.devtools.fake_telegram import MIGRATED
from shbot.engine import Phase
from shbot.i18n import translator
from shbot.storage import Store
from tests.botplay import (
    Bot,
    Hook,
    RandomPlay,
    Strategy,
    Turn,
    check_calls_valid,
    check_finished,
    check_game,
    check_group_keeps_secrets,
    find_seed,
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
from tests.harness import FakeUser, make_users, new_group_id
from tests.test_bot_outage import UNAVAILABLE, outage_store, redis_down  # noqa: F401

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
        assert board.text == r.board_text(EN, moved)
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
        assert (await store.group_stats(new.id))["games"] == 1
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
