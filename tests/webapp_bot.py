"""The bot with its Mini App on, over the fake Bot API, and a small client for the API.

``webapp_bot`` is :func:`tests.botplay.running_bot` with ``SHBOT_WEBAPP_URL`` set: the
production Application, and its Mini App server listening on loopback (a free port). The
harness starts the Application without ``run_polling``, so the server is started here as
``post_init`` starts it in production (``shbot/bot/app.py``).
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator
from typing import Any

import httpx

from shbot.bot.app import build_application
from shbot.bot.config import Config
from shbot.storage import Store
from shbot.webapp.auth import init_data
from shbot.webapp.server import WebApp
from tests.botplay import Bot
from tests.fake_telegram import FakeBotAPI
from tests.harness import FakeUser, Harness

PUBLIC_URL = "https://games.example.org/table/"


def config_for(fake: FakeBotAPI, port: int = 0) -> Config:
    return Config(
        token=fake.token,
        timers="off",
        webapp_url=PUBLIC_URL,
        webapp_listen="127.0.0.1",
        webapp_port=port,
    )


@contextlib.asynccontextmanager
async def webapp_bot(
    store: Store, *, fake: FakeBotAPI | None = None, port: int = 0
) -> AsyncIterator[Bot]:
    fake = fake or FakeBotAPI()
    config = config_for(fake, port)
    app = build_application(config, store, request=fake, menus=False)
    app.bot._rate_limiter = None
    app.bot_data["svc"].outbox.pacer.enabled = False
    async with Harness(app, fake) as h:
        web: WebApp = app.bot_data["webapp"]
        app.bot_data["svc"].bot_username = app.bot.username or ""
        await web.start(config.webapp_listen, config.webapp_port)
        bot = Bot(fake, h, store, app)
        try:
            yield bot
        finally:
            await bot.settle()
            await web.stop()


def webapp(bot: Bot) -> WebApp:
    found: WebApp = bot.app.bot_data["webapp"]
    return found


def base_url(bot: Bot) -> str:
    return f"http://127.0.0.1:{webapp(bot).port}/table"


def signed(bot: Bot, user: FakeUser, **kw: Any) -> str:
    return init_data(bot.fake.token, user.to_dict(), **kw)


async def get_state(
    bot: Bot, init: str | None, chat: int | None = None, **params: str
) -> httpx.Response:
    query = dict(params)
    if chat is not None:
        query["chat"] = str(chat)
    headers = {"Authorization": f"tma {init}"} if init else {}
    if init == "":
        query["init"] = ""
    async with httpx.AsyncClient() as client:
        return await client.get(f"{base_url(bot)}/api/state", params=query, headers=headers)


async def state(bot: Bot, user: FakeUser, chat: int | None = None) -> dict[str, Any]:
    response = await get_state(bot, signed(bot, user), chat)
    assert response.status_code == 200, response.text
    found: dict[str, Any] = response.json()
    return found


def text_of(view: dict[str, Any]) -> str:
    return json.dumps(view, ensure_ascii=False)
