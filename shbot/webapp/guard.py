"""What keeps the Mini App's clients from starving the bot that shares their process.

* :class:`GuardedServer`: Tornado's HTTP server with short header and body timeouts, a
  small body limit (a body is refused from its ``Content-Length``, never read), a cap on
  open connections (the excess gets a ``429`` with ``Retry-After`` at once and is closed),
  and an accept loop that survives ``Too many open files``: it pauses accepting a moment
  and logs one warning per :data:`WARN_SECONDS` instead of a traceback per turn.
* :func:`raise_nofile`: the soft descriptor limit raised to the hard one at start-up.
* :class:`Scrub`: a log filter that blanks signed ``initData`` wherever Tornado would
  write it (a request's query, an ``Authorization`` header).
"""

from __future__ import annotations

import contextlib
import errno
import logging
import re
import socket
import time
from collections.abc import Callable
from typing import Any

from tornado import httpserver, iostream
from tornado.ioloop import IOLoop

log = logging.getLogger(__name__)

#: A connection that has not sent its whole request head by then is closed (Tornado's
#: default is an hour), and so is one idle between two requests.
HEADER_SECONDS = 20.0
BODY_SECONDS = 10.0
MAX_BODY = 4096  # the API reads no body: a larger one is refused from its length alone
MAX_HEADER = 16384  # initData is at most auth.MAX_LENGTH (8 KB)
#: Open connections at most (events streams included); fewer when the descriptor limit is
#: low: :data:`RESERVE` descriptors stay free for the bot's own Bot API calls and store.
MAX_CONNECTIONS = 4000
RESERVE = 256
RETRY_SECONDS = 5
PAUSE_SECONDS = 0.5  # accepting waits this long after the process ran out of descriptors
WARN_SECONDS = 60.0
FULL = (
    b"HTTP/1.1 429 Too Many Requests\r\nRetry-After: %d\r\nContent-Length: 0\r\n"
    b"Connection: close\r\n\r\n" % RETRY_SECONDS
)
_OUT_OF_FILES = (errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM)


def raise_nofile() -> int:
    """Raise the soft limit on open descriptors to the hard limit; the soft limit now
    (0 where the platform has no such limit)."""
    try:
        import resource
    except ImportError:  # pragma: no cover - not on POSIX
        return 0
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and soft < hard:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
            soft = hard
        except (ValueError, OSError):
            log.warning("could not raise the open-files limit from %d to %d", soft, hard)
    return int(soft) if soft != resource.RLIM_INFINITY else 1 << 20


def connection_cap(nofile: int, wanted: int = MAX_CONNECTIONS) -> int:
    """How many connections the server keeps open with ``nofile`` descriptors."""
    if nofile <= 0:
        return wanted
    return max(16, min(wanted, nofile - RESERVE))


class Throttle:
    """True at most once per ``seconds`` (one log line per interval, not one per turn)."""

    def __init__(self, seconds: float = WARN_SECONDS, clock: Callable[[], float] = time.monotonic):
        self.seconds = seconds
        self.clock = clock
        self.last: float | None = None
        self.skipped = 0

    def __call__(self) -> bool:
        now = self.clock()
        if self.last is not None and now - self.last < self.seconds:
            self.skipped += 1
            return False
        self.last = now
        return True


class Acceptor:
    """Accepts connections on one listening socket, as Tornado's ``add_accept_handler``,
    but out of descriptors it stops listening :data:`PAUSE_SECONDS` (the socket would stay
    readable and the loop spin) and warns once per interval."""

    def __init__(self, sock: socket.socket, callback: Callable[[socket.socket, Any], None]):
        self.sock = sock
        self.callback = callback
        self.loop = IOLoop.current()
        self.removed = False
        self.paused = False
        self.warn = Throttle()
        self.loop.add_handler(sock, self.ready, IOLoop.READ)

    def ready(self, fd: Any = None, events: int = 0) -> None:
        for _ in range(128):
            if self.removed or self.paused:
                return
            try:
                connection, address = self.sock.accept()
            except BlockingIOError:
                return
            except ConnectionAbortedError:
                continue
            except OSError as exc:
                if exc.errno not in _OUT_OF_FILES:
                    raise
                self.out_of_files(exc)
                return
            self.callback(connection, address)

    def out_of_files(self, exc: OSError) -> None:
        if self.warn():
            log.warning(
                "Mini App: cannot accept connections (%s); pausing %.1f s (%d more since "
                "the last warning)",
                exc.strerror or exc,
                PAUSE_SECONDS,
                self.warn.skipped,
            )
            self.warn.skipped = 0
        self.paused = True
        self.loop.remove_handler(self.sock)
        self.loop.call_later(PAUSE_SECONDS, self.resume)

    def resume(self) -> None:
        self.paused = False
        if not self.removed:
            self.loop.add_handler(self.sock, self.ready, IOLoop.READ)

    def remove(self) -> None:
        if not self.removed and not self.paused:
            self.loop.remove_handler(self.sock)
        self.removed = True


class GuardedServer(httpserver.HTTPServer):
    """Tornado's HTTP server with the limits above (see the module's docstring)."""

    max_connections = MAX_CONNECTIONS
    refused = 0

    def add_sockets(self, sockets: Any) -> None:
        for sock in sockets:
            self._sockets[sock.fileno()] = sock
            self._handlers[sock.fileno()] = Acceptor(sock, self._handle_connection).remove

    def handle_stream(self, stream: iostream.IOStream, address: tuple[Any, ...]) -> None:
        if len(self._connections) >= self.max_connections:
            self.refused += 1
            stream.set_close_callback(None)
            with contextlib.suppress(OSError):
                stream.socket.send(FULL)  # a few bytes: the socket's buffer takes them
            stream.close()
            return
        super().handle_stream(stream, address)

    @property
    def connections(self) -> int:
        return len(self._connections)


def server(app: Any, max_connections: int) -> GuardedServer:
    guarded = GuardedServer(
        app,
        xheaders=True,
        idle_connection_timeout=HEADER_SECONDS,
        body_timeout=BODY_SECONDS,
        max_body_size=MAX_BODY,
        max_header_size=MAX_HEADER,
    )
    guarded.max_connections = max_connections
    return guarded


class PerUser:
    """A token bucket per user (``rate`` a second, ``burst`` at once): the page's presses
    (a player presses a few times a minute; a script may not press a thousand times)."""

    def __init__(
        self, rate: float, burst: float, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.rate = rate
        self.burst = burst
        self.clock = clock
        self._buckets: dict[int, tuple[float, float]] = {}  # user -> (tokens, when)

    def take(self, user_id: int) -> float:
        """0 if ``user_id`` may go on now (one token taken), else the seconds to wait."""
        now = self.clock()
        tokens, at = self._buckets.get(user_id, (self.burst, now))
        tokens = min(self.burst, tokens + (now - at) * self.rate)
        if len(self._buckets) > 50_000:
            self._buckets.clear()
        if tokens >= 1.0:
            self._buckets[user_id] = (tokens - 1.0, now)
            return 0.0
        self._buckets[user_id] = (tokens, now)
        return (1.0 - tokens) / self.rate


_SECRET = re.compile(r"((?:[?&]|\b)init=)[^&\s'\"]*|(\btma )[^\s'\"]+")


def scrub(text: str) -> str:
    """``text`` without signed initData (a query's ``init=``, a ``tma`` header)."""
    return _SECRET.sub(lambda m: (m.group(1) or m.group(2)) + "…", text)


class Scrub(logging.Filter):
    """Blanks initData in a record's message (a request's URI or repr)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.args:
            record.msg = record.getMessage()
            record.args = None
        if isinstance(record.msg, str):
            record.msg = scrub(record.msg)
        return True


def scrub_tornado_logs() -> None:
    for name in ("tornado.access", "tornado.application", "tornado.general"):
        logger = logging.getLogger(name)
        if not any(isinstance(f, Scrub) for f in logger.filters):
            logger.addFilter(Scrub())
