"""The process's Bot API rate limiter: 30 messages a second overall, and a 429 stays in its chat.

PTB's ``AIORateLimiter`` answers a 429 in any chat by holding *every* call of the process
until the wait is over, then retrying: one group's "retry after 40" left other groups'
presses unanswered for 40 s. Here a 429 goes back to its caller at once: the outbox pauses
that chat only (:mod:`shbot.bot.sender`), and a callback answer or another chat's message
never waits for it. Per-chat pacing is the outbox's (:mod:`shbot.bot.pacer`); this limiter
only keeps the calls to chats under Telegram's overall 30 a second, callback answers
(which Telegram does not count) never waiting behind messages.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any

from telegram.ext import BaseRateLimiter

from .pacer import Window

OVERALL_LIMIT, OVERALL_PERIOD, OVERALL_MARGIN = 30, 1.0, 0.05
#: Calls that name no chat. A membership check names one and counts like a message: Telegram
#: does not say it is free, and ten joins in a second beside ten /start replies went over.
UNCOUNTED = frozenset({"answerCallbackQuery", "getMe", "getUpdates"})
#: ``rate_limit_args`` of a call paced by a budget of its own, never by the game's: the Mini
#: App's membership checks (shbot/webapp/access.py), which must never delay a game message.
OWN_BUDGET = "webapp"


class ChatRateLimiter(BaseRateLimiter[str | None]):
    """Calls to chats within ``limit`` a second (0: unlimited); errors, 429 included, go
    straight back to the caller."""

    def __init__(self, limit: int = OVERALL_LIMIT, period: float = OVERALL_PERIOD) -> None:
        self.limit = limit
        self.window = Window(max(1, limit), period, OVERALL_MARGIN)

    async def initialize(self) -> None:
        """Nothing to open."""

    async def shutdown(self) -> None:
        """Nothing to close."""

    async def process_request(
        self,
        callback: Callable[..., Coroutine[Any, Any, bool | dict[str, Any] | list[Any]]],
        args: Any,
        kwargs: dict[str, Any],
        endpoint: str,
        data: dict[str, Any],
        rate_limit_args: str | None,
    ) -> bool | dict[str, Any] | list[Any]:
        counted = endpoint not in UNCOUNTED and rate_limit_args != OWN_BUDGET
        if self.limit > 0 and data.get("chat_id") is not None and counted:
            loop = asyncio.get_running_loop()
            while True:
                now = loop.time()
                at = self.window.ready_at(now)
                if at <= now:
                    break
                await asyncio.sleep(max(0.001, at - now))
            self.window.take(loop.time())
        return await callback(*args, **kwargs)
