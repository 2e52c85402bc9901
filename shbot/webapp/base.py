"""What every response of the Mini App's server shares: its headers, its log lines (the
path, never the query: the event stream's carries the signed initData), the page and its
static files (by name only: ``..`` or a NUL is a plain 404)."""

from __future__ import annotations

import logging
import re
from types import TracebackType
from typing import Any

from tornado import web
from tornado.log import app_log

log = logging.getLogger("shbot.webapp.server")

#: Telegram's web clients may frame the page (the apps open it in a web view of their own).
FRAMERS = "https://web.telegram.org https://*.telegram.org"
#: The page runs its own script and Telegram's, talks to its own server, nothing else.
CSP = (
    "default-src 'self'; script-src 'self' https://telegram.org; img-src 'self' data:; "
    f"object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors {FRAMERS}"
)
STATIC_NAME = re.compile(r"^[A-Za-z0-9_-]+\.(?:js|css)$")


def access_log(handler: web.RequestHandler) -> None:
    """One line per request, without its query: the event stream's carries the initData."""
    status = handler.get_status()
    level = logging.DEBUG if status < 400 else logging.INFO if status < 500 else logging.ERROR
    request = handler.request
    log.log(
        level,
        "%d %s %s %.1f ms",
        status,
        request.method,
        request.path,
        1000 * request.request_time(),
    )


class Base(web.RequestHandler):
    """Every response: no sniffing; every log line: the path, never the query."""

    def set_default_headers(self) -> None:
        self.set_header("X-Content-Type-Options", "nosniff")
        self.set_header("Referrer-Policy", "no-referrer")

    def _request_summary(self) -> str:
        return f"{self.request.method} {self.request.path} ({self.request.remote_ip})"

    def log_exception(
        self,
        typ: type[BaseException] | None,
        value: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if isinstance(value, web.HTTPError):
            return  # a status of ours (a 404), told by the access log
        app_log.error("Uncaught exception %s", self._request_summary(), exc_info=value)

    def write_error(self, status_code: int, **kwargs: Any) -> None:
        self.set_header("Content-Type", "text/plain; charset=utf-8")
        self.finish(f"{status_code}\n")


class NotFound(Base):
    def prepare(self) -> None:
        raise web.HTTPError(404)


class Static(Base, web.StaticFileHandler):
    """The page's script and style, by name: anything else (``..``, a NUL) a plain 404."""

    async def get(self, path: str, include_body: bool = True) -> None:
        if not STATIC_NAME.match(path):
            raise web.HTTPError(404)
        await super().get(path, include_body)


class Page(Base):
    def initialize(self, static: str) -> None:
        self.static = static

    def get(self) -> None:
        self.set_header("Content-Type", "text/html; charset=utf-8")
        self.set_header("Cache-Control", "no-cache")
        self.set_header("Content-Security-Policy", CSP)
        with open(f"{self.static}/index.html", "rb") as page:
            self.write(page.read())
