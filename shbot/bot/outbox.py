"""Ordered, coalescing delivery of the bot's messages, one queue per chat.

Handlers never wait for Telegram: they put what should be shown into the outbox and return.
One worker per chat sends in order (so a group reads the story in the order it happened)
while AIORateLimiter paces it; one group's backlog never delays another's. While an edit
waits in the queue, a newer edit of the same message replaces it, so a burst of vote
presses costs one edit, not ten. Message ids of sent messages are remembered by key and
reported to ``on_sent`` so they can be stored for later edits (and survive restarts).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from telegram import InlineKeyboardMarkup
from telegram.constants import ParseMode
from telegram.error import BadRequest, Forbidden, NetworkError, RetryAfter, TimedOut

log = logging.getLogger(__name__)

SentHook = Callable[[int], Awaitable[None]]
ForbiddenHook = Callable[[int], Awaitable[None]]


@dataclass
class Op:
    """One message to send, or to edit when ``edit`` is true.

    ``key`` names the message ("<game>:board"): an edit finds its message id through the
    key when ``message_id`` is not known yet (the send may still be in the queue)."""

    chat_id: int
    text: str
    markup: InlineKeyboardMarkup | None = None
    edit: bool = False
    key: str | None = None
    message_id: int | None = None
    on_sent: SentHook | None = None
    attempts: int = field(default=0, compare=False)


class Outbox:
    def __init__(
        self,
        bot: object,
        *,
        on_forbidden: ForbiddenHook | None = None,
        max_attempts: int = 5,
    ) -> None:
        self.bot = bot
        self.on_forbidden = on_forbidden
        self.max_attempts = max_attempts
        self._queues: dict[int, deque[Op]] = {}
        self._workers: dict[int, asyncio.Task[None]] = {}
        self._ids: dict[tuple[int, str], int] = {}
        # What each message shows now, so an edit that would change nothing costs no call.
        self._shown: dict[tuple[int, int], tuple[str, object]] = {}
        self._idle = asyncio.Event()
        self._idle.set()

    # ------------------------------------------------------------------ producers

    def send(
        self,
        chat_id: int,
        text: str,
        markup: InlineKeyboardMarkup | None = None,
        *,
        key: str | None = None,
        on_sent: SentHook | None = None,
    ) -> None:
        self.put(Op(chat_id, text, markup, edit=False, key=key, on_sent=on_sent))

    def edit(
        self,
        chat_id: int,
        text: str,
        markup: InlineKeyboardMarkup | None = None,
        *,
        key: str | None = None,
        message_id: int | None = None,
        on_sent: SentHook | None = None,
    ) -> None:
        self.put(
            Op(chat_id, text, markup, edit=True, key=key, message_id=message_id, on_sent=on_sent)
        )

    def remember(self, chat_id: int, key: str, message_id: int) -> None:
        """Record a message id known from storage (after a restart)."""
        self._ids[(chat_id, key)] = message_id

    def known(self, chat_id: int, key: str) -> int | None:
        return self._ids.get((chat_id, key))

    def put(self, op: Op) -> None:
        queue = self._queues.setdefault(op.chat_id, deque())
        if op.edit and self._coalesce(queue, op):
            return
        queue.append(op)
        self._idle.clear()
        worker = self._workers.get(op.chat_id)
        if worker is None or worker.done():
            self._workers[op.chat_id] = asyncio.get_running_loop().create_task(
                self._work(op.chat_id), name=f"outbox-{op.chat_id}"
            )

    @staticmethod
    def _coalesce(queue: deque[Op], op: Op) -> bool:
        """Fold an edit into a queued op for the same message (newest content wins)."""
        for queued in reversed(queue):
            same = (op.key is not None and queued.key == op.key) or (
                op.message_id is not None and queued.message_id == op.message_id and queued.edit
            )
            if same:
                queued.text = op.text
                queued.markup = op.markup
                return True
        return False

    # ------------------------------------------------------------------ worker

    async def _work(self, chat_id: int) -> None:
        queue = self._queues[chat_id]
        try:
            while queue:
                op = queue[0]
                retry = await self._deliver(op)
                if retry is not None and op.attempts < self.max_attempts:
                    op.attempts += 1
                    await asyncio.sleep(retry)  # a worker may wait; a handler never does
                    continue
                queue.popleft()
        finally:
            if not queue:
                self._queues.pop(chat_id, None)
                self._workers.pop(chat_id, None)
            if not self._workers:
                self._idle.set()

    async def _deliver(self, op: Op) -> float | None:
        """Perform one op; returns seconds to wait before retrying, or None when done."""
        bot = self.bot
        try:
            if op.edit:
                mid = op.message_id or (self._ids.get((op.chat_id, op.key)) if op.key else None)
                if mid is None:
                    log.debug("edit of unknown message %s in %s: sending anew", op.key, op.chat_id)
                    await self._send_new(op)
                    return None
                content = (op.text, op.markup.to_dict() if op.markup else None)
                if self._shown.get((op.chat_id, mid)) == content:
                    return None
                try:
                    await bot.edit_message_text(  # type: ignore[attr-defined]
                        chat_id=op.chat_id,
                        message_id=mid,
                        text=op.text,
                        parse_mode=ParseMode.HTML,
                        reply_markup=op.markup,
                        disable_web_page_preview=True,
                    )
                except BadRequest as exc:
                    text = str(exc).lower()
                    if "not modified" in text:
                        self._remember_shown(op.chat_id, mid, content)
                        return None
                    if "not found" in text or "can't be edited" in text:
                        await self._send_new(op)
                        return None
                    raise
                self._remember_shown(op.chat_id, mid, content)
            else:
                await self._send_new(op)
            return None
        except RetryAfter as exc:
            delay = exc.retry_after
            return float(delay.total_seconds() if hasattr(delay, "total_seconds") else delay)
        except Forbidden:
            log.info("chat %s does not accept messages from the bot", op.chat_id)
            if self.on_forbidden is not None:
                with contextlib.suppress(Exception):
                    await self.on_forbidden(op.chat_id)
            return None
        except (TimedOut, NetworkError) as exc:
            log.warning("network error delivering to %s: %s", op.chat_id, exc)
            return min(30.0, 0.5 * 2**op.attempts)
        except BadRequest as exc:
            log.error("Telegram refused a message for %s: %s", op.chat_id, exc)
            return None
        except Exception:  # a worker must never die with a queue behind it
            log.exception("unexpected error delivering to %s", op.chat_id)
            return None

    def _remember_shown(self, chat_id: int, mid: int, content: tuple[str, object]) -> None:
        if len(self._shown) > 100_000:  # bounded memory: forgetting only costs a no-op edit
            self._shown.clear()
        self._shown[(chat_id, mid)] = content

    async def _send_new(self, op: Op) -> None:
        message = await self.bot.send_message(  # type: ignore[attr-defined]
            chat_id=op.chat_id,
            text=op.text,
            parse_mode=ParseMode.HTML,
            reply_markup=op.markup,
            disable_web_page_preview=True,
        )
        mid = int(message.message_id)
        self._remember_shown(op.chat_id, mid, (op.text, op.markup.to_dict() if op.markup else None))
        if op.key:
            self._ids[(op.chat_id, op.key)] = mid
        if op.on_sent is not None:
            try:
                await op.on_sent(mid)
            except Exception:  # storing the id is best effort: an edit can still fall back
                log.exception("could not record message id for %s", op.key)

    async def join(self, timeout: float | None = None) -> None:
        """Wait until every queue is empty (tests, shutdown)."""
        await asyncio.wait_for(self._idle.wait(), timeout)

    async def close(self) -> None:
        for task in list(self._workers.values()):
            task.cancel()
        for task in list(self._workers.values()):
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self._workers.clear()
        self._queues.clear()
        self._idle.set()
