"""Telegram's rate limits as sliding windows, so the bot never earns a 429.

Telegram allows about 20 messages a minute in a group (edits included) and about 30 calls a
second overall. A sliding window lets the bot use all of that: a burst of 20 when a game
starts, then one call as soon as the oldest of the last 20 is a minute old. The delivery
worker asks :meth:`Pacer.ready_at` before it renders a message, so what it sends is the
newest state at the moment Telegram may take it. Group windows are seeded from the call
times stored with each game, so a restart never bursts into a full window.
"""

from __future__ import annotations

import math
import time
from collections import deque
from collections.abc import Callable, Iterable

GROUP_LIMIT, GROUP_PERIOD = 20, 60.0
PRIVATE_LIMIT, PRIVATE_PERIOD = 2, 2.0
OVERALL_LIMIT, OVERALL_PERIOD = 25, 1.0  # leaves room under 30/s for callback answers
#: A group's calls spread over its minute: a call goes only if, after it, the group could
#: still make one call every ``GROUP_PACE`` seconds for a whole window (61 s) without going
#: over its 20. A quiet group may burst (5 calls at once when its window is empty, less the
#: fuller it is); a busy one spends its calls as they free, up to the full 20 a minute; and a
#: burst never leaves the next step change waiting long for a slot (a burst of 20 left the
#: next minute silent). Replaces a token bucket (5, one more every 4 s) that capped a busy
#: group at 15 calls a minute although its window had room for 20.
GROUP_PACE = 4.0
CALM = 4  # calls a group could make at once to be calm (see Budget.not_before)
UNSAVED_EDITS = 3  # group calls a crash may leave unrecorded (see Pacer.seed)


#: A slot frees this long after the oldest call is ``period`` old: PTB's own limiter may hold
#: a call up to a second after the outbox counted it, and Telegram counts whole windows.
MARGIN = 1.0
#: The overall window's margin: a whole second on a one-second window would halve the
#: bot's pace (25 calls per 2 s: Round 1 of three groups starting at once took 2 s).
OVERALL_MARGIN = 0.1


class Window:
    """At most ``limit`` events in any ``period`` seconds; with a ``pace``, spread out: a call
    goes only if one call every ``pace`` seconds after it would still fit."""

    def __init__(
        self, limit: int, period: float, margin: float = MARGIN, pace: float | None = None
    ) -> None:
        self.limit, self.period, self.margin, self.pace = limit, period, margin, pace
        self.times: deque[float] = deque()
        self.blocked_until = 0.0

    def ready_at(self, now: float, reserve: int = 0) -> float:
        """When a call may go; with ``reserve``, when more than that many calls stay free
        (progress keeps them for step changes: see :mod:`.budget`), now and, with a pace,
        at every later step of the pace."""
        # One expression decides both "expired" and "free at": computed two ways, float
        # rounding could call a call free that is still counted, and the window overflows.
        span = self.period + self.margin
        while self.times and self.times[0] + span <= now:
            self.times.popleft()
        excess = len(self.times) - self.limit + reserve  # a seeded window may hold more
        free = now if excess < 0 else self.times[excess] + span
        if self.pace is not None:
            # The k-th call of the pace after this one comes k * pace later: by then the
            # window must have let go of enough calls for it, this one and the reserve.
            for k in range(1, math.ceil(span / self.pace)):
                i = excess + k
                if i >= len(self.times):  # more than the limit anyway (a reserve of 5+)
                    break
                if i >= 0:
                    free = max(free, self.times[i] + span - k * self.pace)
        return max(free, self.blocked_until)

    def take(self, now: float) -> None:
        self.times.append(now)


class Pacer:
    """Per-chat and overall windows on one monotonic clock (the event loop's)."""

    def __init__(
        self,
        clock: Callable[[], float],
        wall: Callable[[], float] = time.time,
        *,
        enabled: bool = True,
    ) -> None:
        self.clock, self.wall, self.enabled = clock, wall, enabled
        self.overall = Window(OVERALL_LIMIT, OVERALL_PERIOD, OVERALL_MARGIN)
        self._chats: dict[int, Window] = {}

    def window(self, chat_id: int) -> Window:
        w = self._chats.get(chat_id)
        if w is None:
            if len(self._chats) > 50_000:  # bounded memory: drop windows with nothing recent
                now = self.clock()
                self._chats = {
                    k: v for k, v in self._chats.items() if v.ready_at(now) > now or v.times
                }
            group = chat_id < 0
            w = self._chats[chat_id] = (
                Window(GROUP_LIMIT, GROUP_PERIOD, pace=GROUP_PACE)
                if group
                else Window(PRIVATE_LIMIT, PRIVATE_PERIOD)
            )
        return w

    def ready_at(
        self, chat_id: int, now: float | None = None, reserve: int = 0, *, overall: bool = True
    ) -> float:
        """When a call to ``chat_id`` may be made (``now`` or later), leaving ``reserve``
        calls of its window free; with ``overall=False`` the chat's own window only (the
        outbox's workers take turns at the overall one: :mod:`.turns`)."""
        now = self.clock() if now is None else now
        if not self.enabled:
            return now
        mine = self.window(chat_id).ready_at(now, reserve)
        return max(mine, self.overall.ready_at(now)) if overall else mine

    def calm(self, chat_id: int, now: float) -> bool:
        """The group spent little of late (``CALM`` calls could go at once): a command reply
        need not wait, nor the board's picture for ``BOARD_EVERY``."""
        return not self.enabled or self.window(chat_id).ready_at(now, CALM - 1) <= now

    def take(self, chat_id: int) -> float:
        """Count a call to ``chat_id`` made now; returns its wall-clock time (to store)."""
        now = self.clock()
        self.window(chat_id).take(now)
        self.overall.take(now)
        return self.wall()

    def block(self, chat_id: int | None, seconds: float) -> None:
        """Telegram said "retry after": nothing more to that chat (or at all) until then."""
        until = self.clock() + seconds
        target = self.overall if chat_id is None else self.window(chat_id)
        target.blocked_until = max(target.blocked_until, until)

    def seed(self, chat_id: int, wall_times: Iterable[float]) -> None:
        """Restore a group's window from stored call times (after a restart), plus calls
        assumed just made: the edits of the group's kept messages (lobby, board, round) are
        stored with the next change of the game, so a crash may lose one of each."""
        if not self.enabled or chat_id in self._chats:
            return
        now, wall_now = self.clock(), self.wall()
        w = self.window(chat_id)
        for t in sorted(wall_times):
            if wall_now - t < w.period:
                w.take(now - max(0.0, wall_now - t))
        for _ in range(UNSAVED_EDITS):
            w.take(now)
