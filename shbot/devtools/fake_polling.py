"""``getUpdates`` for the fake Bot API, for a bot process that polls it over HTTP.

A test or a tool queues what users do (:meth:`PollingFakeBotAPI.queue`); each poll returns
what is queued from the offset the bot confirms, as Telegram does, and holds an empty poll
open (up to a second here), so a polling bot waits instead of spinning. Served over HTTP by
:mod:`shbot.devtools.http_api`.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
from typing import Any

from .fake_errors import ApiError
from .fake_telegram import FakeBotAPI, JSONDict


class PollingFakeBotAPI(FakeBotAPI):
    """The fake, with ``getUpdates`` serving the updates :meth:`queue` was given."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.updates: list[JSONDict] = []
        self.polls = 0
        self._arrived = asyncio.Event()
        self._update_ids = itertools.count(1)

    def queue(self, payload: JSONDict) -> JSONDict:
        """Deliver one update (Bot API JSON without ``update_id``) at the next poll."""
        update = {"update_id": next(self._update_ids), **payload}
        self.updates.append(update)
        self._arrived.set()
        return update

    def handed_out(self, updates: list[JSONDict]) -> None:
        """What one poll returns, as it returns it (a subclass notes when; nothing here)."""

    async def do_request(
        self, url: str, method: str, request_data: Any = None, *args: Any, **kwargs: Any
    ) -> tuple[int, bytes]:
        if url.rsplit("/", 1)[-1].lower() != "getupdates":
            return await super().do_request(url, method, request_data, *args, **kwargs)
        try:  # a failure the test asked for (409 Conflict: another poller on the token)
            self._maybe_fail("getUpdates", None)
        except ApiError as exc:
            await asyncio.sleep(0.05)  # Telegram answers a conflicting poll at once
            body = {"ok": False, "error_code": exc.status, "description": exc.description}
            return exc.status, json.dumps(body).encode()
        params = dict(request_data.parameters) if request_data is not None else {}
        offset = int(params.get("offset") or 0)
        self.updates = [u for u in self.updates if u["update_id"] >= offset]
        if not self.updates:
            self._arrived.clear()
            wait = min(float(params.get("timeout") or 0), 1.0)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._arrived.wait(), timeout=wait)
        self.polls += 1
        self.handed_out(self.updates)
        return 200, json.dumps({"ok": True, "result": self.updates}).encode()
