"""Games played at a human pace against the real pacing, on a virtual clock (looptime).

Players act only on their turn: a player whose buttons are on screen (the group's vote or
nomination, their private prompt) thinks for a random time of the pace, then presses. Each
press (a *tap*) is timed until the group shows its effect: every group message the press's
change owed has been delivered from a state at least as new (the outbox's ``_ack``): the
first such message is when the table sees it (``p50``/``p95``/``max``), the last when every
message shows it (``p95_all``: progress such as the board or a closed round may wait). The
fake Bot API answers 429 as Telegram would (``strict_limits``): a run shows any refused call.

Self-contained on purpose (only the fake, the driver's helpers and the outbox's ``_ack``):
the same module measures an older checkout for the "before" figures.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import os
import random
import statistics
import tempfile
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from typing import Any
from unittest import mock

from shbot.table.lobby import MAX_PLAYERS

#: Seconds of thought before a press: (fewest, most), uniform.
PACES: dict[str, tuple[float, float]] = {
    "fast": (0.2, 1.2),
    "normal": (1.0, 4.0),
    "slow": (3.0, 15.0),
}
TICK = 0.1  # how often a simulated player looks at the screen (virtual seconds)
GROUP = 0  # an owed entry's chat meaning "the group" (shbot.table.model.GROUP)
GROUP_METHODS = ("sendMessage", "editMessageText", "sendPhoto", "editMessageMedia")


@dataclass
class Tap:
    """One press or command and the group slots its change owed (slot -> oldest seq)."""

    chat: int
    time: float
    needs: dict[str, int]
    visible: float | None = None  # the first group message showing its change
    complete: float | None = None  # every group message its change owed shown
    owed: bool = False  # its change owed the group something (measured)

    @property
    def first(self) -> int:
        return min(self.needs.values(), default=0)


@dataclass
class Taps:
    """Every measured tap of a run, and the open ones by group (settled by ``acked``)."""

    all: list[Tap] = field(default_factory=list)
    open: dict[int, list[Tap]] = field(default_factory=dict)
    seen: dict[tuple[int, str], int] = field(default_factory=dict)  # newest seq delivered

    def add(self, tap: Tap) -> None:
        self.all.append(tap)
        tap.owed = bool(tap.needs)
        for slot, seq in list(tap.needs.items()):  # delivered while the press was handled
            if self.seen.get((tap.chat, slot), -1) >= seq:
                del tap.needs[slot]
                tap.visible = tap.time
        if not tap.needs and tap.visible is not None:
            tap.complete = tap.time
            return
        if tap.needs:
            self.open.setdefault(tap.chat, []).append(tap)
        else:  # nothing for the group to show: not measured
            tap.visible = tap.complete = tap.time

    def acked(self, chat: int, slot: str, seq: int, now: float) -> None:
        self.seen[(chat, slot)] = max(seq, self.seen.get((chat, slot), -1))
        still = []
        for tap in self.open.get(chat, []):
            if tap.needs.get(slot, seq + 1) <= seq:
                del tap.needs[slot]
                if tap.visible is None:
                    tap.visible = now
            elif tap.visible is None and slot.startswith("round:") and tap.first <= seq:
                tap.visible = now  # a newer round message tells what came of it (a discard
                # the enactment overtook: the closed round's own edit is progress)
            if tap.needs:
                still.append(tap)
            else:
                tap.complete = now
        self.open[chat] = still


@contextlib.contextmanager
def watching(taps: Taps) -> Iterator[None]:
    """Tell ``taps`` of every slot the outbox delivered (at the loop's time)."""
    from shbot.bot.delivery.outbox import Outbox

    original = Outbox._ack

    async def ack(self: Any, chat_id: int, gid: str, slot: str, seq: int, *a: Any, **k: Any):
        taps.acked(chat_id, slot, seq, asyncio.get_running_loop().time())
        return await original(self, chat_id, gid, slot, seq, *a, **k)

    with mock.patch.object(Outbox, "_ack", ack):
        yield


@contextlib.asynccontextmanager
async def paced_bot(deck_seed: int | None = None) -> AsyncIterator[Any]:
    """The production Application over a fake that answers 429 as Telegram does, with the
    real pacing (the outbox's pacer and whatever rate limiter the app installs); with
    ``deck_seed``, the games' decks and seats come from it (a run repeats game for game)."""
    from shbot.bot.app import build_application
    from shbot.bot.config import Config
    from shbot.devtools.driver import Driver, jobqueue_on_loop_clock, snap_limiter_levels
    from shbot.devtools.fake_telegram import FakeBotAPI
    from shbot.storage import open_store

    with tempfile.TemporaryDirectory(prefix="shbot-paced-") as tmp:
        store = open_store(sqlite_path=os.path.join(tmp, "bench.sqlite3"))
        try:
            with snap_limiter_levels(), jobqueue_on_loop_clock():
                fake = FakeBotAPI(strict_limits=True)
                config = Config(token=fake.token, timers="off")
                app = build_application(config, store, request=fake, menus=False)
                if deck_seed is not None:  # inline: this module also measures old checkouts
                    rng = random.Random(f"deck-{deck_seed}")
                    app.bot_data["svc"].new_seed = lambda: rng.getrandbits(63)
                async with Driver(app, fake, store) as driver:
                    driver.timing = False
                    yield driver
        finally:
            await store.close()


class PacedGame:
    """One group's game from /newgame to its end, every player pressing at ``pace``."""

    def __init__(
        self, driver: Any, players: int, pace: str, seed: int, taps: Taps, delay: float = 0.0
    ) -> None:
        from shbot.devtools.driver import make_users

        self.driver, self.taps = driver, taps
        self.lo, self.hi = PACES[pace]
        self.rng = random.Random(seed)
        self.users = make_users(players)
        self.by_id = {u.id: u for u in self.users}
        self.group = driver.group(self.users)
        self.due: dict[tuple[int, int], float] = {}  # (step, seat) -> when it is pressed
        self.rounds: list[float] = []  # when each round began (seen by the players)
        self.start = self.end = 0.0
        self.delay = delay  # seconds before the group opens its game

    def _record(self) -> Any:
        return self.driver.svc.outbox.tables.get(self.group)

    def _table(self) -> Any:
        record = self._record()
        return None if record is None else self.driver.svc.outbox.tables.table(record)

    async def _feed(self, payload: dict[str, Any], *, measured: bool = True) -> None:
        before = self._record()
        seq0 = int(before.data.get("seq", 0)) if before is not None else 0
        now = asyncio.get_running_loop().time()
        await self.driver.feed(payload)
        after = self._record()
        needs: dict[str, int] = {}
        if after is not None and (
            before is None or after.data.get("gid") == before.data.get("gid")
        ):
            for slot, entry in after.data.get("owed", {}).items():
                if entry[1] == GROUP and int(entry[0]) > seq0:
                    needs[slot] = seq0 + 1
        if measured:
            self.taps.add(Tap(self.group, now, needs))

    def _think(self) -> float:
        return self.rng.uniform(self.lo, self.hi)

    async def _lobby_button(self, op: str) -> Any:
        from shbot.bot import callbacks as cb

        while True:
            for message in reversed(self.driver.fake.messages(self.group)):
                for button in message.buttons():
                    press = cb.parse(button.get("callback_data", ""))
                    if isinstance(press, cb.GamePress) and press.op == op and press.step == 0:
                        return message, button["callback_data"]
            await asyncio.sleep(TICK)

    async def play(self) -> None:
        from shbot.bot import callbacks as cb

        loop = asyncio.get_running_loop()
        d, users = self.driver, self.users
        await asyncio.sleep(self.delay)
        for u in users:
            await self._feed(d.command(u, u.id, "/start"), measured=False)
        self.start = loop.time()
        await self._feed(d.command(users[0], self.group, "/newgame"))
        message, data = await self._lobby_button(cb.JOIN)
        joins = sorted((loop.time() + self._think(), i) for i in range(1, len(users)))
        for at, i in joins:
            await asyncio.sleep(max(0.0, at - loop.time()))
            message, data = await self._lobby_button(cb.JOIN)
            await self._feed(d.press(users[i], message, data))
        if len(users) < MAX_PLAYERS:  # a full table starts by itself at its last join
            await asyncio.sleep(self._think())
            message, data = await self._lobby_button(cb.START)
            await self._feed(d.press(users[0], message, data))
        await self._game()
        self.end = loop.time()

    async def _game(self) -> None:
        from shbot.bot.callbacks import VOTE
        from shbot.devtools.driver import GROUP_OPS, PRIVATE_OPS, _options, _step_message
        from shbot.engine import Phase

        loop = asyncio.get_running_loop()
        while True:
            await asyncio.sleep(TICK)
            table = self._table()
            if table is None or table.game is None or table.ending or table.game.is_over:
                if table is None or table.ending or (table.game and table.game.is_over):
                    return
                continue
            game, now = table.game, loop.time()
            if not self.rounds or game.round > len(self.rounds):
                self.rounds.append(now)
            prefix = f"{table.gid}:{table.step}:"
            for seat in game.to_act():
                key = (table.step, seat)
                user = self.by_id[table.at(seat).id]
                group_step = game.phase in (Phase.NOMINATE, Phase.VOTE)
                chat = self.group if group_step else user.id
                ops = GROUP_OPS if group_step else PRIVATE_OPS
                message = _step_message(self.driver.fake, chat, prefix, ops)
                if message is None:
                    continue  # not on screen yet: the player waits
                if key not in self.due:
                    self.due[key] = now + self._think()
                    continue
                if self.due[key] > now:
                    continue
                self.due[key] = float("inf")  # pressed once
                options = _options(message, prefix)
                if game.phase is Phase.VOTE:
                    want = "1" if self.rng.random() < 0.7 else "0"
                    data = next(x for op, x in options if op == VOTE and x.endswith(":" + want))
                else:
                    data = self.rng.choice([x for _op, x in options])
                await self._feed(self.driver.press(user, message, data))


def quantile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def group_call_times(fake: Any, group: int) -> list[float]:
    return sorted(c.time for c in fake.calls if c.chat_id == group and c.method in GROUP_METHODS)


def longest_silence(taps: list[Tap], calls: list[float], end: float) -> float:
    """The longest time a group made no call while a tap's effect waited to be shown."""
    import bisect

    worst = 0.0
    for tap in taps:
        if not tap.owed:
            continue
        until = tap.complete if tap.complete is not None else end
        points = [tap.time, *calls[bisect.bisect_right(calls, tap.time) :], until]
        points = [p for p in points if p <= until]
        worst = max(worst, *(b - a for a, b in itertools.pairwise(points)))
    return worst


def per_round(calls: list[float], rounds: list[float], end: float) -> float:
    """Median group calls per round (calls before Round 1 count in Round 1)."""
    if not rounds:
        return 0.0
    edges = [*rounds[1:], end + 1]
    counts, i = [], 0
    for edge in edges:
        n = 0
        while i < len(calls) and calls[i] < edge:
            n, i = n + 1, i + 1
        counts.append(n)
    return float(statistics.median(counts))


async def run_games(
    games: int, players: int, pace: str, seed: int, spread: float = 0.0
) -> dict[str, Any]:
    """``games`` concurrent games of ``players`` at ``pace``, opened at random times within
    ``spread`` seconds; the figures of the run."""
    taps = Taps()
    loop = asyncio.get_running_loop()
    with watching(taps):
        async with paced_bot(seed) as driver:
            rng = random.Random(seed)
            runs = [
                PacedGame(driver, players, pace, seed * 1000 + k, taps, rng.uniform(0, spread))
                for k in range(games)
            ]
            await asyncio.gather(*(r.play() for r in runs))
            await driver.settle(24 * 3600)
            end = loop.time()
            if driver.errors:
                raise RuntimeError(f"the bot raised: {driver.errors[:3]!r}")
            fake = driver.fake
    measured = [t for t in taps.all if t.owed]
    lags = [(end if t.visible is None else t.visible) - t.time for t in measured]
    full = [(end if t.complete is None else t.complete) - t.time for t in measured]
    group_calls, private_calls, silences, rounds = [], [], [], []
    for r in runs:
        calls = group_call_times(fake, r.group)
        group_calls.append(len(calls))
        private_calls.append(
            sum(1 for c in fake.calls if c.chat_id in {u.id for u in r.users} and c.ok)
        )
        mine = [t for t in measured if t.chat == r.group]
        silences.append(longest_silence(mine, calls, end))
        rounds.append(per_round(calls, r.rounds, r.end))
    per_game_rounds = [len(r.rounds) for r in runs]
    return {
        "pace": pace,
        "players": players,
        "games": games,
        "taps": len(lags),
        "p50": round(quantile(lags, 0.5), 2),
        "p95": round(quantile(lags, 0.95), 2),
        "max": round(max(lags, default=0.0), 2),
        "over_10s": sum(1 for x in lags if x > 10),
        "p95_all": round(quantile(full, 0.95), 2),
        "incomplete": sum(1 for t in measured if t.complete is None),
        "silence": round(max(silences, default=0.0), 1),
        "group_calls": round(statistics.mean(group_calls), 1),
        "private_calls": round(statistics.mean(private_calls), 1),
        "rounds": round(statistics.mean(per_game_rounds), 1),
        "group_per_round": round(statistics.median(rounds), 1),
        "private_per_round": round(
            statistics.mean(
                p / max(1, n) for p, n in zip(private_calls, per_game_rounds, strict=True)
            ),
            1,
        ),
        "max_group_60s": max(fake.max_calls_in_window(r.group, 60) for r in runs),
        "max_overall_1s": fake.max_calls_overall(1.0),
        "answers": fake.callback_answers(),
        "429s": sum(1 for c in fake.calls if c.status == 429),
        "minutes": round(max(r.end - r.start for r in runs) / 60, 1),
    }


def run(games: int, players: int, pace: str, seed: int, spread: float = 0.0) -> dict[str, Any]:
    """One run on a fresh virtual-time loop (looptime)."""
    import looptime

    with asyncio.Runner(loop_factory=lambda: looptime.new_event_loop(start=0.0)) as runner:
        return runner.run(run_games(games, players, pace, seed, spread))
