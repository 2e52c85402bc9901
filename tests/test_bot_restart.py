"""A full game survives a restart of the bot at every step, on SQLite and on Redis.

The game (7 players, scripted with botplay's ``Plan``) goes through the lobby, nominations,
votes, both hands, an accepted and a refused veto, chaos, Investigate Loyalty, Special
Election, two executions and the end. Before the first press of every step, and again in the
middle of every vote, the ``Application`` is discarded and a new one is built on the reopened
store (see ``tests/botrestart.py``); the next press is then made on the button shown *before*
the restart, which must still be the one on screen. Once per kind of step the restart is a
crash instead: the press is committed but none of its messages reach Telegram, and the new
bot's recovery must put the buttons of the current step back on screen.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence

from shbot.bot import callbacks as cb
from shbot.bot import render as r
from shbot.bot.presses import decode
from shbot.engine import HITLER, Game, Phase, party_of
from tests.botplay import (
    EN,
    Bot,
    Plan,
    Played,
    Turn,
    button_data,
    check_calls_valid,
    check_finished,
    check_group_keeps_secrets,
    check_private_entitlements,
    find_seed,
    history_tags,
    lobby_message,
    next_turn,
    press_move,
    rewrite_game,
)
from tests.botrestart import Restarts, StoreFactory, blackhole, reopen, restartable_bot
from tests.fake_telegram import NOT_MODIFIED, FakeChat
from tests.harness import LATE, NOT_TURN, FakeUser, make_users, refused

__all__ = ["reopen"]  # the fixture, imported for this module's tests

# 7 players: F2 investigate, F3 special election, F4 and F5 executions, veto from F5.
TOKENS = ["F", "F", "x", "x", "cL", "F", "F", "F", "V", "RL", "L", "L", "L"]
HITLER_SEAT = 6


async def open_with_restarts(
    restarts: Restarts, bot: Bot, users: Sequence[FakeUser], seed: int
) -> FakeChat:
    """The lobby, restarted after /newgame, after a join (crash) and before Start."""
    h = bot.h
    group = h.group(creator=users[0], members=users[1:])
    for user in users:
        await h.command(user, user, "/start")
    await bot.h.command(users[0], group, "/newgame")
    await bot.settle()
    lobby = lobby_message(bot, group)
    await restarts.restart(bot)
    join = button_data(lobby, cb.JOIN)
    for i, user in enumerate(users[1:]):
        if i == 2:
            blackhole(bot)  # this join is saved, but the lobby's edit never reaches Telegram
        await bot.h.press(user, lobby, data=join)
        await bot.settle()
        if i == 2:
            await restarts.restart(bot, crash=True)
            names = [u.first_name for u in users[: i + 2]]
            shown = bot.fake.message(group.id, lobby.message_id).text
            assert all(n in shown for n in names), f"the recovered lobby lacks a player: {shown}"
    await restarts.restart(bot)
    assert lobby_message(bot, group).message_id == lobby.message_id, "a second lobby was sent"
    bot.fix_seed(seed)
    await bot.h.press(users[0], lobby, data=button_data(lobby, cb.START))
    await bot.settle()
    table = await bot.table(group)
    assert table is not None and table.game is not None, "the game did not start"
    return group


def ends_game(turn: Turn, op: str, arg: str | None) -> bool:
    game = turn.game.clone()
    press = cb.GamePress(turn.table.gid, turn.table.step, op, arg)
    game.apply(decode(turn.table, press, turn.seat))
    return game.is_over


def kind_of(turn: Turn, op: str) -> str:
    """The kind of step a press belongs to; a vote only counts when it is the last one."""
    game = turn.game
    if turn.phase is Phase.VOTE:
        pending = [s for s in range(game.n) if game.alive[s] and game.votes[s] < 0]
        return "last vote" if pending == [turn.seat] else "vote"
    return f"{turn.phase.value}:{op}"


async def play_with_restarts(
    restarts: Restarts,
    bot: Bot,
    group: FakeChat,
    users: Sequence[FakeUser],
    plan: Plan,
    *,
    every_step: bool = True,
    crash_in: Callable[[str], bool] = lambda kind: kind != "vote",
    after_crash: Callable[[Turn], Awaitable[None]] | None = None,
) -> tuple[Played, set[str]]:
    """botplay.play with restarts: see the module docstring. Returns the kinds crashed in."""
    by_id = {u.id: u for u in users}
    first = await bot.table(group)
    assert first is not None and first.game is not None
    seat_users = [by_id[first.at(s).id] for s in range(first.game.n)]
    restarted: set[tuple[int, str]] = set()
    crashed: set[str] = set()
    stale: tuple[FakeUser, int, int, str] | None = None  # a button of an earlier step
    for _ in range(500):
        table = await bot.table(group)
        if table is None:
            break
        assert table.game is not None
        hidden = table.game.clone()
        if plan.prepare(hidden):
            draw = list(hidden.draw)

            def stack(g: Game, draw: list[str] = draw) -> None:
                g.draw = list(draw)

            await rewrite_game(bot, group, stack)
        turn = await next_turn(bot, group, by_id)
        assert turn is not None
        game = turn.game
        voted = sum(v >= 0 for v in game.votes) if turn.phase is Phase.VOTE else 0
        moment = (table.step, "start" if voted < 3 else "mid-vote")
        if every_step and moment not in restarted and voted in (0, 3):
            restarted.add(moment)
            await restarts.restart(bot)
            again = await next_turn(bot, group, by_id)
            assert again is not None
            assert (again.message.chat_id, again.message.message_id) == (
                turn.message.chat_id,
                turn.message.message_id,
            ), f"step {table.step} ({turn.phase}): the restart sent its buttons again"
            if stale is not None:
                await press_stale(bot, group, *stale)
        op, arg = plan.choose(turn)
        kind = kind_of(turn, op)
        crash = kind not in crashed and crash_in(kind) and not ends_game(turn, op, arg)
        if crash:
            crashed.add(kind)
            blackhole(bot)
        await press_move(bot, turn, op, arg)
        if turn.phase is not Phase.VOTE:
            data = cb.game_data(turn.table.gid, turn.table.step, op, arg)
            stale = (turn.user, turn.message.chat_id, turn.message.message_id, data)
        if crash:
            await restarts.restart(bot, crash=True)
            if after_crash is not None:
                await after_crash(turn)
    else:
        raise AssertionError("the game did not end")
    await bot.settle()
    return Played(group, [], await bot.finished(group), seat_users), crashed


async def press_stale(
    bot: Bot, group: FakeChat, user: FakeUser, chat: int, mid: int, data: str
) -> None:
    """A press on a button of an earlier step, after a restart: refused, nothing changes."""
    before = await bot.record(group)
    query = await bot.h.press_raw(user, chat, mid, data)
    answer = bot.h.answer(query)
    text = answer.text or ""
    assert refused(answer) and (LATE.fullmatch(text) or NOT_TURN.fullmatch(text)), answer
    after = await bot.record(group)
    assert after is not None and before is not None and after.version == before.version


async def test_game_survives_a_restart_at_every_step(reopen: StoreFactory) -> None:
    users = make_users(7)
    seed = find_seed(7, hitler=HITLER_SEAT, first_president=0, start=1)
    async with restartable_bot(reopen) as (restarts, bot):
        group = await open_with_restarts(restarts, bot, users, seed)
        played, crashed = await play_with_restarts(
            restarts,
            bot,
            group,
            users,
            Plan(TOKENS, seed=0),
            # The result of an investigation edits the prompt: see the test below.
            crash_in=lambda kind: kind not in ("vote", "investigate:p"),
        )
        game = played.game
        assert game.condition is not None and game.condition.value == "five_liberal"
        tags = history_tags(game)
        assert {"i", "s", "x", "v", "vr", "c"} <= set(tags), game.history
        assert tags["x"] == 2 and game.roles.index(HITLER) == HITLER_SEAT
        # Every kind of step was interrupted by a crash at least once.
        assert {
            "nominate:n",
            "last vote",
            "president_discard:d",
            "chancellor_enact:e",
            "chancellor_enact:vp",
            "veto_response:va",
            "special_election:p",
            "execution:p",
        } <= crashed, crashed
        assert restarts.count > 40
        await check_finished(bot, played)
        check_group_keeps_secrets(bot.fake, group.id)
        check_private_entitlements(bot, played)
        # A recovered bot cannot know what Telegram shows: refreshing a message that did not
        # change is the only refusal allowed.
        refused = [c for c in bot.fake.failed_calls if c.description != NOT_MODIFIED]
        assert not refused, refused
        check_calls_valid(bot.fake, allowed_failures=len(bot.fake.failed_calls))
        restarts.assert_no_errors(bot)
        # Nothing was sent twice: one lobby, one board, one message per round, the end.
        assert bot.fake.group_sends(group.id) == 3 + game.round, game.round


async def test_investigation_result_lost_in_a_crash_is_in_my_role(reopen: StoreFactory) -> None:
    """A crash right after Investigate Loyalty, before the result was sent: the restarted
    bot delivers the result it still owed (delivery is part of the state), the "My role"
    button also tells it, and the game goes on."""
    users = make_users(7)
    seed = find_seed(7, hitler=HITLER_SEAT, first_president=0, start=1)
    alerts: list[str] = []

    async def my_role(turn: Turn) -> None:
        game = (await bot.table(group)).game  # type: ignore[union-attr]
        assert game is not None
        (_, president, target), *_ = [e for e in game.history if e[0] == "i"]
        investigator = by_seat[president]
        owed = [m for m in bot.fake.messages(investigator.id) if "is a member of" in m.text]
        assert len(owed) == 1, "the result owed before the crash arrives after the restart"
        board = bot.fake.message(group.id, (await bot.table(group)).shown["board"])  # type: ignore[union-attr]
        query = await bot.h.press(investigator, board, data=button_data(board, cb.MY_ROLE))
        text = bot.h.answer(query).text or ""
        party = r.party_name(EN, party_of(game.roles[target]))
        assert f": {party}." in text and "You investigated" in text, text
        alerts.append(text)

    async with restartable_bot(reopen) as (restarts, bot):
        group = await open_with_restarts(restarts, bot, users, seed)
        table = await bot.table(group)
        assert table is not None and table.game is not None
        by_seat = {s: u for u in users for s in [table.seat_of(u.id)] if s is not None}
        _, crashed = await play_with_restarts(
            restarts,
            bot,
            group,
            users,
            Plan(["F", "F", "L", "L", "L", "L", "L"], seed=0),
            every_step=False,
            crash_in=lambda kind: kind == "investigate:p",
            after_crash=my_role,
        )
        assert crashed == {"investigate:p"} and len(alerts) == 1
        restarts.assert_no_errors(bot)
