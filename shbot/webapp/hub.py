"""The live side of the Mini App: which chats are watched, their newest committed table,
and each audience's event serialised once and shared by its streams.

The commit path calls :meth:`Hub.changed` after every committed change (cheap: a dict
store and an event set, only for chats someone watches). A change is turned into text at
most once per audience (:class:`Frames`): the public part once per language, each viewer's
own part (their seat and secret panel) once; a thousand streams of one group write the
same bytes instead of rebuilding, serialising and compressing the view a thousand times.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from shbot.i18n import Translator
from shbot.table import Table

from . import views

KEEP_TABLES = 2  # per chat: the commit path's newest and the store's (another process)
MAX_CHATS = 512
WAKE_BATCH = 50  # streams woken per turn of the event loop


class Hub:
    """The newest committed table of each watched chat, and a wake-up for its streams.

    :meth:`changed` is called by the commit path after every committed change (cheap: a
    dict store and an event set, only for chats someone watches). Each change counts one
    version, so a stream that was busy writing when a change came still sees it."""

    def __init__(self) -> None:
        self.tables: dict[int, Table] = {}
        self.versions: dict[int, int] = {}
        self._waiters: dict[int, set[asyncio.Future[None]]] = {}
        self._watchers: dict[int, int] = {}
        self.frames = Frames()
        #: chat id -> (when, the store's table being read): Access.table's shared reads
        self.loaded: dict[int, tuple[float, asyncio.Future[Table | None]]] = {}

    def changed(self, chat_id: int, table: Table) -> None:
        self.loaded.pop(chat_id, None)  # the store holds a newer one now
        if chat_id not in self._watchers:
            return
        self.tables[chat_id] = table
        self.versions[chat_id] = self.versions.get(chat_id, 0) + 1
        waiters = self._waiters.pop(chat_id, None)
        if waiters:
            _wake_some(list(waiters))

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
        self._waiters.pop(chat_id, None)
        self.frames.forget(chat_id)

    async def wait(self, chat_id: int, seen: int, timeout: float, stop: Stop) -> bool:
        """Until the chat changes after version ``seen`` (True), ``timeout`` or ``stop``.
        One future and one timer a stream (no task): a change wakes thousands cheaply."""
        if self.version(chat_id) != seen:
            return True
        if stop.stopped:
            return False
        loop = asyncio.get_running_loop()
        waiter: asyncio.Future[None] = loop.create_future()
        waiters = self._waiters.setdefault(chat_id, set())
        waiters.add(waiter)
        stop.waiter = waiter
        timer = loop.call_later(timeout, _wake, waiter)
        try:
            await waiter
        finally:
            timer.cancel()
            waiters.discard(waiter)
            stop.waiter = None
        return self.version(chat_id) != seen


class Stop:
    """Ends one stream's wait at once (the client left, the server stops)."""

    def __init__(self) -> None:
        self.stopped = False
        self.waiter: asyncio.Future[None] | None = None

    def set(self) -> None:
        self.stopped = True
        if self.waiter is not None:
            _wake(self.waiter)


def _wake_some(waiters: list[asyncio.Future[None]]) -> None:
    """Wake :data:`WAKE_BATCH` streams now and the rest at the loop's next turns: a press
    (or a Bot API reply) waiting meanwhile goes between two batches, not after them all."""
    for waiter in waiters[:WAKE_BATCH]:
        _wake(waiter)
    if len(waiters) > WAKE_BATCH:
        asyncio.get_running_loop().call_soon(_wake_some, waiters[WAKE_BATCH:])


def _wake(waiter: asyncio.Future[None]) -> None:
    if not waiter.done():
        waiter.set_result(None)


class Frames:
    """Each audience's view of a table as JSON bytes, built once per table object."""

    def __init__(self) -> None:
        self._chats: dict[int, list[tuple[Table, dict[Any, bytes]]]] = {}
        self.built = 0  # views serialised (tests count them)

    def _cache(self, chat_id: int, table: Table) -> dict[Any, bytes]:
        kept = self._chats.setdefault(chat_id, [])
        for known, cache in kept:
            if known is table:
                return cache
        if len(self._chats) > MAX_CHATS:
            self._chats = {chat_id: kept}
        fresh: dict[Any, bytes] = {}
        kept.insert(0, (table, fresh))
        del kept[KEEP_TABLES:]
        return fresh

    def body(self, chat_id: int, t: Translator, table: Table, seat: int | None) -> bytes:
        """The view of ``seat`` (None: a member who does not play) as JSON."""
        cache = self._cache(chat_id, table)
        key = (t.locale, seat)
        found = cache.get(key)
        if found is not None:
            return found
        public = cache.get(t.locale)
        if public is None:
            part = dict(views.public(t, table))
            part.pop("seats", None)  # a lobby's: the viewer's own part has them, marked
            public = cache[t.locale] = json.dumps(part, ensure_ascii=False).encode()
        own = json.dumps(views.personal(t, table, seat), ensure_ascii=False).encode()
        self.built += 1
        found = cache[key] = public[:-1] + b"," + own[1:]
        return found

    def event(self, chat_id: int, t: Translator, table: Table, seat: int | None) -> bytes:
        """The same as one server-sent event (also built once, shared)."""
        cache = self._cache(chat_id, table)
        key = ("event", t.locale, seat)
        found = cache.get(key)
        if found is None:
            found = cache[key] = b"data: " + self.body(chat_id, t, table, seat) + b"\n\n"
        return found

    def forget(self, chat_id: int) -> None:
        self._chats.pop(chat_id, None)
