"""Computer seats through the real Application and the fake Bot API: their moves are keyed
to the game they were armed for, and a computer standing in for a person talks for the
seat (the absent person is not asked)."""

from __future__ import annotations

from typing import Any

from shbot.bot import callbacks as cb
from shbot.bot import robots
from shbot.engine import Phase
from shbot.storage import Store
from shbot.table import claims, seats
from tests.botplay import Bot, button_data, lobby_message, open_game, press_move, running_bot
from tests.botrestart import StoreFactory, reopen, restartable_bot
from tests.fake_telegram import FakeChat
from tests.harness import FakeUser, make_users
from tests.seatplay import human_turn, play_with_computers, robot_jobs, slow_computers

__all__ = ["reopen"]  # the fixture, imported for this module's tests


async def start_with_computers(
    bot: Bot, people: list[FakeUser], computers: int, group: FakeChat | None = None
) -> FakeChat:
    group = await open_game(bot, people, group=group, seed=5, start=False)
    await bot.h.command(people[0], group, f"/addbot {computers}")
    await bot.settle()
    lobby = lobby_message(bot, group)
    await bot.h.press(people[0], lobby, data=button_data(lobby, cb.START))
    await bot.settle()
    return group


async def until_vote(bot: Bot, group: FakeChat, people: list[FakeUser], claims: int = 0) -> None:
    """Play (computer jobs one at a time, the person's first option) up to a vote after
    at least ``claims`` claims."""
    users = {u.id: u for u in people}
    for _ in range(40 + 20 * claims):
        table = await bot.table(group)
        assert table is not None and table.game is not None and not table.game.is_over
        if table.game.phase is Phase.VOTE and len(table.talk.get("claims", {})) >= claims:
            return
        jobs = robot_jobs(bot, group.id)
        if jobs:
            jobs[0].schedule_removal()
            await jobs[0].run(bot.app)
            await bot.settle()
            continue
        turn = await human_turn(bot, group, users)
        assert turn is not None
        await press_move(bot, turn, *turn.options[0])
    raise AssertionError("no vote")


async def test_moves_armed_for_a_cancelled_game_do_nothing_in_the_next_one(store: Store) -> None:
    """A 10-player game's pending computer ballots (seats up to 9) fire after the group
    cancelled it and started a 5-player game: they are refused, nothing crashes, and the
    new game does not move."""
    async with running_bot(store) as bot:
        slow_computers(bot)
        people = make_users(1)
        group = await start_with_computers(bot, people, 9)
        await until_vote(bot, group, people)
        old = await bot.table(group)
        assert old is not None and old.game is not None and old.game.n == 10
        stale = robot_jobs(bot, group.id)
        armed = [j.data for j in stale]
        assert any(int(d["seat"]) >= 5 for d in armed), armed
        await bot.h.command(people[0], group, "/cancelgame")
        await bot.settle()
        confirm = bot.h.last(group)
        await bot.h.press(people[0], confirm, data=button_data(confirm, cb.CANCEL_YES))
        await bot.settle()
        assert await bot.table(group) is None
        group = await start_with_computers(bot, people, 4, group)
        new = await bot.table(group)
        assert new is not None and new.game is not None and new.game.n == 5
        before = (new.gid, new.step, new.game.to_dict())
        for job in stale:
            await job.run(bot.app)  # fires late, whatever the queue thought of it
            await bot.settle()
        after = await bot.table(group)
        assert after is not None and after.game is not None
        assert (after.gid, after.step, after.game.to_dict()) == before
        # A claim move of the old game (its sight keys exist in any game) is refused too.
        data: dict[str, Any] = {"chat": group.id, "gid": old.gid, "sight": "1:drawn"}
        assert bot.app.job_queue is not None
        job = bot.app.job_queue.run_once(robots_on_turn(), 1e6, data=data, name="stale-claim")
        await job.run(bot.app)
        await bot.settle()
        again = await bot.table(group)
        assert again is not None and again.talk.get("claims", {}) == after.talk.get("claims", {})
        assert seats.pending(again) == seats.pending(after)
        bot.h.assert_no_errors()


def robots_on_turn() -> Any:
    return robots.on_turn


def mind(agent: Any) -> dict[str, Any]:
    """Everything an agent remembers (its dice are rolled afresh for each decision)."""
    return {k: v for k, v in vars(agent).items() if k != "rng"}


async def test_after_a_restart_computer_players_remember_the_whole_game(
    reopen: StoreFactory,
) -> None:
    """Computers that played several rounds (claims included), then a crash: the new
    process's agents, built from the stored table, remember exactly what the old ones did."""
    async with restartable_bot(reopen) as (restarts, bot):
        slow_computers(bot)
        people = make_users(1)
        group = await start_with_computers(bot, people, 6)
        await until_vote(bot, group, people, claims=4)
        table = await bot.table(group)
        assert table is not None and table.game is not None
        computers = [s for s in range(table.game.n) if seats.computer_seat(table, s)]
        old = robots.bench(bot.app)
        before = {s: mind(old.agent(group.id, table, s)) for s in computers}
        assert any(any(m["susp"]) for m in before.values()), "nothing to remember yet"
        await restarts.restart(bot, crash=True)
        slow_computers(bot)
        new = robots.bench(bot.app)
        assert new is not old and not new.agents
        table = await bot.table(group)
        assert table is not None
        after = {s: mind(new.agent(group.id, table, s)) for s in computers}
        assert after == before
        restarts.assert_no_errors(bot)


async def test_a_stand_in_claims_for_the_seat_and_the_absent_person_is_not_asked(
    store: Store,
) -> None:
    """A person leaves a running game: the computer standing in plays their seat to the
    end, claims after each of its sessions, and the person gets no claim prompt.

    The one claim it may not make is the last round's, when the game ended before its
    pause was over (its own execution of Hitler, say): nobody claims after the end."""
    async with running_bot(store) as bot:
        slow_computers(bot)
        people = make_users(5)
        group = await open_game(bot, people, seed=6)
        leaver = people[2]
        await bot.h.command(leaver, group, "/leave")
        await bot.settle()
        table = await bot.table(group)
        assert table is not None and table.standins == [leaver.id]
        seat = table.seat_of(leaver.id)
        asked_before = len(claim_prompts(bot, leaver))
        final = await play_with_computers(bot, group, people[:2] + people[3:], seed=2)
        assert final.game is not None and final.game.is_over
        sights = final.talk.get("sights", {})
        last_round = max(claims.parse_key(k)[0] for k in sights)
        theirs = [
            k
            for k, v in sights.items()
            if int(v[0]) == seat and claims.parse_key(k)[0] < last_round
        ]
        assert theirs, "the seat had nothing to claim before the last round"
        said = final.talk.get("claims", {})
        missing = [k for k in theirs if k not in said]
        assert not missing, (missing, sights, said)
        assert len(claim_prompts(bot, leaver)) == asked_before
        bot.h.assert_no_errors()


def claim_prompts(bot: Bot, user: FakeUser) -> list[str]:
    return [m.text for m in bot.h.private_messages(user) if "what do you tell the group" in m.text]
