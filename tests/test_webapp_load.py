"""The Mini App under load, against the real server (issue 34): many connections and event
streams, the caps refusing the excess with 429 and Retry-After while a game's presses are
still answered within a second; one change serialised once per audience; an outsider's
burst of chat ids costing no more Bot API calls than the limit, on a budget of its own."""

from __future__ import annotations

import asyncio
import random
import socket
import time
from collections import Counter
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from shbot.bot import callbacks as cb
from shbot.bot.delivery.limiter import (
    GAME_RESERVE,
    OVERALL_LIMIT,
    OWN_BUDGET,
    Busy,
    ChatRateLimiter,
)
from shbot.storage import Store
from shbot.webapp import access as access_module
from shbot.webapp import hub as hub_module
from tests.botplay import Bot, RandomPlay, next_turn, open_game
from tests.harness import FakeUser, make_user, make_users
from tests.webapp_bot import base_url, signed, webapp, webapp_bot


@pytest.fixture
async def wbot(store: Store) -> AsyncIterator[Bot]:
    async with webapp_bot(store) as running:
        yield running


class Raw:
    """One event stream over a bare socket (a few KB each, so hundreds fit in a test)."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer
        self.status = 0
        self.head = b""
        self.buffer = b""

    @classmethod
    async def open(cls, bot: Bot, chat: int, init: str) -> Raw:
        reader, writer = await asyncio.open_connection("127.0.0.1", webapp(bot).port)
        stream = cls(reader, writer)
        writer.write(
            (
                f"GET /table/api/events?chat={chat} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                f"Authorization: tma {init}\r\nAccept-Encoding: gzip\r\n\r\n"
            ).encode()
        )
        try:
            stream.head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 30)
            stream.status = int(stream.head.split()[1])
        except (asyncio.IncompleteReadError, ConnectionError):
            stream.status = 0
        return stream

    def header(self, name: str) -> str | None:
        for line in self.head.decode().split("\r\n")[1:]:
            key, _, value = line.partition(":")
            if key.strip().lower() == name.lower():
                return value.strip()
        return None

    async def until(self, needle: bytes, timeout: float) -> bool:
        """Read until ``needle`` has come (True) or ``timeout``."""
        try:
            async with asyncio.timeout(timeout):
                while needle not in self.buffer:
                    chunk = await self.reader.read(65536)
                    if not chunk:
                        return False
                    self.buffer += chunk
        except TimeoutError:
            return False
        return True

    def close(self) -> None:
        self.writer.close()


async def press_some(bot: Bot, group: Any, users: list[FakeUser], presses: int) -> list[float]:
    """Press the game's next moves; how long each press took to be answered."""
    strategy = RandomPlay(7)
    by_id = {u.id: u for u in users}
    took = []
    for _ in range(presses):
        turn = await next_turn(bot, group, by_id)
        assert turn is not None
        op, arg = strategy.choose(turn)
        started = time.monotonic()
        query = await bot.h.press(
            turn.user, turn.message, data=cb.game_data(turn.table.gid, turn.table.step, op, arg)
        )
        assert bot.h.answer(query) is not None
        took.append(time.monotonic() - started)
        await bot.settle()
    return took


async def test_caps_refuse_the_excess_while_presses_are_answered_within_a_second(
    wbot: Bot,
) -> None:
    players = make_users(5)
    watchers = [make_user(f"W{i}") for i in range(45)]
    group = wbot.h.group(creator=players[0], members=[*players[1:], *watchers])
    await open_game(wbot, players, group=group)
    app = webapp(wbot)
    app.max_streams, app.streams_per_user = 250, 6
    budget = getattr(app.access, "budget", None)
    if budget is not None:  # 45 watchers asked at once
        budget.tokens = budget.burst = 100
    assert app.server is not None
    app.server.max_connections = 400
    everyone = [*players, *watchers]
    inits = {u.id: signed(wbot, u) for u in everyone}
    streams: list[Raw] = []
    idle: list[tuple[asyncio.StreamReader, asyncio.StreamWriter]] = []
    try:
        # Seven streams for each of 50 members: six each at most, 250 in all.
        attempts = [u for u in everyone for _ in range(7)]
        for i in range(0, len(attempts), 50):
            batch = attempts[i : i + 50]
            streams += await asyncio.gather(*(Raw.open(wbot, group.id, inits[u.id]) for u in batch))
        statuses = Counter(s.status for s in streams)
        assert statuses == {200: 250, 429: 100}, statuses
        for refused in (s for s in streams if s.status == 429):
            assert int(refused.header("Retry-After") or 0) >= 1
        assert all(s.header("Content-Encoding") is None for s in streams if s.status == 200)
        assert sum(app.per_user.values()) == 250 and max(app.per_user.values()) == 6
        # Idle connections that never send a request: beyond the cap, a 429 and closed.
        for _ in range(250):
            idle.append(await asyncio.open_connection("127.0.0.1", app.port))
        await asyncio.sleep(0.2)
        full = 0
        for reader, _ in idle:
            try:
                got = await asyncio.wait_for(reader.read(200), 0.01)
            except TimeoutError:
                continue
            if got.startswith(b"HTTP/1.1 429"):
                assert b"Retry-After: " in got
                full += 1
        assert full >= 90, full  # 500 asked for, 400 kept (a few may be the test's own)
        assert app.server.connections <= 400
        # The game goes on: every press answered within a second, every stream follows.
        live = [s for s in streams if s.status == 200]
        for s in live:
            assert await s.until(b"data: ", 5.0)
            s.buffer = b""
        took = await press_some(wbot, group, players, 6)
        assert max(took) < 1.0, took
        followed = await asyncio.gather(*(s.until(b'"phase": "vote"', 5.0) for s in live))
        assert all(followed)
    finally:
        for s in streams:
            s.close()
        for _, writer in idle:
            writer.close()


async def test_a_change_is_serialised_once_per_audience(
    wbot: Bot, monkeypatch: pytest.MonkeyPatch
) -> None:
    players = make_users(5)
    watchers = [make_user("Watcher A"), make_user("Watcher B")]
    group = wbot.h.group(creator=players[0], members=[*players[1:], *watchers])
    await open_game(wbot, players, group=group)
    built: Counter[str] = Counter()
    real_public, real_personal = hub_module.views.public, hub_module.views.personal

    def public(*args: Any) -> Any:
        built["public"] += 1
        return real_public(*args)

    def personal(*args: Any) -> Any:
        built["personal"] += 1
        return real_personal(*args)

    monkeypatch.setattr(hub_module.views, "public", public)
    monkeypatch.setattr(hub_module.views, "personal", personal)
    viewers = [players[0], players[1], *watchers]  # three audiences: two seats, no seat
    streams = [await Raw.open(wbot, group.id, signed(wbot, u)) for u in viewers for _ in range(5)]
    try:
        assert {s.status for s in streams} == {200}
        for s in streams:
            assert await s.until(b"data: ", 5.0)
            s.buffer = b""
        built.clear()
        await press_some(wbot, group, players, 1)  # a nomination: one change
        assert all(await asyncio.gather(*(s.until(b'"phase": "vote"', 5.0) for s in streams)))
        assert built == {"public": 1, "personal": 3}, built
    finally:
        for s in streams:
            s.close()


async def test_an_outsiders_burst_of_chat_ids_costs_no_more_calls_than_the_limit(
    wbot: Bot, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(access_module, "ASKS_PER_USER", 2, raising=False)
    groups = [await open_game(wbot, make_users(5)) for _ in range(3)]
    outsider = make_user("Outsider")
    wbot.fake.add_user(outsider.to_dict())
    init = signed(wbot, outsider)
    rng = random.Random(34)
    chats = [-1_000_000_000_000 - rng.randrange(10**9) for _ in range(597)]
    chats += [g.id for g in groups]
    rng.shuffle(chats)

    def asked() -> int:
        return sum(1 for c in wbot.fake.calls if c.method == "getChatMember")

    before = asked()
    statuses: Counter[int] = Counter()
    started = time.monotonic()
    async with httpx.AsyncClient(headers={"Authorization": f"tma {init}"}) as client:
        for i in range(0, len(chats), 50):
            got = await asyncio.gather(
                *(
                    client.get(f"{base_url(wbot)}/api/state", params={"chat": str(chat)})
                    for chat in chats[i : i + 50]
                )
            )
            statuses.update(r.status_code for r in got)
            for r in got:
                if r.status_code == 429:
                    assert int(r.headers["retry-after"]) >= 1
                    assert r.json()["reason"] == "busy"
    assert asked() - before <= 2, asked() - before
    assert statuses == {404: 597, 403: 2, 429: 1}, statuses
    assert time.monotonic() - started < 30
    # The same ids again: no call at all (refusals kept, no game never asked).
    async with httpx.AsyncClient(headers={"Authorization": f"tma {init}"}) as client:
        for chat in [g.id for g in groups] * 3:
            await client.get(f"{base_url(wbot)}/api/state", params={"chat": str(chat)})
    assert asked() - before <= 2


async def test_membership_checks_have_a_budget_of_their_own(wbot: Bot) -> None:
    """Many outsiders at once: the Mini App's budget refuses the excess (429) instead of
    queueing calls; none of them takes a slot of the game's limiter."""
    group = await open_game(wbot, make_users(5))
    outsiders = [make_user(f"Out{i}") for i in range(20)]
    for user in outsiders:
        wbot.fake.add_user(user.to_dict())
    before = sum(1 for c in wbot.fake.calls if c.method == "getChatMember")
    async with httpx.AsyncClient() as client:
        got = await asyncio.gather(
            *(
                client.get(
                    f"{base_url(wbot)}/api/state",
                    params={"chat": str(group.id)},
                    headers={"Authorization": f"tma {signed(wbot, u)}"},
                )
                for u in outsiders
            )
        )
    asked = sum(1 for c in wbot.fake.calls if c.method == "getChatMember") - before
    assert asked <= getattr(access_module, "ASK_BURST", 10) + 1, asked
    assert Counter(r.status_code for r in got) == {403: asked, 429: 20 - asked}


async def test_the_mini_apps_calls_never_make_a_game_call_wait() -> None:
    """The Mini App's membership checks count in the process's 30 a second (Telegram's
    limit is for the whole bot) but only while more than GAME_RESERVE calls stay free: past
    that they wait OWN_WAIT at most, then are refused (Busy, a 429 to the page), so the games'
    calls never wait behind them. (A ten-second window here: nothing frees within OWN_WAIT.)"""
    limiter = ChatRateLimiter(OVERALL_LIMIT, period=10.0)
    calls: list[str] = []

    async def call(name: str) -> bool:
        calls.append(name)
        return True

    async def member() -> bool:
        return await limiter.process_request(  # type: ignore[return-value]
            call, ("member",), {}, "getChatMember", {"chat_id": -1}, OWN_BUDGET
        )

    taken = 0
    started = time.monotonic()
    with pytest.raises(Busy):
        for _ in range(OVERALL_LIMIT):
            await member()
            taken += 1
    assert taken == OVERALL_LIMIT - GAME_RESERVE and calls.count("member") == taken
    assert time.monotonic() - started < 0.5  # refused at once: no slot within OWN_WAIT
    started = time.monotonic()
    for i in range(GAME_RESERVE):  # the games' calls still go at once
        await limiter.process_request(call, (f"m{i}",), {}, "sendMessage", {"chat_id": -1}, None)
    assert time.monotonic() - started < 0.5
    assert len(limiter.window.times) == OVERALL_LIMIT


async def test_a_stream_whose_client_reads_nothing_is_closed(
    wbot: Bot, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A client that opens a stream and never reads keeps neither the stream's slot nor
    ever more of its events in memory: a write not taken within WRITE_SECONDS ends it."""
    from shbot.webapp import server

    monkeypatch.setattr(server, "WRITE_SECONDS", 0.5)
    users = make_users(5)
    group = await open_game(wbot, users)
    app = webapp(wbot)
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.connect(("127.0.0.1", app.port))
    sock.sendall(
        f"GET /table/api/events?chat={group.id} HTTP/1.1\r\nHost: x\r\n"
        f"Authorization: tma {signed(wbot, users[0])}\r\n\r\n".encode()
    )
    try:
        for _ in range(100):
            if app.streams:
                break
            await asyncio.sleep(0.02)
        assert len(app.streams) == 1
        big = b"data: " + b"x" * 262_144 + b"\n\n"
        count = iter(range(10**6))
        monkeypatch.setattr(app.hub.frames, "event", lambda *a: big + str(next(count)).encode())
        table = await wbot.table(group)
        assert table is not None
        started = time.monotonic()
        while app.streams and time.monotonic() - started < 20:
            app.hub.changed(group.id, table)  # a change; the stream cannot pass it on
            await asyncio.sleep(0.05)
        assert not app.streams and not app.per_user, "the stream still holds its slot"
        assert time.monotonic() - started < 15
    finally:
        sock.close()
