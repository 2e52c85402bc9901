"""The process's Bot API rate limiter: 30 messages a second overall, and a 429 stays in its chat.

PTB's ``AIORateLimiter`` answers a 429 in any chat by holding *every* call of the process
until the wait is over, then retrying: one group's "retry after 40" left other groups'
presses unanswered for 40 s. Here a 429 goes back to its caller at once: the outbox pauses
that chat only (:mod:`shbot.bot.delivery.sender`), and a callback answer or another chat's message
never waits for it. Per-chat pacing is the outbox's (:mod:`shbot.bot.delivery.pacer`); this limiter
only keeps the calls to chats under Telegram's overall 30 a second, callback answers
(which Telegram does not count) never waiting behind messages.

A callback answer is the one call whose 429 is waited out here: the press must be answered
within Telegram's 15 s, and no handler should see the error (it was a traceback, and a press
left spinning though its vote counted). It is tried again after the wait Telegram asks for
while that still falls within the press's window (:data:`.answers.ANSWER_WINDOW`); else it
is given up with a warning (Telegram would refuse an answer that late). A timeout or a
network error is tried again the same way (a second later); any other refusal (a query
"too old", one answered already) is logged, never raised into the handler.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Callable, Coroutine
from typing import Any

from telegram.error import BadRequest, NetworkError, RetryAfter, TelegramError
from telegram.ext import BaseRateLimiter

from . import answers
from .pacer import Window
from .sender import retry_seconds

log = logging.getLogger(__name__)

OVERALL_LIMIT, OVERALL_PERIOD, OVERALL_MARGIN = 30, 1.0, 0.05
#: Calls that name no chat. A membership check names one and counts like a message: Telegram
#: does not say it is free, and ten joins in a second beside ten /start replies went over.
UNCOUNTED = frozenset({"answerCallbackQuery", "getMe", "getUpdates"})
ANSWER = "answerCallbackQuery"
#: ``rate_limit_args`` of a call on a budget of its own (the Mini App's membership checks,
#: shbot/webapp/access.py): it goes only while more than :data:`GAME_RESERVE` of the second's
#: calls are free (waiting up to :data:`OWN_WAIT` for that), else it is refused
#: (:class:`Busy`), so it never makes a game's call wait nor takes the process over
#: Telegram's 30 a second.
OWN_BUDGET = "webapp"
GAME_RESERVE = 10
OWN_WAIT = 3.0
#: The pause before an answer that timed out (or met a 5xx) is tried again.
NETWORK_PAUSE = 1.0


class Busy(RetryAfter):
    """A call on its own budget found the second's calls taken by the games: try later."""


class ChatRateLimiter(BaseRateLimiter[str | None]):
    """Calls to chats within ``limit`` a second (0: unlimited); errors, 429 included, go
    straight back to the caller."""

    def __init__(self, limit: int = OVERALL_LIMIT, period: float = OVERALL_PERIOD) -> None:
        self.limit = limit
        self.window = Window(max(1, limit), period, OVERALL_MARGIN)
        self._waiters: deque[asyncio.Future[None]] = deque()
        self._timer: asyncio.TimerHandle | None = None

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
        if endpoint == ANSWER:
            return await self._answer(callback, args, kwargs, data)
        if rate_limit_args == OWN_BUDGET and self.limit > 0:
            loop = asyncio.get_running_loop()
            until = loop.time() + OWN_WAIT
            while (at := self.window.ready_at(loop.time(), reserve=GAME_RESERVE)) > loop.time():
                if at > until:
                    raise Busy(1)
                await asyncio.sleep(max(0.001, at - loop.time()))
            self.window.take(loop.time())
            return await callback(*args, **kwargs)
        if self.limit > 0 and data.get("chat_id") is not None and endpoint not in UNCOUNTED:
            await self._turn()
        return await callback(*args, **kwargs)

    async def _turn(self) -> None:
        """Take a call of the window, first come first served. The waiters are woken in
        order by one timer: each polling on its own woke them all at every freed call (a
        few thousand groups' membership checks under overload) and the first timer won."""
        loop = asyncio.get_running_loop()
        now = loop.time()
        if not self._waiters and self.window.ready_at(now) <= now:
            self.window.take(now)
            return
        turn: asyncio.Future[None] = loop.create_future()
        self._waiters.append(turn)
        self._release()
        await turn

    def _release(self) -> None:
        """Give the window's free calls to the first waiters; wake again when one frees."""
        if self._timer is not None:
            self._timer.cancel()
        self._timer = None
        loop = asyncio.get_running_loop()
        now = loop.time()
        while self._waiters:
            if self._waiters[0].done():  # cancelled while it waited
                self._waiters.popleft()
                continue
            at = self.window.ready_at(now)
            if at > now:
                self._timer = loop.call_at(max(at, now + 0.001), self._release)
                return
            self.window.take(now)
            self._waiters.popleft().set_result(None)

    async def _answer(
        self,
        callback: Callable[..., Coroutine[Any, Any, bool | dict[str, Any] | list[Any]]],
        args: Any,
        kwargs: dict[str, Any],
        data: dict[str, Any],
    ) -> bool | dict[str, Any] | list[Any]:
        """A callback answer: a 429 is waited out within the press's window (see above);
        the press (:func:`.answers.current`) is told what it was answered."""
        loop = asyncio.get_running_loop()
        press = answers.current()
        if press is not None and str(data.get("callback_query_id")) != press.query_id:
            press = None  # an answer to another query (none of the bot's own handlers)
        until = (press.at if press is not None else loop.time()) + answers.ANSWER_WINDOW
        while True:
            try:
                result = await callback(*args, **kwargs)
            except BadRequest as exc:  # "query is too old", answered already: final (PTB
                log.info("a press could not be answered: %s", exc.message)  # makes it a
                return self._unanswered(press)  # NetworkError: caught before those)
            except (RetryAfter, NetworkError) as exc:  # NetworkError: TimedOut, a 5xx
                wait = retry_seconds(exc) if isinstance(exc, RetryAfter) else NETWORK_PAUSE
                if loop.time() + wait > until:
                    log.warning("a press is left unanswered: %s, past its 15 s", type(exc).__name__)
                    return self._unanswered(press)
                log.info("answering a press again in %.1f s (%s)", wait, type(exc).__name__)
                await asyncio.sleep(wait)
                continue
            except TelegramError as exc:  # any other refusal: final
                log.info("a press could not be answered: %s", exc.message)
                return self._unanswered(press)
            if press is not None:
                press.answered(data.get("text"), bool(data.get("show_alert")))
            return result

    @staticmethod
    def _unanswered(press: answers.Press | None) -> bool:
        """Give a press up: whoever waits for it (its player's later presses) goes on."""
        if press is not None:
            press.registry.finished(press)
        return False
