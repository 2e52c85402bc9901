"""The Mini App's HTTP server, in the bot's own process and event loop (Tornado).

Routes, under the path of ``SHBOT_WEBAPP_URL`` (a TLS proxy in front forwards it):

* ``/``: the page (``static/index.html``); ``/static/...``: its script and style;
* ``/api/state?chat=``: the viewer's view as JSON;
* ``/api/events?chat=``: the same view as server-sent events, sent again each time
  a commit changes it (:class:`Hub`, fed by the commit path), a comment every few seconds
  to keep proxies from closing the stream; the browser reconnects by itself (``retry``).

Every API request carries Telegram's signed ``initData`` in a header (``Authorization: tma
<initData>``; the page reads the event stream through ``fetch`` so that it never goes in a
URL a proxy logs; ``init=`` is accepted too, for a plain EventSource); refused requests get
a status and one translated sentence, never a view.
"""

from __future__ import annotations

import asyncio
import json
import logging
from importlib import resources
from typing import Any

from tornado import httpserver, iostream, netutil, web

from shbot.i18n import Translator, normalize, translator
from shbot.table import Table

from . import ListenError, views
from .access import Access, Denied, Seen
from .auth import AuthError, WebUser, verify
from .labels import error

log = logging.getLogger(__name__)

PING_SECONDS = 15.0  # a comment on an idle stream; also when the store is read again
RETRY_MS = 1000
#: The page runs its own script and Telegram's, talks to its own server, nothing else.
CSP = (
    "default-src 'self'; script-src 'self' https://telegram.org; img-src 'self' data:; "
    "object-src 'none'; base-uri 'none'; form-action 'none'"
)


class Hub:
    """The newest committed table of each watched chat, and a wake-up for its streams.

    :meth:`changed` is called by the commit path after every committed change (cheap: a
    dict store and an event set, only for chats someone watches). Each change counts one
    version, so a stream that was busy writing when a change came still sees it."""

    def __init__(self) -> None:
        self.tables: dict[int, Table] = {}
        self.versions: dict[int, int] = {}
        self._events: dict[int, asyncio.Event] = {}
        self._watchers: dict[int, int] = {}

    def changed(self, chat_id: int, table: Table) -> None:
        if chat_id not in self._watchers:
            return
        self.tables[chat_id] = table
        self.versions[chat_id] = self.versions.get(chat_id, 0) + 1
        event = self._events.pop(chat_id, None)
        if event is not None:
            event.set()

    def newest(self, chat_id: int) -> Table | None:
        return self.tables.get(chat_id)

    def version(self, chat_id: int) -> int:
        return self.versions.get(chat_id, 0)

    def watch(self, chat_id: int) -> None:
        self._watchers[chat_id] = self._watchers.get(chat_id, 0) + 1

    def unwatch(self, chat_id: int) -> None:
        left = self._watchers.get(chat_id, 1) - 1
        if left > 0:
            self._watchers[chat_id] = left
            return
        self._watchers.pop(chat_id, None)
        self.tables.pop(chat_id, None)
        self.versions.pop(chat_id, None)
        self._events.pop(chat_id, None)

    async def wait(self, chat_id: int, seen: int, timeout: float, stop: asyncio.Event) -> bool:
        """Until the chat changes after version ``seen`` (True), ``timeout`` or ``stop``."""
        if self.version(chat_id) != seen:
            return True
        event = self._events.setdefault(chat_id, asyncio.Event())
        waits = [asyncio.ensure_future(event.wait()), asyncio.ensure_future(stop.wait())]
        try:
            await asyncio.wait(waits, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for w in waits:
                w.cancel()
        return self.version(chat_id) != seen


class WebApp:
    """The server and what its handlers share (``svc``: the bot's Services)."""

    def __init__(self, svc: Any, path: str = "") -> None:
        self.svc = svc
        self.path = path.rstrip("/")
        self.hub = Hub()
        self.access = Access(svc, self.hub.newest)
        self.server: httpserver.HTTPServer | None = None
        self.port = 0
        self._public: dict[tuple[int, str], tuple[Table, dict[str, Any]]] = {}
        self.streams: set[web.RequestHandler] = set()

    def application(self) -> web.Application:
        static = str(resources.files("shbot.webapp") / "static")
        base = self.path
        return web.Application(
            [
                (rf"{base}/", Page, {"static": static}),
                (rf"{base}/api/state", State, {"app": self}),
                (rf"{base}/api/events", Events, {"app": self}),
                (rf"{base}/static/(.*)", web.StaticFileHandler, {"path": static}),
                (rf"{base}", web.RedirectHandler, {"url": f"{base}/"}),
            ],
            compress_response=True,
            log_function=_access_log,
        )

    async def start(self, listen: str, port: int) -> int:
        """Listen (port 0: any free port); the port bound."""
        try:
            sockets = netutil.bind_sockets(port, listen)
        except OSError as exc:
            raise ListenError(
                f"SHBOT_WEBAPP_LISTEN/SHBOT_WEBAPP_PORT: cannot listen on {listen}:{port}: "
                f"{exc.strerror or exc}"
            ) from None
        self.server = httpserver.HTTPServer(self.application(), xheaders=True)
        self.server.add_sockets(sockets)
        self.port = int(sockets[0].getsockname()[1])
        log.info("Mini App served on %s:%d%s/", listen, self.port, self.path)
        return self.port

    async def stop(self) -> None:
        if self.server is not None:
            self.server.stop()
            for stream in list(self.streams):
                stream.finish_stream()  # type: ignore[attr-defined]
            await self.server.close_all_connections()
            self.server = None

    def public(self, t: Translator, table: Table) -> dict[str, Any]:
        """The public part, built once per committed table and language."""
        key = (id(table), t.locale)
        cached = self._public.get(key)
        if cached is not None and cached[0] is table:
            return cached[1]
        if len(self._public) > 256:
            self._public.clear()
        built = views.public(t, table)
        self._public[key] = (table, built)
        return built

    def view(self, t: Translator, seen: Seen) -> dict[str, Any]:
        return {**self.public(t, seen.table), **views.personal(t, seen.table, seen.seat)}


def _access_log(handler: web.RequestHandler) -> None:
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


class Page(web.RequestHandler):
    def initialize(self, static: str) -> None:
        self.static = static

    def get(self) -> None:
        self.set_header("Content-Type", "text/html; charset=utf-8")
        self.set_header("Cache-Control", "no-cache")
        self.set_header("Referrer-Policy", "no-referrer")
        self.set_header("Content-Security-Policy", CSP)
        with open(f"{self.static}/index.html", "rb") as page:
            self.write(page.read())


class Api(web.RequestHandler):
    app: WebApp

    def initialize(self, app: WebApp) -> None:
        self.app = app

    def set_default_headers(self) -> None:
        self.set_header("Cache-Control", "no-store")
        self.set_header("Referrer-Policy", "no-referrer")

    def init_data(self) -> str:
        header = self.request.headers.get("Authorization", "")
        if header.startswith("tma "):
            return header[4:]
        return self.get_query_argument("init", "") or ""

    def t_unknown(self) -> Translator:
        """For a refusal before anyone is known: the page's own guess of the language."""
        return translator(normalize(self.get_query_argument("lang", "")) or "en")

    def refuse(self, status: int, t: Translator, reason: str) -> None:
        self.set_status(status)
        self.set_header("Content-Type", "application/json; charset=utf-8")
        self.finish(json.dumps({"error": error(t, reason), "reason": reason}))

    async def seen(self, *, watch: bool = False) -> tuple[WebUser, Translator, Seen] | None:
        """The signed-in user, their language and what they may see; None: refused.
        ``watch``: the hub keeps the chat's commits from before its table is read."""
        try:
            user = verify(self.init_data(), self.app.svc.config.token)
        except AuthError as exc:
            self.refuse(401, self.t_unknown(), exc.reason)
            return None
        t = translator(await self.app.svc.user_lang(user.id, user.language_code))
        try:
            chat_id = await self.app.access.chat_for(user, self.get_query_argument("chat", None))
        except Denied as denied:
            self.refuse(404, t, denied.reason)
            return None
        if watch:
            self.app.hub.watch(chat_id)
        try:
            # From the store: with several bot processes, the hub holds only this one's.
            table = await self.app.access.table(chat_id, fresh=True)
            seen = await self.app.access.check(user, chat_id, table)
        except Denied as denied:
            if watch:
                self.app.hub.unwatch(chat_id)
            self.refuse(403 if denied.reason == "forbidden" else 404, t, denied.reason)
            return None
        return user, t, seen


class State(Api):
    async def get(self) -> None:
        found = await self.seen()
        if found is None:
            return
        _, t, seen = found
        self.set_header("Content-Type", "application/json; charset=utf-8")
        self.finish(json.dumps(self.app.view(t, seen), ensure_ascii=False))


class Events(Api):
    """The view as server-sent events: again whenever a commit changes it."""

    closed = False
    stop: asyncio.Event

    def on_connection_close(self) -> None:
        self.finish_stream()

    def finish_stream(self) -> None:
        self.closed = True
        if hasattr(self, "stop"):
            self.stop.set()

    async def get(self) -> None:
        found = await self.seen(watch=True)
        if found is None:
            return
        user, t, seen = found
        chat_id = seen.chat_id
        self.stop = asyncio.Event()
        self.set_header("Content-Type", "text/event-stream; charset=utf-8")
        self.set_header("X-Accel-Buffering", "no")  # nginx: pass each event on at once
        hub = self.app.hub
        self.app.streams.add(self)
        last = ""
        try:
            self.write(f"retry: {RETRY_MS}\n\n")
            while not self.closed:
                version = hub.version(chat_id)
                body = json.dumps(self.app.view(t, seen), ensure_ascii=False)
                if body != last:
                    self.write(f"data: {body}\n\n")
                    last = body
                else:
                    self.write(": ping\n\n")
                await self.flush()
                woke = await hub.wait(chat_id, version, PING_SECONDS, self.stop)
                if self.closed:
                    break
                table = await self.app.access.table(chat_id, fresh=not woke)
                if table is not None:  # another process may have committed (no hook here)
                    seen = await self.app.access.check(user, chat_id, table)
        except (iostream.StreamClosedError, Denied):
            pass
        finally:
            hub.unwatch(chat_id)
            self.app.streams.discard(self)
        if not self.closed:
            self.finish()
