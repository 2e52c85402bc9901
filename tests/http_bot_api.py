"""The fake Bot API over HTTP, for ``shbot run`` processes a test starts.

The bot process knows nothing of the fake: it gets ``SHBOT_API_URL=http://127.0.0.1:<port>``
and talks HTTP, as to Telegram. The fake itself lives in the test process (served on the
test's event loop), so the test reads what the bot sent and queues what users send.
:func:`_fake_api` is the one place that says where the fake comes from.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
from collections.abc import AsyncIterator, Callable, Mapping
from pathlib import Path
from typing import Any


def _fake_api() -> tuple[Any, Callable[..., Any]]:
    """``(PollingFakeBotAPI, serve)``: where the test doubles live today (repoint here if
    they move)."""
    from shbot.devtools.fake_polling import PollingFakeBotAPI
    from shbot.devtools.http_api import serve

    return PollingFakeBotAPI, serve


PollingFakeBotAPI, serve = _fake_api()
BOT_ID = 7_000_000_001
#: Accepted by the fake (its id matches); a token of another id is rejected with 401.
TOKEN = f"{BOT_ID}:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw"
OTHER_TOKEN = "123456789:AAE-rejected-token-Zq9vX3kLmN0pQ7rS"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class PollingBotAPI(PollingFakeBotAPI):  # type: ignore[misc,valid-type]
    """The polling fake (``getUpdates`` serves what :meth:`send` queued) as this bot's API."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(bot_id=BOT_ID, **kwargs)

    def send(self, user: Mapping[str, Any], text: str) -> None:
        """``user`` sends the command ``text`` to the bot in their private chat."""
        self.private_chat(dict(user))
        self.started.add(user["id"])
        head = text.split()[0]
        entity = {"type": "bot_command", "offset": 0, "length": len(head)}
        message = self.receive_message(user["id"], dict(user), text, [entity])
        self.queue({"message": message.to_dict()})

    async def reply_to(self, user_id: int, count: int, timeout: float = 30.0) -> list[str]:
        """The texts of the bot's first ``count`` messages to ``user_id`` (waits for them)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            texts = [m.plain_text for m in self.messages(user_id)]
            if len(texts) >= count:
                return texts[:count]
            if loop.time() > deadline:
                raise AssertionError(f"{len(texts)} of {count} replies after {timeout} s: {texts}")
            await asyncio.sleep(0.05)


@contextlib.asynccontextmanager
async def served(fake: Any, port: int | None = None) -> AsyncIterator[str]:
    """Serve ``fake`` on loopback for the duration; yields the ``SHBOT_API_URL`` to use."""
    port = port or free_port()
    server = serve(fake, port)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.stop()


def bot_env(tmp_path: Path, **values: str) -> dict[str, str]:
    """The environment of a bot process: this one without any shbot setting, plus ``values``.

    ``TMPDIR`` is the test's (where the heartbeat goes) and ``PYTHONPATH`` is dropped, so a
    process started from another directory imports what is installed, nothing else.
    """
    env = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith("SHBOT_")
        and name not in ("BOT_TOKEN", "REDIS_URL", "PYTHONPATH", "PYTHONHOME")
    }
    env.update(TMPDIR=str(tmp_path), SHBOT_DB=str(tmp_path / "shbot.sqlite3"))
    env.update(values)
    return env


async def stop(process: asyncio.subprocess.Process, timeout: float = 20.0) -> tuple[str, str]:
    """SIGTERM ``process`` (a clean stop) and return its stdout and stderr."""
    if process.returncode is None:
        process.terminate()
    out, err = await asyncio.wait_for(process.communicate(), timeout)
    return out.decode(), err.decode()
