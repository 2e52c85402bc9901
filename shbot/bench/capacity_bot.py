"""The bot of ``bench capacity``: the production Application over a fake Bot API that counts
Telegram's limits, on a virtual clock, its token's overall limit scaled for a sample.

A sampled run (``share`` < 1) simulates a fraction of the groups against the same fraction
of the token: every overall window (the outbox's pacer, the process's rate limiter and the
fake's 30 a second) keeps its rate times ``share``, its burst scaled alike. Each group's own
limits (20 a minute) are Telegram's. Telegram's wall clock (the tables' deadlines, the
pacer's call times) follows the loop's virtual clock.

Self-contained on purpose (no API of this checkout beyond the Application, the outbox's
``_ack`` and ``committed``, the pacer's ``overall`` window and the deadline's transition),
so that the same bench measures an older checkout.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import os
import tempfile
import time
from collections import deque
from collections.abc import AsyncIterator, Callable
from typing import Any
from unittest import mock

from shbot.devtools.fake_telegram import FakeBotAPI

TELEGRAM_OVERALL = 30  # calls to chats a second, the whole token
GROUP_LIMIT, GROUP_PERIOD = 20, 60.0
GROUP_METHODS = frozenset(
    {"sendmessage", "sendphoto", "editmessagetext", "editmessagereplymarkup", "editmessagemedia"}
    | {"deletemessage", "pinchatmessage", "unpinchatmessage"}
)


def scaled(limit: int, period: float, share: float) -> tuple[int, float]:
    """A window of ``limit`` calls a ``period`` at ``share`` of its rate: the burst scaled as
    well (``limit * share`` calls, at least one), the period adjusted to keep the rate."""
    if share >= 1.0:
        return limit, period
    burst = max(1, round(limit * share))
    return burst, period * burst / (limit * share)


class CountingAPI(FakeBotAPI):
    """The fake Bot API with Telegram's flood limits counted incrementally (the fake's own
    check reads back a minute of calls for each one: too slow at thousands of groups):
    20 calls a minute per group, ``overall`` calls to chats per ``period`` for the token;
    over either, 429 with ``retry_after``, as Telegram answers."""

    def __init__(self, share: float) -> None:
        super().__init__(strict_limits=True)
        self.overall, self.period = scaled(TELEGRAM_OVERALL, 1.0, share)
        self._recent: deque[float] = deque()
        self._groups: dict[int, deque[float]] = {}
        self.refused = 0

    def _flood_check(self, method: str, chat_id: int | str | None, now: float) -> None:
        from shbot.devtools.fake_telegram import ApiError

        if chat_id is None:
            return
        recent = self._recent
        while recent and recent[0] < now - self.period:
            recent.popleft()
        grouped = method.lower() in GROUP_METHODS and isinstance(chat_id, int) and chat_id < 0
        times = self._groups.setdefault(chat_id, deque()) if grouped else None  # type: ignore[arg-type]
        if times is not None:
            while times and times[0] < now - GROUP_PERIOD:
                times.popleft()
        if len(recent) >= self.overall:
            self.refused += 1
            raise ApiError(429, "Too Many Requests: retry after 1", {"retry_after": 1})
        if times is not None and len(times) >= GROUP_LIMIT:
            self.refused += 1
            wait = max(1, math.ceil(times[0] + GROUP_PERIOD - now))
            raise ApiError(429, f"Too Many Requests: retry after {wait}", {"retry_after": wait})
        recent.append(now)
        if times is not None:
            times.append(now)


def scale_token(app: Any, share: float) -> None:
    """The app's overall windows at ``share`` of their rate (see the module docstring)."""
    if share >= 1.0:
        return
    from shbot.bot.delivery.pacer import Window

    outbox = app.bot_data["svc"].outbox
    old = outbox.pacer.overall
    limit, period = scaled(old.limit, old.period, share)
    outbox.pacer.overall = Window(limit, period, old.margin * period / old.period)
    if getattr(outbox, "turns", None) is not None:  # the turns at the token's calls
        outbox.turns.window = outbox.pacer.overall
    limiter: Any = getattr(app.bot, "rate_limiter", None)
    window = getattr(limiter, "window", None)
    if limiter is not None and window is not None:
        limit, period = scaled(window.limit, window.period, share)
        limiter.window = Window(limit, period, window.margin * period / window.period)


@contextlib.contextmanager
def virtual_wall() -> Any:
    """``time.time`` on the loop's virtual clock (anchored at the real time now), as the
    JobQueue's clock is under :func:`shbot.devtools.driver.jobqueue_on_loop_clock`."""
    loop = asyncio.get_running_loop()
    wall0, loop0 = time.time(), loop.time()

    def wall() -> float:
        return wall0 + loop.time() - loop0

    with mock.patch("time.time", wall):
        yield wall


@contextlib.asynccontextmanager
async def capacity_bot(share: float, seed: int, timers: str = "normal") -> AsyncIterator[Any]:
    """The production Application (SQLite store, ``timers`` on) over :class:`CountingAPI`,
    its token scaled to ``share``; yields the driver."""
    import random

    from shbot.bot.app import build_application
    from shbot.bot.config import Config
    from shbot.devtools.driver import Driver, jobqueue_on_loop_clock, snap_limiter_levels
    from shbot.storage import open_store

    with tempfile.TemporaryDirectory(prefix="shbot-capacity-") as tmp:
        store = open_store(sqlite_path=os.path.join(tmp, "bench.sqlite3"))
        try:
            with snap_limiter_levels(), jobqueue_on_loop_clock(), virtual_wall() as wall:
                fake = CountingAPI(share)
                config = Config(token=fake.token, timers=timers)
                app = build_application(config, store, request=fake, menus=False)
                rng = random.Random(f"deck-{seed}")
                app.bot_data["svc"].new_seed = lambda: rng.getrandbits(63)
                app.bot_data["svc"].outbox.pacer.wall = wall
                scale_token(app, share)
                async with Driver(app, fake, store) as driver:
                    driver.timing = False
                    yield driver
        finally:
            await store.close()


def prompt_waiting(table: Any) -> bool:
    """The current step's prompt is owed and not yet shown (the group's round message at a
    nomination or a vote, else the player's private prompt)."""
    game = table.game
    if game is None or game.is_over or table.ending:
        return False
    if game.phase.value in ("nominate", "vote"):
        slot = f"round:{game.round}"
        return slot in table.owed and table.stages.get(slot) != game.phase.value
    return f"prompt:{table.step}" in table.owed


@contextlib.contextmanager
def watching(
    acked: Callable[[int, str, int], None],
    committed: Callable[[int, Any], None],
    deadline: Callable[[str, bool, bool], None],
) -> Any:
    """Tell the simulation of every delivery (``acked(chat, slot, seq)``), every commit
    (``committed(chat, record)``) and every deadline that ran (``deadline(gid, fired,
    unshown)``: whether it played the default moves, and whether the step's prompt was
    still waiting to be shown; a deadline held, :func:`shbot.table.timers.hold`, did not
    fire)."""
    import shbot.table.timers as timers
    from shbot.bot.delivery.outbox import Outbox

    original_ack, original_commit, original_timeout = Outbox._ack, Outbox.committed, timers.timeout

    async def ack(
        self: Any, chat_id: int, gid: str, slot: str, seq: int, *a: Any, **k: Any
    ) -> None:
        await original_ack(self, chat_id, gid, slot, seq, *a, **k)
        acked(chat_id, slot, seq)

    def commit(self: Any, chat_id: int, record: Any, **k: Any) -> None:
        committed(chat_id, record)
        original_commit(self, chat_id, record, **k)

    def timeout(table: Any, *a: Any, **k: Any) -> Any:
        unshown, step = prompt_waiting(table), table.step
        outcome = original_timeout(table, *a, **k)  # a Refusal goes up: nothing ran
        deadline(table.gid, bool(outcome.events) or table.step != step, unshown)
        return outcome

    patches: list[Any] = [
        mock.patch.object(Outbox, "_ack", ack),
        mock.patch.object(Outbox, "committed", commit),
        mock.patch.object(timers, "timeout", timeout),
    ]
    original_hold = getattr(timers, "hold", None)  # absent before deadlines were held
    if original_hold is not None:

        def hold(table: Any, *a: Any, **k: Any) -> Any:
            outcome = original_hold(table, *a, **k)
            deadline(table.gid, False, True)
            return outcome

        patches.append(mock.patch.object(timers, "hold", hold))
    with contextlib.ExitStack() as stack:
        for patch in patches:
            stack.enter_context(patch)
        yield
