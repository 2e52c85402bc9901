"""Deadlines: no game ever stalls. Jobs are fired directly (no sleeping, no real time)."""

from __future__ import annotations

from typing import Any

import pytest

from shbot.bot import callbacks as cb
from shbot.engine import Phase
from shbot.i18n import translator
from shbot.storage import Store
from shbot.table.model import Table
from tests.botplay import (
    Bot,
    button_data,
    check_group_keeps_secrets,
    open_game,
    rewrite_game,
    running_bot,
    step_message,
)
from tests.botrestart import StoreFactory, reopen, restartable_bot  # noqa: F401
from tests.harness import FakeUser, make_users

EN = translator("en")


def jobs_named(bot: Bot, name: str) -> list[Any]:
    assert bot.app.job_queue is not None
    return [j for j in bot.app.job_queue.jobs() if j.name == name and not j.removed]


async def fire(bot: Bot, kind: str, chat_id: int) -> bool:
    """Run the pending ``kind`` job ("deadline" or "remind") of a chat now, as if its time
    had come. Returns False when there is none."""
    pending = jobs_named(bot, f"{kind}:{chat_id}")
    if not pending:
        return False
    assert len(pending) == 1, f"{len(pending)} {kind} jobs armed for one game"
    job = pending[0]
    job.schedule_removal()
    await job.run(bot.app)
    await bot.settle()
    return True


def first_data(message: Any, op: str, arg: str | None = None) -> str:
    """Callback data of the first button of ``message`` for ``op`` (and ``arg``)."""
    for button in message.buttons():
        press = cb.parse(button.get("callback_data", ""))
        if isinstance(press, cb.GamePress) and press.op == op and arg in (None, press.arg):
            return str(button["callback_data"])
    raise AssertionError(f"no {op!r} button in {message.buttons()}")


def by_id(users: list[FakeUser]) -> dict[int, FakeUser]:
    return {u.id: u for u in users}


def texts(bot: Bot, chat_id: int) -> list[str]:
    return [m.text for m in bot.fake.messages(chat_id)]


@pytest.mark.parametrize("players", [5, 10])
async def test_a_game_whose_players_all_stop_pressing_reaches_its_end(
    store: Store, players: int
) -> None:
    async with running_bot(store, timers="short") as bot:
        users = make_users(players)
        group = await open_game(bot, users, seed=players * 7 + 1)
        steps = 0
        while (table := await bot.table(group)) is not None:
            assert table.deadline is not None, f"step {table.step} has no deadline"
            assert jobs_named(bot, f"deadline:{group.id}"), f"step {table.step} not armed"
            before = table.step
            assert await fire(bot, "deadline", group.id)
            after = await bot.table(group)
            assert after is None or after.step > before, "a deadline did not move the game on"
            steps += 1
            assert steps < 500, "the game does not end"
        finished = await bot.finished(group)
        assert finished.game is not None and finished.game.is_over
        over = bot.h.last(group).text
        assert "win" in over, over
        group_texts = texts(bot, group.id)
        assert sum("⏰ Time is up" in t for t in group_texts) >= 5
        check_group_keeps_secrets(bot.fake, group.id)
        stats = await store.group_stats(group.id)
        assert stats["games"] == 1
        assert not jobs_named(bot, f"deadline:{group.id}"), "a finished game keeps a timer"
        bot.h.assert_no_errors()


async def test_reminder_names_whom_the_game_waits_for_once(store: Store) -> None:
    async with running_bot(store, timers="short") as bot:
        users = make_users(5)
        group = await open_game(bot, users, seed=3)
        table = await bot.table(group)
        assert table is not None and table.game is not None
        president = table.at(table.game.president)
        assert await fire(bot, "remind", group.id)
        reminder = bot.h.last(group).text
        assert president.name in reminder and "30 seconds left" in reminder
        nudges = [m.text for m in bot.h.private_messages(by_id(users)[president.id])]
        assert any("nominate a Chancellor" in t for t in nudges)
        # Re-arming (a restart, say) does not remind a second time.
        from shbot.bot import jobs

        after = await bot.table(group)
        assert after is not None and after.reminded
        jobs.arm(bot.app, group.id, after)
        assert not jobs_named(bot, f"remind:{group.id}")
        assert jobs_named(bot, f"deadline:{group.id}")


async def _to_vote(bot: Bot, group: Any, users: list[FakeUser]) -> Table:
    table = await bot.table(group)
    assert table is not None and table.game is not None
    president = by_id(users)[table.at(table.game.president).id]
    message = step_message(bot.fake, group.id, table, frozenset({cb.NOMINATE}))
    assert message is not None
    await bot.h.press(president, message, data=first_data(message, cb.NOMINATE))
    await bot.settle()
    table = await bot.table(group)
    assert table is not None and table.game is not None and table.game.phase is Phase.VOTE
    return table


@pytest.mark.parametrize("rule", ["nein", "ignore"])
async def test_missing_votes_count_as_nein_or_are_not_counted(store: Store, rule: str) -> None:
    async with running_bot(store, timers="short") as bot:
        users = make_users(5)
        group = await open_game(bot, users, seed=5)
        if rule == "ignore":
            await store.update_group(group.id, {"missing_votes": "ignore"})
        table = await _to_vote(bot, group, users)
        message = step_message(bot.fake, group.id, table, frozenset({cb.VOTE}))
        assert message is not None
        ja = first_data(message, cb.VOTE, "1")
        for user in users[:2]:  # two Ja!, three players never vote
            await bot.h.press(user, message, data=ja)
        await bot.settle()
        assert await fire(bot, "deadline", group.id)
        note = next(t for t in reversed(texts(bot, group.id)) if "⏰ Time is up" in t)
        after = await bot.table(group)
        assert after is not None and after.game is not None
        if rule == "nein":
            assert "count as Nein!" in note
            assert after.game.tracker == 1 and after.game.phase is Phase.NOMINATE
        else:
            assert "not counted" in note
            assert after.game.phase is Phase.PRESIDENT_DISCARD  # 2 Ja! of 2 ballots cast
        for user in users[2:]:
            assert user.full_name in note


async def test_a_step_finished_in_time_ignores_its_old_deadline(store: Store) -> None:
    async with running_bot(store, timers="short") as bot:
        users = make_users(5)
        group = await open_game(bot, users, seed=9)
        old = jobs_named(bot, f"deadline:{group.id}")[0]
        await _to_vote(bot, group, users)
        record = await store.get_game(group.id)
        assert record is not None
        await old.run(bot.app)  # the nomination's deadline, fired late
        await bot.settle()
        again = await store.get_game(group.id)
        assert again is not None and again.data == record.data and again.version == record.version


async def test_private_step_expires_with_a_random_legal_choice_and_says_so(store: Store) -> None:
    async with running_bot(store, timers="short") as bot:
        users = make_users(5)
        group = await open_game(bot, users, seed=11)
        table = await _to_vote(bot, group, users)
        message = step_message(bot.fake, group.id, table, frozenset({cb.VOTE}))
        assert message is not None
        ja = first_data(message, cb.VOTE, "1")
        for user in users:
            await bot.h.press(user, message, data=ja)
        await bot.settle()
        table = await bot.table(group)
        assert table is not None and table.game is not None
        assert table.game.phase is Phase.PRESIDENT_DISCARD
        president = by_id(users)[table.at(table.game.president).id]
        prompt_id = table.shown[f"prompt:{table.step}"]
        assert await fire(bot, "deadline", group.id)
        prompt = bot.fake.message(president.id, prompt_id)
        assert prompt.text.startswith("⏰ Time ran out")
        # The hand's buttons gave way to the claim's (the President tells what they drew).
        assert prompt.text.endswith("🗣 Round 1: what do you tell the group you drew as President?")
        ops = {cb.parse(b["callback_data"]).op for b in prompt.buttons()}  # type: ignore[union-attr]
        assert ops == {cb.CLAIM}
        after = await bot.table(group)
        assert after is not None and after.game is not None
        assert after.game.phase is Phase.CHANCELLOR_ENACT
        note = next(t for t in reversed(texts(bot, group.id)) if "⏰ Time is up" in t)
        assert "discarded one of the three policies at random" in note
        assert "🔵" not in note and "🔴" not in note  # nothing of the hand


async def test_unanswered_veto_is_refused(store: Store) -> None:
    async with running_bot(store, timers="short") as bot:
        users = make_users(5)
        group = await open_game(bot, users, seed=13)

        def unlock(game: Any) -> None:
            game.fascist = 5

        await rewrite_game(bot, group, unlock)
        table = await _to_vote(bot, group, users)
        message = step_message(bot.fake, group.id, table, frozenset({cb.VOTE}))
        assert message is not None
        ja = first_data(message, cb.VOTE, "1")
        for user in users:
            await bot.h.press(user, message, data=ja)
        await bot.settle()
        assert await fire(bot, "deadline", group.id)  # the President's discard, at random
        table = await bot.table(group)
        assert table is not None and table.game is not None
        if table.game.is_over:  # pragma: no cover - depends on the seed's deck
            pytest.skip("the seed ended the game")
        chancellor = by_id(users)[table.at(table.game.chancellor).id]
        prompt = bot.fake.message(chancellor.id, table.shown[f"prompt:{table.step}"])
        await bot.h.press(chancellor, prompt, data=button_data(prompt, cb.VETO))
        await bot.settle()
        table = await bot.table(group)
        assert table is not None and table.game is not None
        assert table.game.phase is Phase.VETO_RESPONSE
        assert await fire(bot, "deadline", group.id)
        after = await bot.table(group)
        assert after is not None and after.game is not None
        assert after.game.phase is Phase.CHANCELLOR_ENACT and after.game.veto_refused
        assert any("the veto is refused" in t for t in texts(bot, group.id))


async def test_timers_off_means_no_deadline_and_ping_nudges(store: Store) -> None:
    async with running_bot(store, timers="off") as bot:
        users = make_users(5)
        group = await open_game(bot, users, seed=17)
        table = await bot.table(group)
        assert table is not None and table.deadline is None and table.game is not None
        assert not jobs_named(bot, f"deadline:{group.id}")
        president = table.at(table.game.president)
        await bot.h.command(users[3], group, "/ping")
        await bot.settle()
        assert president.name in bot.h.last(group).text
        assert "waiting for you" in bot.h.last(group).text
        await bot.h.command(users[4], group, "/ping")  # too soon: answered, nobody nudged again
        await bot.settle()
        assert "/ping again" in bot.h.last(group).text
        assert len([m for m in bot.fake.messages(group.id) if "waiting for you" in m.text]) == 1


async def test_deadlines_survive_a_restart(reopen: StoreFactory) -> None:  # noqa: F811
    """On SQLite and on Redis: the new process re-arms the stored deadline, which then fires."""
    async with restartable_bot(reopen) as (restarts, bot):
        users = make_users(5)
        group = await open_game(bot, users, seed=19)
        table = await bot.table(group)
        assert table is not None and table.deadline is not None
        await restarts.restart(bot)
        again = await bot.table(group.id)
        assert again is not None and again.deadline == table.deadline
        assert jobs_named(bot, f"deadline:{group.id}"), "the restarted bot did not re-arm"
        assert await fire(bot, "deadline", group.id)
        moved = await bot.table(group.id)
        assert moved is not None and moved.step > table.step
        restarts.assert_no_errors(bot)
