"""What a host meets at start-up beyond the configuration: each ends in one clear line.

- A second ``shbot run`` polling with the same token: Telegram answers 409 Conflict to one
  of the two pollers at a time, forever. PTB would log a traceback every few seconds in both
  processes. The process that has just started stops with one line (it is the mistake);
  one that has polled for a while keeps polling and says so once a minute.
- ``SHBOT_API_URL`` pointing at something that is not a Bot API (404 on ``getMe``): PTB
  reports it as a rejected token; we name the address instead.
- A webhook listener that cannot bind: PTB registers the webhook before it binds, so the
  Bot API would keep posting to a bot that never started. The port is tried first, and the
  webhook is removed again if binding fails anyway.
"""

from __future__ import annotations

import logging
import socket
import time
from collections.abc import Callable

from telegram import Bot, Update
from telegram.error import Conflict, TelegramError
from telegram.ext import ApplicationHandlerStop, CallbackContext

from .config import TELEGRAM_API, Config

log = logging.getLogger(__name__)

#: A 409 this soon after polling started means this process is the second poller.
CONFLICT_GRACE = 30.0
#: A poller past its grace says at most this often that another process polls too.
CONFLICT_WARN_EVERY = 60.0


class PollingConflict:
    """Error handler for 409 Conflict on ``getUpdates`` (see the module's docstring)."""

    def __init__(
        self,
        stop: Callable[[], None],
        *,
        clock: Callable[[], float] = time.monotonic,
        grace: float = CONFLICT_GRACE,
    ) -> None:
        self._stop = stop
        self._clock = clock
        self._started = clock()
        self._grace = grace
        self._warned_at: float | None = None
        #: The conflict that stopped this process, if one did.
        self.fatal: str | None = None

    async def __call__(self, update: object, context: CallbackContext) -> None:  # type: ignore[type-arg]
        error = context.error
        if isinstance(update, Update) or not isinstance(error, Conflict):
            return
        now = self._clock()
        if now - self._started < self._grace:
            if self.fatal is None:
                self.fatal = error.message
                self._stop()
        elif self._warned_at is None or now - self._warned_at >= CONFLICT_WARN_EVERY:
            self._warned_at = now
            log.warning(
                "another process polls the Bot API with this BOT_TOKEN (409 %s); "
                "this one keeps polling: stop the other one",
                error.message,
            )
        raise ApplicationHandlerStop  # handled: no "unhandled error" line, no traceback


def conflict_line(message: str) -> str:
    return (
        "BOT_TOKEN: another process is already polling the Bot API with this token "
        f"(409 {message}): stop it first, or give this bot a token of its own"
    )


def getme_refused(config: Config, error: TelegramError) -> str | None:
    """The line for a ``getMe`` that no Bot API would answer so, else None.

    Telegram answers 401 to a well-formed token it does not know (and our check only lets
    well-formed tokens through). A 404, or an answer that is not JSON at all (an HTML page),
    from a server other than Telegram's means the address is not a Bot API server. PTB
    reports the first as a rejected token (22.1+) and the second as an invalid response.
    """
    details, not_json = [], False
    cause: BaseException | None = error
    while cause is not None:  # PTB re-raises the HTTP answer as "token was rejected"
        details.append(cause.message if isinstance(cause, TelegramError) else str(cause))
        not_json = not_json or isinstance(cause, ValueError)  # JSONDecodeError
        cause = cause.__cause__
    not_found = any(d.startswith("Not Found") for d in details)
    if config.api_url.rstrip("/") == TELEGRAM_API or not (not_found or not_json):
        return None
    answer = "404 Not Found" if not_found else "something that is not JSON"
    return (
        f"SHBOT_API_URL: {config.api_url} answered {answer} to getMe: no Bot API server "
        f"there (the bot calls {config.api_url.rstrip('/')}/bot<token>/getMe); check the "
        "address and its path"
    )


def port_problem(host: str, port: int) -> str | None:
    """Why ``host:port`` cannot be listened on now, or None when it can."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as the listener does
        try:
            probe.bind((host, port))
        except OSError as exc:
            return exc.strerror or str(exc)
    return None


async def forget_webhook(config: Config) -> None:
    """Remove the webhook PTB registered before its listener failed (best effort)."""
    bot = Bot(config.token, base_url=config.base_url, base_file_url=config.base_file_url)
    try:
        async with bot:
            await bot.delete_webhook()
        log.info("webhook removed again: the listener could not start")
    except TelegramError as exc:
        log.warning("could not remove the webhook again: %s", exc.message)
