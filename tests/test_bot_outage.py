"""Redis stops in the middle of a game: the bot says so, keeps running, and finishes the game.

While Redis is down every press and command is answered with a short "temporarily
unavailable" in the presser's language, the bot does not crash and writes nothing; once
Redis is back (same data: it is saved before the kill and reloaded at start) the game goes on
from where it stood, through the very buttons that were on screen, to its end.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Iterator

import pytest
import redis

from shbot.bot.handlers import help_text
from shbot.i18n import translator
from shbot.storage import StoreUnavailable
from shbot.storage.redis import RedisStore
from tests.botplay import (
    Turn,
    check_calls_valid,
    check_finished,
    check_group_keeps_secrets,
    play_planned,
    running_bot,
)
from tests.harness import make_user, make_users, refused
from tests.redis_server import RedisServer

UNAVAILABLE = "⚠️ I am temporarily unavailable. Please try again in a moment."


@pytest.fixture
async def outage_store(
    restartable_redis: RedisServer, redis_prefix: str
) -> AsyncIterator[RedisStore]:
    store = RedisStore(restartable_redis.url, prefix=redis_prefix, socket_timeout=0.5)
    yield store
    restartable_redis.ensure_running()
    await store.close()


@contextlib.contextmanager
def redis_down(server: RedisServer) -> Iterator[None]:
    """Kill Redis (after a snapshot) and start it again with that data on exit."""
    client = redis.Redis.from_url(server.url)
    try:
        client.save()
    finally:
        client.close()
    server.stop(kill=True)
    try:
        yield
    finally:
        server.start()  # loads the snapshot
        assert server.workdir is not None
        (server.workdir / "dump.rdb").unlink(missing_ok=True)  # later restarts start empty


async def test_game_goes_on_after_redis_was_down(
    restartable_redis: RedisServer, outage_store: RedisStore
) -> None:
    users = make_users(6)
    users[1] = make_user("Hanako", language_code="ja")
    outages = 0

    async def outage(turn: Turn) -> None:
        nonlocal outages
        if outages or turn.game.round != 2 or turn.phase.value != "vote":
            return
        if sum(v >= 0 for v in turn.game.votes) < 2:
            return
        outages += 1
        h = bot.h
        group_id = turn.message.chat_id  # votes happen in the group
        before = await bot.record(group_id)
        assert before is not None
        with redis_down(restartable_redis):
            pressed = [turn.user, users[1]]
            answers = []
            for user in pressed:
                query = await h.press(user, turn.message, text="Ja!")
                answers.append(h.answer(query))
            await h.command(users[1], turn.message.chat_id, "/board")
            board_reply = h.last(turn.message.chat_id)
            await h.command(users[1], users[1], "/help")
            help_reply = h.last(users[1])
            # The outage is logged as such and every handler got a StoreUnavailable, no crash.
            assert h.errors and all(isinstance(e, StoreUnavailable) for e in h.errors), h.errors
            h.errors.clear()
        for user, answer in zip(pressed, answers, strict=True):
            t = translator(user.language_code or "en")
            assert refused(answer) and answer.text == t._(UNAVAILABLE), answer
        assert answers[1].text != UNAVAILABLE, "the Japanese player got English"
        assert board_reply.text == translator("ja")._(UNAVAILABLE)
        # /help needs no store (the language is cached): it keeps working.
        assert help_reply.text == help_text(translator("ja"))
        # Nothing was written while Redis was down, and the store is usable again by itself.
        after = await bot.record(group_id)
        assert after is not None and (after.version, after.data) == (before.version, before.data)

    async with running_bot(outage_store) as bot:
        played = await play_planned(
            bot, users, ["x", "F", "L", "F", "L", "L", "L", "L"], hitler=4, before=outage
        )
        assert outages == 1
        assert played.game.condition is not None
        assert played.game.condition.value == "five_liberal"
        # check_game without the private-message census, which reads English texts only.
        await check_finished(bot, played)
        check_group_keeps_secrets(bot.fake, played.group.id)
        check_calls_valid(bot.fake)
        bot.h.assert_no_errors()
