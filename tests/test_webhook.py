"""Webhook mode: Telegram posts updates over HTTP; only requests with the secret count.

The production Application (over the fake Bot API) starts PTB's webhook server on a free
loopback port inside the test's event loop, with the arguments ``run_webhook`` gets in
production (:func:`shbot.bot.main.webhook_options`); the test then plays Telegram's part
with a real HTTP client.
"""

from __future__ import annotations

import socket
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from shbot.bot.app import build_application
from shbot.bot.config import Config, load_config
from shbot.bot.main import ALLOWED_UPDATES, webhook_options
from shbot.storage import Store
from tests.fake_telegram import FakeBotAPI, utf16_len
from tests.harness import FakeUser, Harness, make_user

SECRET = "webhook_Secret-0123456789"
HEADER = "X-Telegram-Bot-Api-Secret-Token"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class Webhook:
    def __init__(self, fake: FakeBotAPI, h: Harness, config: Config) -> None:
        self.fake, self.h, self.config = fake, h, config
        self.url = f"http://127.0.0.1:{config.webhook_port}{config.webhook_path}"
        self._update_ids = iter(range(1, 1_000_000))

    def command(self, user: FakeUser, text: str) -> dict[str, Any]:
        """The update Telegram would post for ``user`` sending ``text`` in private."""
        self.h.open_private(user)
        head = text.split()[0]
        message = self.fake.receive_message(
            user.id,
            user.to_dict(),
            text,
            [{"type": "bot_command", "offset": 0, "length": utf16_len(head)}],
        )
        return {"update_id": next(self._update_ids), "message": message.to_dict()}

    async def post(self, update: dict[str, Any], secret: str | None) -> httpx.Response:
        headers = {HEADER: secret} if secret is not None else {}
        async with httpx.AsyncClient(trust_env=False, timeout=5) as client:
            response = await client.post(self.url, json=update, headers=headers)
        await self.h.settle()
        await self.h.app.bot_data["svc"].outbox.join(timeout=5)
        return response

    def replies(self, user: FakeUser) -> list[str]:
        return [m.plain_text for m in self.fake.messages(user.id) if m.from_bot]


@pytest.fixture
async def webhook(store: Store) -> AsyncIterator[Webhook]:
    fake = FakeBotAPI()
    config = load_config(
        {
            "BOT_TOKEN": f"{fake.bot_id}:{'W' * 35}",
            "SHBOT_WEBHOOK_URL": "https://bot.example.org/telegram/updates",
            "SHBOT_WEBHOOK_LISTEN": "127.0.0.1",
            "SHBOT_WEBHOOK_PORT": str(free_port()),
            "SHBOT_WEBHOOK_SECRET": SECRET,
        }
    )
    app = build_application(config, store, request=fake, menus=False)
    async with Harness(app, fake) as h:
        await app.updater.start_webhook(**webhook_options(config))
        try:
            yield Webhook(fake, h, config)
        finally:
            await app.updater.stop()
        h.assert_no_errors()


async def test_webhook_registers_url_secret_and_update_types(webhook: Webhook) -> None:
    (call,) = webhook.fake.calls_to("setWebhook")
    assert call.params["url"] == "https://bot.example.org/telegram/updates"
    assert call.params["secret_token"] == SECRET
    assert call.params["allowed_updates"] == ALLOWED_UPDATES
    assert webhook.config.webhook_path == "/telegram/updates"


async def test_update_with_the_secret_is_handled(webhook: Webhook) -> None:
    alice = make_user("Alice")
    response = await webhook.post(webhook.command(alice, "/help"), SECRET)
    assert response.status_code == 200
    (reply,) = webhook.replies(alice)
    assert "/newgame" in reply  # the help text


@pytest.mark.parametrize("secret", [None, "", "wrong", SECRET[:-1], SECRET + "x"])
async def test_update_without_the_right_secret_is_rejected(
    webhook: Webhook, secret: str | None
) -> None:
    alice = make_user("Alice")
    response = await webhook.post(webhook.command(alice, "/help"), secret)
    assert response.status_code == 403
    assert webhook.replies(alice) == []
    assert webhook.fake.count("sendMessage") == 0
    # ...and the listener still serves Telegram afterwards.
    assert (await webhook.post(webhook.command(alice, "/help"), SECRET)).status_code == 200
    assert len(webhook.replies(alice)) == 1


async def test_other_paths_are_not_served(webhook: Webhook) -> None:
    alice = make_user("Alice")
    webhook.url = webhook.url.replace("/telegram/updates", "/")
    response = await webhook.post(webhook.command(alice, "/help"), SECRET)
    assert response.status_code == 404
    assert webhook.replies(alice) == []


# --------------------------------------------------------------------------- mode switch


@pytest.mark.parametrize("url", [None, "https://bot.example.org/hook"])
def test_run_picks_webhook_or_polling(
    url: str | None, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """``shbot run`` serves the webhook iff SHBOT_WEBHOOK_URL is set (no network here)."""
    import tempfile

    from telegram.ext import Application

    from shbot.bot import main as bot_main
    from shbot.cli import main as cli_main

    started: dict[str, dict[str, Any]] = {}
    jobs: list[str] = []

    def polling(self: Application[Any, Any, Any, Any, Any, Any], **kw: Any) -> None:
        assert self.job_queue is not None
        jobs.extend(job.name or "" for job in self.job_queue.jobs())
        # The heartbeat is there while the bot polls, for `shbot health`.
        assert bot_main.heartbeat_path(load_config()).is_file()
        started.update(poll=kw)

    async def api_answers(config: Config) -> None:
        started["api"] = {"url": config.api_url}

    monkeypatch.setattr(Application, "run_webhook", lambda self, **kw: started.update(hook=kw))
    monkeypatch.setattr(Application, "run_polling", polling)
    monkeypatch.setattr(bot_main, "wait_for_bot_api", api_answers)
    monkeypatch.setattr(bot_main.logs, "configure", lambda *a, **kw: bot_main.logging.Handler())
    for name in ("REDIS_URL", "SHBOT_WEBHOOK_URL", "SHBOT_WEBHOOK_SECRET", "SHBOT_API_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("BOT_TOKEN", "123456:" + "T" * 35)
    monkeypatch.setenv("SHBOT_DB", str(tmp_path / "shbot.sqlite3"))
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setattr(tempfile, "tempdir", None)
    if url:
        monkeypatch.setenv("SHBOT_WEBHOOK_URL", url)
    assert cli_main(["run"]) == 0
    assert started.pop("api") == {"url": "https://api.telegram.org"}  # checked before starting
    if url:
        assert started == {"hook": webhook_options(load_config())}
        assert started["hook"]["url_path"] == "/hook" and started["hook"]["port"] == 8443
    else:
        assert started == {"poll": {"allowed_updates": ALLOWED_UPDATES}}
        assert jobs == ["heartbeat"]
        # Stopped: the heartbeat is gone, so `shbot health` reports no bot at once.
        assert not bot_main.heartbeat_path(load_config()).exists()
