"""The Mini App's HTTP server, in the bot's own process and event loop (Tornado).

Routes, under the path of ``SHBOT_WEBAPP_URL`` (a TLS proxy in front forwards it):

* ``/``: the page (``static/index.html``); ``/static/...``: its script and style;
* ``/api/state?chat=``: the viewer's view as JSON;
* ``/api/events?chat=``: the same view as server-sent events, sent again each time
  a commit changes it (:class:`Hub`, fed by the commit path), a comment every few seconds
  to keep proxies from closing the stream; the browser reconnects by itself (``retry``);
* ``POST /api/act?chat=``: a press from the page (``{"data": <a button's callback data>,
  "id": <the page's id for this press>}``), judged as the chat's button (``actions.py``).

Every API request carries Telegram's signed ``initData`` in a header (``Authorization: tma
<initData>``; the page reads the event stream through ``fetch`` so that it never goes in a
URL a proxy logs; ``init=`` is accepted too, for a plain EventSource); refused requests get
a status and one translated sentence, never a view.

No client may slow the bot down (``guard.py``): connections, streams (per user and in
all) and membership checks are capped, the excess refused with ``429`` and
``Retry-After``; a change is serialised once per audience and shared by its streams
(``hub.py``), never compressed per stream.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections import Counter
from importlib import resources
from typing import Any

from tornado import iostream, netutil, web

from shbot.bot.refusals import refusal_text
from shbot.i18n import Translator, normalize, translator
from shbot.table import Refusal

from . import ListenError, guard
from .access import Access, Denied, Seen
from .actions import NONCE, act
from .auth import AuthError, WebUser, verify
from .base import Base, NotFound, Page, Static, access_log
from .hub import Hub, Stop
from .labels import error

log = logging.getLogger(__name__)

PING_SECONDS = 15.0  # a comment on an idle stream; also when the store is read again
WRITE_SECONDS = 30.0  # a stream whose client has not taken an event by then is closed
RETRY_MS = 1000
MAX_STREAMS = 2000  # event streams at most, all users together
STREAMS_PER_USER = 6  # a phone and a desktop, a few groups
BAD_INIT = frozenset({"malformed", "duplicate", "too_long"})  # 400, not 401
PRESS_RATE = 3.0  # a user's presses from the page a second, and at once:
PRESS_BURST = 10.0  # a whole vote's worth of second thoughts, not a script's flood
MAX_PRESS = 512  # bytes of a press's body


class WebApp:
    """The server and what its handlers share (``svc``: the bot's Services)."""

    max_connections = guard.MAX_CONNECTIONS

    def __init__(self, svc: Any, path: str = "") -> None:
        self.svc = svc
        self.path = path.rstrip("/")
        self.hub = Hub()
        self.access = Access(svc, self.hub)
        self.server: guard.GuardedServer | None = None
        self.port = 0
        self.streams: set[web.RequestHandler] = set()
        self.per_user: Counter[int] = Counter()
        self.max_streams = MAX_STREAMS
        self.streams_per_user = STREAMS_PER_USER
        self.presses = guard.PerUser(PRESS_RATE, PRESS_BURST)

    def application(self) -> web.Application:
        static = str(resources.files("shbot.webapp") / "static")
        base = self.path
        return web.Application(
            [
                (rf"{base}/", Page, {"static": static}),
                (rf"{base}/api/state", State, {"app": self}),
                (rf"{base}/api/events", Events, {"app": self}),
                (rf"{base}/api/act", Act, {"app": self}),
                (rf"{base}/static/(.*)", Static, {"path": static}),
                (rf"{base}", web.RedirectHandler, {"url": f"{base}/"}),
            ],
            compress_response=True,
            log_function=access_log,
            default_handler_class=NotFound,
        )

    async def start(self, listen: str, port: int) -> int:
        """Listen (port 0: any free port); the port bound."""
        nofile = guard.raise_nofile()
        try:
            sockets = netutil.bind_sockets(port, listen)
        except OSError as exc:
            raise ListenError(
                f"SHBOT_WEBAPP_LISTEN/SHBOT_WEBAPP_PORT: cannot listen on {listen}:{port}: "
                f"{exc.strerror or exc}"
            ) from None
        guard.scrub_tornado_logs()
        cap = guard.connection_cap(nofile, self.max_connections)
        self.server = guard.server(self.application(), cap)
        self.server.add_sockets(sockets)
        self.port = int(sockets[0].getsockname()[1])
        log.info(
            "Mini App served on %s:%d%s/ (open files %d; at most %d connections, %d streams)",
            listen,
            self.port,
            self.path,
            nofile,
            cap,
            self.max_streams,
        )
        return self.port

    async def stop(self) -> None:
        if self.server is not None:
            self.server.stop()
            for stream in list(self.streams):
                stream.finish_stream()  # type: ignore[attr-defined]
            await self.server.close_all_connections()
            self.server = None

    def admit(self, user_id: int) -> bool:
        """One more event stream for ``user_id``, within the caps (then :meth:`release`)."""
        if sum(self.per_user.values()) >= self.max_streams:
            return False
        if self.per_user[user_id] >= self.streams_per_user:
            return False
        self.per_user[user_id] += 1
        return True

    def release(self, user_id: int) -> None:
        self.per_user[user_id] -= 1
        if self.per_user[user_id] <= 0:
            del self.per_user[user_id]

    def body(self, t: Translator, seen: Seen) -> bytes:
        return self.hub.frames.body(seen.chat_id, t, seen.table, seen.seat)


class Api(Base):
    app: WebApp

    def initialize(self, app: WebApp) -> None:
        self.app = app

    def set_default_headers(self) -> None:
        super().set_default_headers()
        self.set_header("Cache-Control", "no-store")

    def init_data(self) -> str:
        header = self.request.headers.get("Authorization", "")
        if header.startswith("tma "):
            return header[4:]
        return self.get_query_argument("init", "") or ""

    def t_unknown(self) -> Translator:
        """For a refusal before anyone is known: the page's own guess of the language."""
        return translator(normalize(self.get_query_argument("lang", "")) or "en")

    def refuse(self, status: int, t: Translator, reason: str, retry: float = 0) -> None:
        self.set_status(status)
        if retry:
            self.set_header("Retry-After", str(max(1, round(retry))))
        self.set_header("Content-Type", "application/json; charset=utf-8")
        self.finish(json_refusal(t, reason))

    def user(self) -> WebUser | None:
        try:
            return verify(self.init_data(), self.app.svc.config.token)
        except AuthError as exc:
            self.refuse(400 if exc.reason in BAD_INIT else 401, self.t_unknown(), exc.reason)
            return None

    async def seen(
        self, user: WebUser, *, watch: bool = False, fresh: bool = True
    ) -> tuple[Translator, Seen] | None:
        """The user's language and what they may see; None: refused.
        ``watch``: the hub keeps the chat's commits from before its table is read;
        ``fresh``: the table from the store (else the commit path's newest, if watched)."""
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
            table = await self.app.access.table(chat_id, fresh=fresh)
            seen = await self.app.access.check(user, chat_id, table)
        except Denied as denied:
            if watch:
                self.app.hub.unwatch(chat_id)
            status = {"forbidden": 403, "busy": 429}.get(denied.reason, 404)
            self.refuse(status, t, denied.reason, denied.retry)
            return None
        return t, seen


def json_refusal(t: Translator, reason: str) -> str:
    return json.dumps({"error": error(t, reason), "reason": reason})


class State(Api):
    async def get(self) -> None:
        user = self.user()
        found = None if user is None else await self.seen(user)
        if found is None:
            return
        t, seen = found
        self.set_header("Content-Type", "application/json; charset=utf-8")
        self.finish(self.app.body(t, seen))


class Act(Api):
    """A press from the page, by a player or member of the group (checked as for a view),
    at most :data:`PRESS_RATE` a second per user; its answer as JSON (``actions.act``)."""

    async def post(self) -> None:
        user = self.user()
        if user is None:
            return
        wait = self.app.presses.take(user.id)
        if wait:
            t = translator(await self.app.svc.user_lang(user.id, user.language_code))
            self.set_header("Retry-After", str(max(1, round(wait))))
            self.answer(429, {"ok": False, "text": refusal_text(t, Refusal("flood"))})
            return
        try:
            body = json.loads(self.request.body) if len(self.request.body) <= MAX_PRESS else {}
            data, nonce = body["data"], body["id"]
            valid = isinstance(data, str) and isinstance(nonce, str) and NONCE.match(nonce)
        except (ValueError, KeyError, TypeError):
            valid = False
        if not valid:
            t = translator(await self.app.svc.user_lang(user.id, user.language_code))
            self.answer(400, {"ok": False, "text": t._("This button is not valid.")})
            return
        found = await self.seen(user, fresh=False)
        if found is not None:
            t, seen = found
            self.answer(200, await act(self.app.svc, user, t, seen.chat_id, data, nonce))

    def answer(self, status: int, reply: dict[str, Any]) -> None:
        self.set_status(status)
        self.set_header("Content-Type", "application/json; charset=utf-8")
        self.finish(json.dumps(reply, ensure_ascii=False))


class Events(Api):
    """The view as server-sent events: again whenever a commit changes it. Uncompressed:
    the same bytes go to every stream of an audience (a gzip context per stream cost
    about 240 KB each)."""

    closed = False
    stop: Stop

    def prepare(self) -> None:
        self._transforms = []

    def on_connection_close(self) -> None:
        self.finish_stream()

    def finish_stream(self) -> None:
        self.closed = True
        if hasattr(self, "stop"):
            self.stop.set()

    async def get(self) -> None:
        user = self.user()
        if user is None:
            return
        if not self.app.admit(user.id):
            t = translator(await self.app.svc.user_lang(user.id, user.language_code))
            self.refuse(429, t, "busy", guard.RETRY_SECONDS)
            return
        try:
            await self.serve(user)
        finally:
            self.app.release(user.id)

    async def serve(self, user: WebUser) -> None:
        found = await self.seen(user, watch=True)
        if found is None:
            return
        t, seen = found
        chat_id = seen.chat_id
        self.stop = Stop()
        self.set_header("Content-Type", "text/event-stream; charset=utf-8")
        self.set_header("X-Accel-Buffering", "no")  # nginx: pass each event on at once
        hub = self.app.hub
        self.app.streams.add(self)
        last = b""
        try:
            self.write(f"retry: {RETRY_MS}\n\n")
            while not self.closed:
                version = hub.version(chat_id)
                event = hub.frames.event(chat_id, t, seen.table, seen.seat)
                if event is not last and event != last:
                    self.write(event)
                    last = event
                else:
                    self.write(b": ping\n\n")
                async with asyncio.timeout(WRITE_SECONDS):
                    await self.flush()  # a client that reads nothing keeps no stream
                woke = await hub.wait(chat_id, version, PING_SECONDS, self.stop)
                if self.closed:
                    break
                table = await self.app.access.table(chat_id, fresh=not woke)
                if table is not None:  # another process may have committed (no hook here)
                    seen = await self.app.access.check(user, chat_id, table)
        except (iostream.StreamClosedError, Denied):
            pass
        except TimeoutError:
            self.closed = True
            self.request.connection.close()  # type: ignore[union-attr]
        finally:
            hub.unwatch(chat_id)
            self.app.streams.discard(self)
        if not self.closed:
            self.finish()
