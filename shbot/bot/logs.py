"""Logging for operators: one line per event, tagged with its chat and game, no secrets.

Every record gets ``chat`` and ``game`` fields. They come from ``extra={"chat": ...}`` when
a call passes them, else from the context of the update being handled: :func:`bind` sets
them (the Application binds the chat of every update before any handler runs, and
:meth:`Services.narrator` binds the game), and asyncio tasks inherit them. A record outside
any update shows ``-``.

At INFO the bot logs no secret by construction (it logs ids, counts and outcomes, never
texts); on top of that the formatter blanks the bot token and the webhook secret wherever
they appear, and HTTP client loggers (whose request lines contain the token) are kept at
WARNING, as is the scheduler (a line per timer set, not an event). Tracebacks are folded
onto the same line so a log collector sees one event.
"""

from __future__ import annotations

import contextvars
import logging
import sys
from collections.abc import Iterable
from typing import IO, Any

__all__ = [
    "FORMAT",
    "ContextFilter",
    "OneLineFormatter",
    "bind",
    "bind_update",
    "configure",
]

FORMAT = "%(asctime)s %(levelname)s %(name)s chat=%(chat)s game=%(game)s %(message)s"
REDACTED = "[redacted]"
HANDLER_NAME = "shbot"
#: Kept at WARNING: HTTP clients print request URLs, which contain the bot token
#: (``/bot<token>/<method>``); the JobQueue's scheduler logs every timer added or removed.
NOISY = ("httpx", "httpcore", "hpack", "urllib3", "apscheduler")

_chat: contextvars.ContextVar[int | None] = contextvars.ContextVar("shbot_chat", default=None)
_game: contextvars.ContextVar[str | None] = contextvars.ContextVar("shbot_game", default=None)
_UNSET: Any = object()


def bind(*, chat: int | None = _UNSET, game: str | None = _UNSET) -> None:
    """Tag this task's (and its future child tasks') log lines with a chat and/or a game."""
    if chat is not _UNSET:
        _chat.set(chat)
        if game is _UNSET:
            _game.set(None)  # a new chat: the previous game no longer applies
    if game is not _UNSET:
        _game.set(game)


async def bind_update(update: object, context: object) -> None:
    """A handler for group -1: every update's log lines carry its chat."""
    chat = getattr(update, "effective_chat", None)
    bind(chat=chat.id if chat is not None else None)


class ContextFilter(logging.Filter):
    """Adds ``chat`` and ``game`` to every record (explicit ``extra`` values win)."""

    def filter(self, record: logging.LogRecord) -> bool:
        for name, var in (("chat", _chat), ("game", _game)):
            value = getattr(record, name, None)
            if value is None:
                value = var.get()
            setattr(record, name, "-" if value is None else value)
        return True


class OneLineFormatter(logging.Formatter):
    """The usual format, with secrets blanked and newlines escaped (tracebacks included)."""

    def __init__(self, secrets: Iterable[str] = (), fmt: str = FORMAT) -> None:
        super().__init__(fmt)
        # Longest first, so a secret containing another is blanked whole.
        self.secrets = sorted({s for s in secrets if s}, key=len, reverse=True)

    def format(self, record: logging.LogRecord) -> str:
        for name in ("chat", "game"):
            if not hasattr(record, name):
                setattr(record, name, "-")
        text = super().format(record)
        for secret in self.secrets:
            text = text.replace(secret, REDACTED)
        return text.replace("\r", "\\r").replace("\n", "\\n")


def configure(
    level: str = "INFO",
    secrets: Iterable[str] = (),
    stream: IO[str] | None = None,
) -> logging.Handler:
    """Route all logging to one stream handler with the bot's format; returns the handler.

    Replaces the handler an earlier call installed (never anyone else's), so calling it
    twice does not double the lines.
    """
    handler = logging.StreamHandler(stream if stream is not None else sys.stderr)
    handler.setFormatter(OneLineFormatter(secrets))
    handler.addFilter(ContextFilter())
    handler.set_name(HANDLER_NAME)
    root = logging.getLogger()
    for old in root.handlers[:]:
        if old.get_name() == HANDLER_NAME:
            root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level)
    for name in NOISY:
        logging.getLogger(name).setLevel(logging.WARNING)
    return handler
