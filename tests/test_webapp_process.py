"""``shbot run`` with the Mini App on: the real process serves the page and its API beside
polling and beside the webhook, and a port it cannot take stops it with one line."""

from __future__ import annotations

import asyncio
import socket
from pathlib import Path

import httpx
import pytest

from shbot.webapp.auth import init_data
from tests.http_bot_api import TOKEN, PollingBotAPI, free_port, served, stop
from tests.test_operations import RUN, start

USER = {"id": 4242, "is_bot": False, "first_name": "Zoé", "language_code": "fr"}


async def page_up(url: str, timeout: float = 60.0) -> httpx.Response:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    async with httpx.AsyncClient() as client:
        while True:
            try:
                return await client.get(url)
            except httpx.TransportError:
                if loop.time() > deadline:
                    raise
                await asyncio.sleep(0.2)


@pytest.mark.parametrize("mode", ["polling", "webhook"])
async def test_the_bot_process_serves_the_mini_app(tmp_path: Path, mode: str) -> None:
    port = free_port()
    fake = PollingBotAPI()
    async with served(fake) as api:
        values = {
            "BOT_TOKEN": TOKEN,
            "SHBOT_API_URL": api,
            "SHBOT_WEBAPP_URL": f"http://127.0.0.1:{port}/table/",
            "SHBOT_WEBAPP_LISTEN": "127.0.0.1",
            "SHBOT_WEBAPP_PORT": str(port),
        }
        if mode == "webhook":
            values["SHBOT_WEBHOOK_URL"] = f"http://127.0.0.1:{free_port()}/hook"
            values["SHBOT_WEBHOOK_LISTEN"] = "127.0.0.1"
            values["SHBOT_WEBHOOK_PORT"] = values["SHBOT_WEBHOOK_URL"].split(":")[2].split("/")[0]
        process = await start(tmp_path, **values)
        try:
            page = await page_up(f"http://127.0.0.1:{port}/table/")
            assert page.status_code == 200 and "static/app.js" in page.text
            async with httpx.AsyncClient() as client:
                state = await client.get(
                    f"http://127.0.0.1:{port}/table/api/state",
                    headers={"Authorization": f"tma {init_data(TOKEN, USER)}"},
                )
            assert state.status_code == 404  # signed in, but Zoé plays no game
            assert state.json()["error"].startswith("Aucune partie à afficher")
        finally:
            out, err = await stop(process)
    assert process.returncode == 0, err
    assert "Mini App served on 127.0.0.1" in err
    assert "Traceback" not in err and TOKEN not in out + err


async def test_a_taken_port_stops_the_start_with_one_line(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        fake = PollingBotAPI()
        async with served(fake) as api:
            process = await start(
                tmp_path,
                BOT_TOKEN=TOKEN,
                SHBOT_API_URL=api,
                SHBOT_WEBAPP_URL="http://127.0.0.1/table",
                SHBOT_WEBAPP_LISTEN="127.0.0.1",
                SHBOT_WEBAPP_PORT=str(port),
            )
            _out, err = await asyncio.wait_for(process.communicate(), 60)
    assert process.returncode == 2, err.decode()
    last = err.decode().strip().splitlines()[-1]
    assert last.startswith(
        f"shbot: SHBOT_WEBAPP_LISTEN/SHBOT_WEBAPP_PORT: cannot listen on 127.0.0.1:{port}"
    ), err.decode()
    assert "Traceback" not in err.decode()


async def test_a_flood_of_connections_leaves_the_bot_answering(tmp_path: Path) -> None:
    """600 connections that never send a request, against a process allowed 160 open
    files (prlimit: no raising it): the excess is refused with 429, the log stays short
    (no traceback per turn of the accept loop) and the bot still answers a command."""
    port = free_port()
    fake = PollingBotAPI()
    async with served(fake) as api:
        values = {
            "BOT_TOKEN": TOKEN,
            "SHBOT_API_URL": api,
            "SHBOT_WEBAPP_URL": f"http://127.0.0.1:{port}/table/",
            "SHBOT_WEBAPP_PORT": str(port),  # on 127.0.0.1: the default
        }
        process = await start(tmp_path, "prlimit", "--nofile=160:160", *RUN, **values)
        held: list[tuple[asyncio.StreamReader, asyncio.StreamWriter]] = []
        try:
            assert (await page_up(f"http://127.0.0.1:{port}/table/")).status_code == 200
            for _ in range(600):
                try:
                    held.append(await asyncio.open_connection("127.0.0.1", port))
                except OSError:
                    break
            await asyncio.sleep(1.0)
            refused = 0
            for reader, _ in held:
                try:
                    got = await asyncio.wait_for(reader.read(100), 0.01)
                except TimeoutError:
                    continue
                refused += got.startswith(b"HTTP/1.1 429")
            fake.send(USER, "/start")
            replies = await fake.reply_to(USER["id"], 1, timeout=15)
            assert replies and replies[0], "the bot answers while its page is flooded"
        finally:
            for _, writer in held:
                writer.close()
            _out, err = await stop(process)
    assert process.returncode == 0, err
    assert len(held) == 600 and refused >= 500, (len(held), refused)
    assert "open files 160; at most 16 connections" in err
    assert len(err.splitlines()) < 60 and "Traceback" not in err, err[-3000:]
