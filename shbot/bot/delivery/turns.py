"""The token's calls shared out in order: step changes first, then groups in turn.

Telegram allows about 30 calls a second for the whole bot. Each chat's worker used to wait
for the overall window on a timer of its own and take the first slot it found free: under
overload every waiting worker woke at each freed slot (ten thousand wake-ups a second at a
few thousand groups), the winner was whichever timer the loop ran first (a group could lose
every race), and a vote count's edit took a slot as readily as another group's next prompt.

Here a worker whose chat window allows a call asks for a *turn*. It goes at once while the
overall window has room and nobody more urgent waits; else it waits, woken by the one
dispatcher when its turn comes. Turns go by kind (a step change before any progress, see
:mod:`.budget`), then first asked first served: a worker that made its call asks again
behind every other waiting chat, so each group gets its share and none starves. Progress
takes a turn only while the window keeps :data:`PROGRESS_RESERVE` calls free, so a step
change that comes a moment later need not wait for the second to roll over. A turn is
held from its grant until the worker has made its call (or given the turn back): calls
on their way are never counted twice as free.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
from collections.abc import Callable
from typing import TYPE_CHECKING

from .budget import PROGRESS, STEP

if TYPE_CHECKING:
    from .pacer import Window

#: Calls of the overall window progress leaves free for step changes (fewer in a window of
#: under ten calls, none in one of four).
PROGRESS_RESERVE = 2
#: Seconds progress waits in line at most: then it goes in turn with the step changes (it
#: is deferred, never starved: a lobby's joins, a vote's count reach the group).
PROGRESS_AGE = 60.0


class Turns:
    """Who makes the process's next calls to chats, on the overall ``window``."""

    def __init__(self, window: Window, clock: Callable[[], float]) -> None:
        self.window, self.clock = window, clock
        self._asked: dict[int, tuple[int, int]] = {}  # chat -> (kind, ticket)
        self._queue: list[tuple[int, int, int]] = []  # (kind, ticket, chat), stale ones too
        self._wake: dict[int, asyncio.Event] = {}
        self._held: set[int] = set()  # chats granted a turn not yet given back
        self._tickets = itertools.count()
        self._timer: asyncio.TimerHandle | None = None
        self._since: dict[int, float] = {}  # chat -> when its progress began to wait

    def free(self, now: float) -> int:
        """Calls the overall window could take now, less the turns on their way."""
        w = self.window
        if w.blocked_until > now:
            return 0
        w.ready_at(now)  # lets go of the calls that are a whole window old
        return w.limit - len(w.times) - len(self._held)

    def go(self, chat: int, kind: int, wake: asyncio.Event) -> bool:
        """May ``chat``'s worker make a call of ``kind`` now? If so the turn is its own until
        :meth:`done`; if not, it waits in line and ``wake`` is set when its turn comes (ask
        again then: a newer state may be of another kind)."""
        if chat in self._held:
            return True
        if kind == PROGRESS:
            now = self.clock()
            if self._since.setdefault(chat, now) + PROGRESS_AGE <= now:
                kind = STEP  # waited long enough: in turn with the step changes
        asked = self._asked.get(chat)
        if asked is not None and asked[0] > kind:  # progress became a step change: move up
            asked = self._asked[chat] = (kind, asked[1])
            heapq.heappush(self._queue, (kind, asked[1], chat))
        head = self._head()
        first = head is None or head[0] > kind or (asked is not None and head[2] == chat)
        if first and self.free(self.clock()) > self._reserve(kind):
            self._forget(chat)
            self._held.add(chat)
            return True
        if asked is None:
            ticket = next(self._tickets)
            self._asked[chat] = (kind, ticket)
            heapq.heappush(self._queue, (kind, ticket, chat))
        self._wake[chat] = wake
        self._pump()
        return False

    def done(self, chat: int) -> None:
        """``chat``'s worker made its call (or will not): its turn is over."""
        if chat in self._held:
            self._held.discard(chat)
            self._pump()

    def leave(self, chat: int) -> None:
        """``chat`` has nothing to send now (or its own window is full): out of the line."""
        self.done(chat)
        self._forget(chat)

    def waiting(self) -> int:
        """Chats waiting for a turn."""
        return len(self._asked)

    def _forget(self, chat: int) -> None:
        self._asked.pop(chat, None)
        self._wake.pop(chat, None)
        self._since.pop(chat, None)

    def _reserve(self, kind: int) -> int:
        """Calls a turn of ``kind`` must leave free in the window."""
        if kind != PROGRESS:
            return 0
        return min(PROGRESS_RESERVE, (self.window.limit - 1) // 4)

    def _head(self) -> tuple[int, int, int] | None:
        """The first in line (stale entries dropped)."""
        while self._queue:
            kind, ticket, chat = self._queue[0]
            if self._asked.get(chat) == (kind, ticket):
                return self._queue[0]
            heapq.heappop(self._queue)
        return None

    def _pump(self) -> None:
        """Grant the free calls to the first in line; else wake up when a call frees."""
        now = self.clock()
        free = self.free(now)
        while (head := self._head()) is not None:
            kind, _ticket, chat = head
            if free <= self._reserve(kind):
                self._arm(now, kind)
                return
            heapq.heappop(self._queue)
            wake = self._wake.get(chat)
            self._forget(chat)
            self._held.add(chat)
            free -= 1
            if wake is not None:
                wake.set()

    def _arm(self, now: float, kind: int) -> None:
        """Run :meth:`_pump` when the window has room for the first in line (a ``kind``)."""
        w = self.window
        # The call whose expiry leaves room: the window must let go of this many more.
        i = len(w.times) + len(self._held) - w.limit + self._reserve(kind)
        if w.blocked_until > now:
            at = w.blocked_until
        elif 0 <= i < len(w.times):
            at = w.times[i] + w.period + w.margin
        else:
            return  # the turns on their way hold the room: done() pumps again
        if self._timer is not None:
            if self._timer.when() <= at:
                return
            self._timer.cancel()
        loop = asyncio.get_running_loop()
        self._timer = loop.call_at(max(at, loop.time() + 0.001), self._fire)

    def _fire(self) -> None:
        self._timer = None
        self._pump()


__all__ = ["PROGRESS", "PROGRESS_RESERVE", "STEP", "Turns"]
