"""The Mini App's small defences, each against the real server (issue 34): ids beyond 64
bits, initData out of the logs, odd static paths, the security headers, a large body
refused from its length, a connection that never finishes its headers, a refusal of
membership forgotten soon, the descriptor limit, the accept loop out of descriptors, and
the listener on loopback by default."""

from __future__ import annotations

import asyncio
import dataclasses
import errno
import logging
import socket
import time
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from shbot.bot.config import load_config
from shbot.storage import Store
from shbot.webapp import guard
from tests.botplay import Bot, open_game
from tests.harness import make_user, make_users
from tests.webapp_bot import base_url, get_state, signed, webapp, webapp_bot

TOKEN = "123456:" + "A" * 35


@pytest.fixture
async def wbot(store: Store) -> AsyncIterator[Bot]:
    async with webapp_bot(store) as running:
        yield running


async def raw(bot: Bot, request: bytes, timeout: float = 3.0) -> bytes:
    """Send ``request`` on a fresh connection; everything the server answers until it
    closes the connection (or ``timeout``: then what came so far)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", webapp(bot).port)
    writer.write(request)
    await writer.drain()
    got = b""
    try:
        async with asyncio.timeout(timeout):
            while chunk := await reader.read(65536):
                got += chunk
    except TimeoutError:
        got += b"<timeout>"
    finally:
        writer.close()
    return got


async def test_ids_beyond_64_bits_are_refused_not_a_500(wbot: Bot) -> None:
    users = make_users(5)
    group = await open_game(wbot, users)
    init = signed(wbot, users[0])
    headers = {"Authorization": f"tma {init}"}
    async with httpx.AsyncClient() as client:
        for chat in (str(2**64), str(-(2**63) - 1), "9" * 20, "-" + "9" * 19, "c" + "9" * 25):
            url = f"{base_url(wbot)}/api/state"
            response = await client.get(url, params={"chat": chat}, headers=headers)
            assert response.status_code == 404, (chat, response.text)
            assert response.json()["reason"] == "no_game"
    huge = dataclasses.replace(make_user("Huge"), id=2**64 + 5)
    response = await get_state(wbot, signed(wbot, huge), group.id)
    assert response.status_code == 400 and response.json()["reason"] == "malformed"
    assert (await get_state(wbot, init, group.id)).status_code == 200


async def test_init_data_never_reaches_a_log_line(
    wbot: Bot, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    users = make_users(5)
    group = await open_game(wbot, users)
    init = signed(wbot, users[0])
    digest = dict(httpx.QueryParams(init))["hash"]

    async def broken(*args: Any) -> int:
        raise RuntimeError("the store fell over")

    monkeypatch.setattr(webapp(wbot).access, "chat_for", broken)
    caplog.set_level(logging.DEBUG)
    async with httpx.AsyncClient() as client:
        url = f"{base_url(wbot)}/api/state"
        got = await client.get(url, params={"chat": str(group.id), "init": init})
        assert got.status_code == 500
        got = await client.get(url, headers={"Authorization": f"tma {init}"})
        assert got.status_code == 500 and digest not in got.text
    assert "the store fell over" in caplog.text, "the failure itself is logged"
    for record in caplog.records:
        if record.name.startswith(("httpx", "httpcore")):
            continue  # the test's own client
        line = logging.Formatter().format(record)
        assert digest not in line and "auth_date" not in line, line


async def test_odd_static_paths_are_a_plain_404(
    wbot: Bot, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    odd = (
        "/static/%00",
        "/static/app%00.js",
        "/static/app.js%00",
        "/static/..%2Fserver.py",
        "/static/%2e%2e/server.py",
        "/static/",
        "/static/index.html",
        "/api/nothing",
        "/api/state/%00",
    )
    async with httpx.AsyncClient() as client:
        for path in odd:
            got = await client.get(f"{base_url(wbot)}{path}")
            assert got.status_code == 404, (path, got.status_code)
            assert "Traceback" not in got.text and len(got.content) < 200, path
        assert (await client.get(f"{base_url(wbot)}/static/app.js")).status_code == 200
    assert "Traceback" not in caplog.text and "Uncaught" not in caplog.text


async def test_telegram_alone_may_frame_the_page_and_nothing_is_sniffed(wbot: Bot) -> None:
    users = make_users(5)
    group = await open_game(wbot, users)
    async with httpx.AsyncClient() as client:
        page = await client.get(f"{base_url(wbot)}/")
        csp = page.headers["content-security-policy"]
        framers = csp.split("frame-ancestors", 1)[1].split(";")[0].split()
        assert framers and all(f.startswith("https://") for f in framers), csp
        assert all(f.endswith(("telegram.org", ".telegram.org")) for f in framers), csp
        assert "https://web.telegram.org" in framers or "https://*.telegram.org" in framers
        static = await client.get(f"{base_url(wbot)}/static/app.js")
        missing = await client.get(f"{base_url(wbot)}/static/none.js")
    state = await get_state(wbot, signed(wbot, users[0]), group.id)
    refused = await get_state(wbot, "", group.id)
    for response in (page, static, missing, state, refused):
        assert response.headers.get("x-content-type-options") == "nosniff", response.url


async def test_a_large_body_is_refused_before_it_is_read(wbot: Bot) -> None:
    head = (
        b"POST /table/api/state HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        b"Content-Length: 50000000\r\nContent-Type: application/octet-stream\r\n\r\n"
    )
    started = time.monotonic()
    got = await raw(wbot, head + b"x" * 1024, timeout=3.0)
    assert got.startswith((b"HTTP/1.1 400", b"HTTP/1.1 413")), got[:80]
    assert not got.endswith(b"<timeout>") and time.monotonic() - started < 2.0


async def test_a_connection_that_never_finishes_its_headers_is_closed(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(guard, "HEADER_SECONDS", 0.5)
    async with webapp_bot(store) as bot:
        started = time.monotonic()
        got = await raw(bot, b"GET /table/ HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: 1", 5.0)
        assert not got.endswith(b"<timeout>"), "still open after 5 s"
        assert time.monotonic() - started < 3.0
        # ...and so is one idle after its answer (keep-alive).
        whole = b"GET /table/static/app.css HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
        got = await raw(bot, whole, 5.0)
        assert got.startswith(b"HTTP/1.1 200") and not got.endswith(b"<timeout>")


async def test_a_refusal_is_forgotten_soon_after_the_user_joins_the_group(wbot: Bot) -> None:
    users = make_users(5)
    group = await open_game(wbot, users)
    newcomer = make_user("Newcomer")
    wbot.fake.add_user(newcomer.to_dict())
    init = signed(wbot, newcomer)
    assert (await get_state(wbot, init, group.id)).status_code == 403
    group.members.add(newcomer.id)  # joins the group
    access = webapp(wbot).access
    now = time.monotonic()
    access.clock = lambda: now + 31.0  # type: ignore[method-assign]
    assert (await get_state(wbot, init, group.id)).status_code == 200
    group.members.discard(newcomer.id)  # leaves it; a chat_member update would say so
    access.forget(group.id, newcomer.id)
    assert (await get_state(wbot, init, group.id)).status_code == 403


def test_the_soft_descriptor_limit_is_raised_to_the_hard_one() -> None:
    resource = pytest.importorskip("resource")
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or hard <= 256:
        pytest.skip(f"hard limit {hard}: nothing to raise")
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (256, hard))
        assert guard.raise_nofile() == hard
        assert resource.getrlimit(resource.RLIMIT_NOFILE) == (hard, hard)
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    assert guard.connection_cap(1024) == 1024 - guard.RESERVE
    assert guard.connection_cap(1 << 20) == guard.MAX_CONNECTIONS


class OutOfFiles:
    """A listening socket whose accept fails as a process out of descriptors does."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.failures = 0

    def fileno(self) -> int:
        return self.sock.fileno()

    def accept(self) -> Any:
        self.failures += 1
        raise OSError(errno.EMFILE, "Too many open files")


async def test_out_of_descriptors_the_accept_loop_pauses_and_warns_once(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(guard, "PAUSE_SECONDS", 0.01)
    caplog.set_level(logging.DEBUG)
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        sock.setblocking(False)
        fake = OutOfFiles(sock)
        acceptor = guard.Acceptor(fake, lambda conn, addr: None)  # type: ignore[arg-type]
        try:
            deadline = time.monotonic() + 0.5
            while time.monotonic() < deadline:
                acceptor.ready()  # as the loop calls it whenever the socket is readable
                await asyncio.sleep(0.005)
        finally:
            acceptor.remove()
    assert fake.failures >= 10, "accepting resumes after each pause"
    warnings = [r for r in caplog.records if "cannot accept" in r.getMessage()]
    assert len(warnings) == 1, [r.getMessage() for r in warnings]
    assert not [r for r in caplog.records if r.exc_info], "no traceback"


def test_the_listener_is_on_loopback_by_default() -> None:
    config = load_config({"BOT_TOKEN": TOKEN, "SHBOT_WEBAPP_URL": "https://example.org/t/"})
    assert config.webapp_listen == "127.0.0.1"
    chosen = load_config(
        {
            "BOT_TOKEN": TOKEN,
            "SHBOT_WEBAPP_URL": "https://example.org/t/",
            "SHBOT_WEBAPP_LISTEN": "0.0.0.0",
        }
    )
    assert chosen.webapp_listen == "0.0.0.0"


@pytest.mark.parametrize("failure", [(500, "Internal Server Error"), (0, "timed out")])
async def test_a_telegram_error_on_membership_is_busy_not_a_refusal_kept(
    wbot: Bot, failure: tuple[int, str]
) -> None:
    """A 5xx or a timeout on getChatMember is no answer: the page is told to retry (429),
    nothing is cached, and the member is let in as soon as Telegram answers."""
    users = make_users(5)
    group = await open_game(wbot, users)
    member = make_user("Member")
    wbot.fake.add_user(member.to_dict())
    group.members.add(member.id)
    init = signed(wbot, member)
    wbot.fake.fail_next_with(*failure, method="getChatMember")
    busy = await get_state(wbot, init, group.id)
    assert busy.status_code == 429 and int(busy.headers["Retry-After"]) >= 1
    assert (await get_state(wbot, init, group.id)).status_code == 200
