"""The Telegram side of ``python -m shbot.devtools.trial``: a polling fake Bot API and the
bot processes it serves.

:class:`TrialAPI` is the fake (flood limits on) with ``getUpdates`` serving what the simulated
users do, and the moment each update was first handed to a bot process, so a callback
query's answer latency is measured from there. :class:`BotProcess` starts ``python -m shbot
run`` against it, kills it with SIGKILL and starts it again on the same store; the stderr of
every run is kept in a file of its own.
"""

from __future__ import annotations

import asyncio
import itertools
import os
import signal
import sys
from collections.abc import Mapping
from pathlib import Path

import shbot

from .fake_html import utf16_len
from .fake_polling import PollingFakeBotAPI
from .fake_telegram import JSONDict, StoredMessage

BOT_ID = 7_000_000_001
TOKEN = f"{BOT_ID}:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw"


class TrialAPI(PollingFakeBotAPI):
    """The fake Bot API, serving the updates users send through ``getUpdates``.

    ``served`` maps a callback query id to the loop times its update was returned by
    ``getUpdates``: one handed to a process that died (or to its poll still open on our
    side) is handed again to the next one. ``served_again`` counts updates returned
    more than once (to a process that died before confirming them, then to the next one).
    """

    def __init__(self, *, latency: float = 0.03) -> None:
        super().__init__(bot_id=BOT_ID, latency=latency, strict_limits=True)
        self.last_served = 0.0
        self.served: dict[str, list[float]] = {}
        self.served_again = 0
        self._query_ids = itertools.count(1)
        self._handed: set[int] = set()

    def command(self, user: JSONDict, chat_id: int, text: str) -> JSONDict:
        """``user`` writes ``text`` (a command) in ``chat_id``; returns the update."""
        self.private_chat(user)
        if chat_id == user["id"] and text.startswith("/start"):
            self.started.add(chat_id)  # the user opened the private chat
        head = text.split(" ", 1)[0]
        entity = {"type": "bot_command", "offset": 0, "length": utf16_len(head)}
        message = self.receive_message(chat_id, user, text, [entity])
        return self.queue({"message": message.to_dict()})

    def press(self, user: JSONDict, message: StoredMessage, data: str) -> str:
        """``user`` presses a button carrying ``data`` under ``message``; returns the query id."""
        query_id = f"{user['id']}{next(self._query_ids):09d}"
        self.register_callback_query(query_id, user["id"])
        self.queue(
            {
                "callback_query": {
                    "id": query_id,
                    "from": dict(user),
                    "message": message.to_dict(),
                    "chat_instance": str(abs(message.chat_id) * 7 + 3),
                    "data": data,
                }
            }
        )
        return query_id

    def handed_out(self, updates: list[JSONDict]) -> None:
        """Note when each update is handed to a bot process (again, after a restart)."""
        now = self.now()
        if updates:
            self.last_served = now
        for update in updates:
            if update["update_id"] in self._handed:
                self.served_again += 1
            self._handed.add(update["update_id"])
            query = update.get("callback_query")
            if query is not None:
                self.served.setdefault(query["id"], []).append(now)


def bot_env(workdir: Path, api_url: str, store: Mapping[str, str]) -> dict[str, str]:
    """This process's environment without shbot settings, plus the trial's: the bot imports
    the ``shbot`` this tool was imported from (``PYTHONPATH``)."""
    env = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith("SHBOT_") and name not in ("BOT_TOKEN", "REDIS_URL", "PYTHONHOME")
    }
    source = str(Path(shbot.__file__).resolve().parent.parent)
    env.update(PYTHONPATH=source, TMPDIR=str(workdir), BOT_TOKEN=TOKEN, SHBOT_API_URL=api_url)
    env.update(store)
    return env


class BotProcess:
    """``python -m shbot run`` with ``env``; each start writes ``bot-<n>.stderr``."""

    def __init__(self, workdir: Path, env: dict[str, str]) -> None:
        self.workdir = workdir
        self.env = env
        self.process: asyncio.subprocess.Process | None = None
        self.runs: list[Path] = []

    async def start(self) -> None:
        path = self.workdir / f"bot-{len(self.runs) + 1}.stderr"
        self.runs.append(path)
        with path.open("wb") as err:
            self.process = await asyncio.create_subprocess_exec(
                sys.executable,
                "-m",
                "shbot",
                "run",
                cwd=self.workdir,
                env=self.env,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=err,
                stderr=err,
            )

    async def kill(self) -> None:
        """SIGKILL: no clean-up of any kind, as when the host dies."""
        if self.process is not None and self.process.returncode is None:
            self.process.send_signal(signal.SIGKILL)
            await self.process.wait()

    async def stop(self, timeout: float = 30.0) -> int | None:
        """SIGTERM (a clean stop); SIGKILL after ``timeout``. Returns the exit status."""
        if self.process is None:
            return None
        if self.process.returncode is None:
            self.process.terminate()
            try:
                await asyncio.wait_for(self.process.wait(), timeout)
            except TimeoutError:
                await self.kill()
        return self.process.returncode

    def stderr(self) -> str:
        return "\n".join(
            f"--- {p.name}\n" + p.read_text(errors="replace") for p in self.runs if p.exists()
        )
