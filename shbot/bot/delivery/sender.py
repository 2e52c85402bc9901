"""One Bot API call of the outbox, and what each of its failures means for the worker.

The outbox decides *what* to send and when; :class:`Sender` makes the call (text here, the
board photo through :mod:`shbot.bot.delivery.media`), skips an edit that would change nothing, and
turns every Telegram error into one of four answers: try later (:class:`Retry`), give the
message up (:class:`Dropped`), the chat is gone (:class:`Unreachable`), the group moved
(:class:`Migrated`).
"""

from __future__ import annotations

import logging
import warnings
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from telegram import LinkPreviewOptions
from telegram.constants import ParseMode
from telegram.error import (
    BadRequest,
    ChatMigrated,
    Forbidden,
    NetworkError,
    RetryAfter,
    TimedOut,
)
from telegram.warnings import PTBUserWarning

from . import media

if TYPE_CHECKING:
    from .pacer import Pacer
    from .slots import Rendered

log = logging.getLogger(__name__)
# Sender._raw calls known methods by name on purpose (see there): no advice wanted.
warnings.filterwarnings("ignore", message=r"Please use 'Bot\.", category=PTBUserWarning)
NO_PREVIEW = LinkPreviewOptions(is_disabled=True)

MAX_ATTEMPTS = 6  # network errors on one message before it is given up
MAX_CONTENT = 100_000  # messages whose shown content is remembered (forgetting costs an edit)


def retry_seconds(exc: RetryAfter) -> float:
    """How long Telegram asked to wait. PTB 22 keeps it as a timedelta; its public
    ``retry_after`` still answers in seconds and warns of the change at every read."""
    delay = getattr(exc, "_retry_after", None)
    if delay is None:  # not PTB 22's layout: the public attribute, whatever its type
        delay = exc.retry_after
    return float(delay.total_seconds() if hasattr(delay, "total_seconds") else delay)


class Retry(Exception):
    """Try this message again later (the worker loops)."""


class Dropped(Exception):
    """Give this message up (Telegram refused it for good)."""


class Unreachable(Exception):
    """The chat does not take messages from the bot (blocked, kicked, not found)."""


class Migrated(Exception):
    """The group became a supergroup with a new id."""

    def __init__(self, new_id: int) -> None:
        super().__init__(new_id)
        self.new_id = new_id


class Backoff(Protocol):
    """A chat's network-error count and the earliest time its next call may go."""

    attempts: int
    retry_at: float


class Sender:
    """Makes the outbox's Bot API calls; ``count`` is told of every call before it goes."""

    def __init__(self, bot: Any, pacer: Pacer, count: Callable[[int], None]) -> None:
        self.bot = bot
        self.pacer = pacer
        self.count = count
        # What each message shows now, so an edit that would change nothing costs no call.
        self.content: dict[tuple[int, int], tuple[str, object, bytes | None]] = {}

    async def send(self, m: Rendered, state: Backoff) -> int:
        """One Bot API call; maps every failure to what the worker does next."""
        try:
            mid = await self._call(m)
        except RetryAfter as exc:
            seconds = retry_seconds(exc)
            log.warning("Telegram asked to wait %.0f s before writing to %s", seconds, m.chat_id)
            self.pacer.block(m.chat_id, seconds)
            raise Retry from exc
        except ChatMigrated as exc:
            raise Migrated(int(exc.new_chat_id)) from exc
        except Forbidden as exc:
            log.info("chat %s does not accept messages from the bot", m.chat_id)
            raise Unreachable from exc
        except (TimedOut, NetworkError) as exc:
            if isinstance(exc, BadRequest):
                return self._bad_request(m, exc)
            state.attempts += 1
            if state.attempts > MAX_ATTEMPTS:
                log.error("giving up a message to %s after network errors: %s", m.chat_id, exc)
                state.attempts = 0
                raise Dropped from exc
            log.warning("network error delivering to %s: %s", m.chat_id, exc)
            state.retry_at = self.pacer.clock() + min(30.0, 0.5 * 2**state.attempts)
            raise Retry from exc
        state.attempts = 0
        state.retry_at = 0.0
        return mid

    def _bad_request(self, m: Rendered, exc: BadRequest) -> int:
        text = str(exc).lower()
        if "chat not found" in text or "user not found" in text:
            raise Unreachable from exc
        log.error("Telegram refused a message for %s: %s", m.chat_id, exc)
        raise Dropped from exc

    async def _call(self, m: Rendered) -> int:
        # The keyboard as JSON once: compared here and sent as it is (PTB would build it again).
        markup = m.markup.to_dict() if m.markup else None
        content = (m.text, markup, media.digest(m.photo))
        if m.edit_id is not None and self.content.get((m.chat_id, m.edit_id)) == content:
            return m.edit_id
        mid = await self._call_api(m, markup)
        if len(self.content) > MAX_CONTENT:  # bounded: forgetting only costs a no-op edit
            self.content.clear()
        self.content[(m.chat_id, mid)] = content
        return mid

    async def _call_api(self, m: Rendered, markup: dict[str, Any] | None) -> int:
        if m.photo is not None:  # the board picture: sendPhoto, editMessageMedia
            return await media.deliver(self._raw, self.pacer, self.count, m, markup)
        if m.edit_id is not None:
            self.count(m.chat_id)
            try:
                await self._raw(
                    "editMessageText",
                    chat_id=m.chat_id,
                    message_id=m.edit_id,
                    text=m.text,
                    parse_mode=ParseMode.HTML,
                    reply_markup=markup,
                    link_preview_options=NO_PREVIEW,
                )
                return m.edit_id
            except BadRequest as exc:
                if media.kept_after_refused_edit(exc, self.pacer, m.chat_id, media.EDIT_ANEW):
                    return m.edit_id
        self.count(m.chat_id)
        message = await self._raw(
            "sendMessage",
            chat_id=m.chat_id,
            text=m.text,
            parse_mode=ParseMode.HTML,
            reply_markup=markup,
            link_preview_options=NO_PREVIEW,
            disable_notification=not m.notify,
        )
        return int(message["message_id"])

    async def _raw(self, method: str, **params: Any) -> Any:
        """A Bot API call whose answer is read raw (a message id, or nothing): PTB would
        build a Message object from every answer, a tenth of the bot's CPU time. Same
        request, same rate limiter, same errors as ``bot.send_message`` and friends."""
        api_kwargs = {k: v for k, v in params.items() if v is not None}
        return await self.bot.do_api_request(method, api_kwargs=api_kwargs)
