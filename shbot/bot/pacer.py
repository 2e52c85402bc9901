"""Telegram's rate limits as sliding windows, so the bot never earns a 429.

Telegram allows about 20 messages a minute in a group (edits included) and about 30 calls a
second overall. A sliding window lets the bot use all of that: a burst of 20 when a game
starts, then one call as soon as the oldest of the last 20 is a minute old. The delivery
worker asks :meth:`Pacer.ready_at` before it renders a message, so what it sends is the
newest state at the moment Telegram may take it. Group windows are seeded from the call
times stored with each game, so a restart never bursts into a full window.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Iterable

GROUP_LIMIT, GROUP_PERIOD = 20, 60.0
PRIVATE_LIMIT, PRIVATE_PERIOD = 2, 2.0
OVERALL_LIMIT, OVERALL_PERIOD = 25, 1.0  # leaves room under 30/s for callback answers
#: A group's calls spread over its minute: a bucket of this many calls, one more every
#: ``SMOOTH_EVERY`` seconds: 5 + 15 calls in any minute, so the minute's window itself never
#: fills (a burst of 20 left the next minute silent; small bursts that refill as they go never
#: leave the table waiting long).
SMOOTH_CAPACITY, SMOOTH_EVERY = 5, 4.0
SMOOTH_RESERVE = 1  # of them, kept for step changes
CALM = 4  # calls left in the bucket for progress to go without waiting for more of the same
UNSAVED_EDITS = 3  # group calls a crash may leave unrecorded (see Pacer.seed)


#: A slot frees this long after the oldest call is ``period`` old: PTB's own limiter may hold
#: a call up to a second after the outbox counted it, and Telegram counts whole windows.
MARGIN = 1.0
#: The overall window's margin: a whole second on a one-second window would halve the
#: bot's pace (25 calls per 2 s: Round 1 of three groups starting at once took 2 s).
OVERALL_MARGIN = 0.1


class Window:
    """At most ``limit`` events in any ``period`` seconds."""

    def __init__(self, limit: int, period: float, margin: float = MARGIN) -> None:
        self.limit, self.period, self.margin = limit, period, margin
        self.times: deque[float] = deque()
        self.blocked_until = 0.0

    def ready_at(self, now: float, reserve: int = 0) -> float:
        """When a call may go; with ``reserve``, when more than that many calls stay free
        (progress keeps them for step changes: see :mod:`shbot.bot.budget`)."""
        # One expression decides both "expired" and "free at": computed two ways, float
        # rounding could call a call free that is still counted, and the window overflows.
        span = self.period + self.margin
        while self.times and self.times[0] + span <= now:
            self.times.popleft()
        excess = len(self.times) - self.limit + reserve  # a seeded window may hold more
        free = now if excess < 0 else self.times[excess] + span
        return max(free, self.blocked_until)

    def take(self, now: float) -> None:
        self.times.append(now)


class Bucket:
    """A token bucket: ``capacity`` calls at once, one more every ``every`` seconds."""

    def __init__(self, capacity: int, every: float) -> None:
        self.capacity, self.every = capacity, every
        self.level = float(capacity)
        self.at: float | None = None

    def _fill(self, now: float) -> None:
        if self.at is not None and now > self.at:
            self.level = min(self.capacity, self.level + (now - self.at) / self.every)
        self.at = now if self.at is None else max(self.at, now)

    def ready_at(self, now: float, keep: int = 0) -> float:
        """When a call may go leaving ``keep`` calls in the bucket."""
        self._fill(now)
        missing = 1 + keep - self.level
        return now if missing <= 1e-9 else now + missing * self.every

    def take(self, now: float) -> None:
        self._fill(now)
        self.level = max(-self.capacity, self.level - 1)


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
        self._smooth: dict[int, Bucket] = {}

    def smooth(self, chat_id: int) -> Bucket:
        """A group's bucket that spreads its calls evenly over the minute."""
        b = self._smooth.get(chat_id)
        if b is None:
            if len(self._smooth) > 50_000:
                self._smooth.clear()  # forgetting a bucket costs one small burst
            b = self._smooth[chat_id] = Bucket(SMOOTH_CAPACITY, SMOOTH_EVERY)
        return b

    def window(self, chat_id: int) -> Window:
        w = self._chats.get(chat_id)
        if w is None:
            if len(self._chats) > 50_000:  # bounded memory: drop windows with nothing recent
                now = self.clock()
                self._chats = {
                    k: v for k, v in self._chats.items() if v.ready_at(now) > now or v.times
                }
            group = chat_id < 0
            w = self._chats[chat_id] = Window(
                GROUP_LIMIT if group else PRIVATE_LIMIT, GROUP_PERIOD if group else PRIVATE_PERIOD
            )
        return w

    def ready_at(self, chat_id: int, now: float | None = None, reserve: int = 0) -> float:
        """When a call to ``chat_id`` may be made (``now`` or later), leaving ``reserve``
        calls of its window free."""
        now = self.clock() if now is None else now
        if not self.enabled:
            return now
        at = max(self.window(chat_id).ready_at(now, reserve), self.overall.ready_at(now))
        if chat_id < 0:  # progress (a reserve) keeps two calls of the small window too
            at = max(at, self.smooth(chat_id).ready_at(now, SMOOTH_RESERVE if reserve else 0))
        return at

    def calm(self, chat_id: int, now: float) -> bool:
        """The group spent little of late (its bucket holds ``CALM`` calls): no need to batch."""
        return not self.enabled or self.smooth(chat_id).ready_at(now, CALM - 1) <= now

    def take(self, chat_id: int) -> float:
        """Count a call to ``chat_id`` made now; returns its wall-clock time (to store)."""
        now = self.clock()
        self.window(chat_id).take(now)
        if chat_id < 0:
            self.smooth(chat_id).take(now)
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
        smooth = self.smooth(chat_id) if chat_id < 0 else None
        for t in sorted(wall_times):
            if wall_now - t < w.period:
                w.take(now - max(0.0, wall_now - t))
                if smooth is not None and wall_now - t < SMOOTH_EVERY * SMOOTH_CAPACITY:
                    smooth.take(now)  # a restart does not refill the bucket at once
        for _ in range(UNSAVED_EDITS):
            w.take(now)
