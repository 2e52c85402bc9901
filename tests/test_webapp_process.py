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
from tests.test_operations import start

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
