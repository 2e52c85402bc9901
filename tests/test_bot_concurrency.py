"""Concurrent presses on one game through the whole handler stack are applied exactly once.

Two bot processes (two ``Application`` objects, each with its own store object on the same
SQLite file or Redis prefix, so neither shares in-process locks with the other) receive the
updates; ``asyncio.gather`` of ``Application.process_update`` makes them race. Telegram may
deliver one update more than once (same update id, same callback query id): the duplicates
must change nothing and the query must be answered once.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Sequence

from telegram import Update

from shbot.bot import callbacks as cb
from shbot.bot import render as r
from shbot.engine import Phase
from tests.botplay import EN, Bot, next_turn, open_game, press_move
from tests.botrestart import Restarts, StoreFactory, reopen
from tests.fake_telegram import NOT_MODIFIED, FakeChat
from tests.harness import FakeUser, make_users

__all__ = ["reopen"]  # the fixture, imported for this module's tests

PLAYERS = 10
_update_ids = itertools.count(10_000_000)
_query_ids = itertools.count(1)


def callback_update(bot: Bot, user: FakeUser, chat_id: int, message_id: int, data: str) -> dict:
    """The JSON of one callback query update, with fresh update and query ids."""
    query_id = f"c{user.id}{next(_query_ids):06d}"
    bot.fake.register_callback_query(query_id, user.id)
    message = bot.fake.message(chat_id, message_id).to_dict()
    return {
        "update_id": next(_update_ids),
        "callback_query": {
            "id": query_id,
            "from": user.to_dict(),
            "message": message,
            "chat_instance": str(abs(chat_id) * 7 + 3),
            "data": data,
        },
    }


async def deliver(bots: Sequence[Bot], payloads: Sequence[dict]) -> None:
    """Every payload at once, spread over the bot processes in turn."""
    await asyncio.gather(
        *(
            bots[i % len(bots)].app.process_update(
                Update.de_json(payload, bots[i % len(bots)].app.bot)
            )
            for i, payload in enumerate(payloads)
        )
    )
    for b in bots:
        await b.settle()


async def two_processes(reopen: StoreFactory) -> tuple[Restarts, list[Bot]]:
    restarts = Restarts(reopen)
    return restarts, [await restarts.start(), await restarts.start()]


async def to_vote(bot: Bot, users: Sequence[FakeUser]) -> tuple[FakeChat, int, int]:
    """A started 10-player game whose first nomination is made: (group, round msg, step)."""
    group = await open_game(bot, users, seed=7)
    turn = await next_turn(bot, group, {u.id: u for u in users})
    assert turn is not None and turn.phase is Phase.NOMINATE
    await press_move(bot, turn, *turn.options[0])
    table = await bot.table(group)
    assert table is not None and table.game is not None and table.game.phase is Phase.VOTE
    return group, table.shown[f"round:{table.game.round}"], table.step


def vote_data(bot_table_gid: str, step: int, ja: bool) -> str:
    return cb.game_data(bot_table_gid, step, cb.VOTE, 1 if ja else 0)


async def check_clean(restarts: Restarts, bots: Sequence[Bot]) -> None:
    for b in bots:
        b.h.assert_no_errors()
    # Each process remembers what it showed, not what the other did: both may make the same
    # final edit, and Telegram refuses the second as "not modified". Nothing else may fail.
    failed = [
        (c.method, c.description)
        for c in bots[0].fake.failed_calls
        if c.description != NOT_MODIFIED
    ]
    assert not failed, f"refused calls (a query answered twice?): {failed}"
    for b in bots:
        await restarts.stop(b)


async def test_fifty_deliveries_of_one_press_count_once(reopen: StoreFactory) -> None:
    restarts, bots = await two_processes(reopen)
    users = make_users(PLAYERS)
    group, round_msg, step = await to_vote(bots[0], users)
    table = await bots[0].table(group)
    before = await bots[0].record(group)
    assert table is not None and before is not None
    voter = users[3]
    payload = callback_update(
        bots[0], voter, group.id, round_msg, vote_data(table.gid, step, ja=True)
    )
    await deliver(bots, [payload] * 50)

    after = await bots[0].record(group)
    assert after is not None and after.version == before.version + 1, "not exactly one save"
    game = (await bots[1].table(group)).game  # type: ignore[union-attr]
    assert game is not None and game.phase is Phase.VOTE
    seat = table.seat_of(voter.id)
    assert seat is not None
    assert [s for s, v in enumerate(game.votes) if v >= 0] == [seat] and game.votes[seat] == 1
    answers = [a for a in bots[0].fake.answers if a.query_id == payload["callback_query"]["id"]]
    assert len(answers) == 1 and answers[0].text == EN._(
        "Your vote: Ja! You can change it until everyone has voted."
    )
    await check_clean(restarts, bots)


async def test_everyone_votes_at_once_with_duplicates(reopen: StoreFactory) -> None:
    """10 players vote at once, each press delivered three times and mashed twice more: 50
    updates. The election is decided once, with every ballot, and revealed once."""
    restarts, bots = await two_processes(reopen)
    users = make_users(PLAYERS)
    group, round_msg, step = await to_vote(bots[0], users)
    table = await bots[0].table(group)
    assert table is not None and table.game is not None
    ballots = {u.id: i % 3 != 0 for i, u in enumerate(users)}  # 6 Ja, 4 Nein: elected
    payloads = []
    for user in users:
        data = vote_data(table.gid, step, ballots[user.id])
        first = callback_update(bots[0], user, group.id, round_msg, data)
        payloads += [first, first, first]  # Telegram delivering one update three times
        payloads += [callback_update(bots[0], user, group.id, round_msg, data) for _ in range(2)]
    assert len(payloads) == 50
    await deliver(bots, payloads)

    after = await bots[1].table(group)
    assert after is not None and after.game is not None
    game = after.game
    elections = [e for e in game.history if e[0] == "e"]
    assert len(elections) == 1, game.history
    want = "".join("j" if ballots[after.at(s).id] else "n" for s in range(PLAYERS))
    assert elections[0][4] == want
    assert game.phase is Phase.PRESIDENT_DISCARD and after.step == step + 1
    # Every query got exactly one answer; the duplicates of a delivery got none.
    queries = {p["callback_query"]["id"] for p in payloads}
    answered = [a.query_id for a in bots[0].fake.answers if a.query_id in queries]
    assert len(queries) == 30 and sorted(answered) == sorted(queries)
    shown = bots[0].fake.message(group.id, round_msg).text
    assert shown.count(EN._("✅ The government is elected.")) == 1, shown
    assert shown == r.round_text(EN, after), "the round message does not show the last state"
    president = after.at(game.president)
    prompts = [m for m in bots[0].fake.messages(president.id) if "You are President" in m.text]
    assert len(prompts) == 1, "the President's hand was sent more than once"
    await check_clean(restarts, bots)


async def test_last_two_votes_at_the_same_moment(reopen: StoreFactory) -> None:
    restarts, bots = await two_processes(reopen)
    users = make_users(PLAYERS)
    group, round_msg, step = await to_vote(bots[0], users)
    table = await bots[0].table(group)
    assert table is not None
    for user in users[:-2]:
        await deliver(
            bots[:1],
            [
                callback_update(
                    bots[0], user, group.id, round_msg, vote_data(table.gid, step, False)
                )
            ],
        )
    last_two = [
        callback_update(bots[0], user, group.id, round_msg, vote_data(table.gid, step, True))
        for user in users[-2:]
    ]
    await deliver(bots, last_two)  # one on each process, at once

    after = await bots[0].table(group)
    assert after is not None and after.game is not None
    game = after.game
    elections = [e for e in game.history if e[0] == "e"]
    assert len(elections) == 1 and elections[0][4].count("j") == 2, game.history
    assert game.phase is Phase.NOMINATE and game.tracker == 1 and after.step == step + 1
    shown = bots[0].fake.message(group.id, round_msg).text
    assert shown.count(EN._("❌ The government is rejected.")) == 1, shown
    # The board may come after the first round message (the step's own message goes first).
    closed = [
        m
        for m in bots[0].fake.messages(group.id)
        if m.message_id > round_msg and m.message_id != after.shown["board"]
    ]
    assert len(closed) == 1 and closed[0].buttons(), "one new round message, with its buttons"
    await check_clean(restarts, bots)
