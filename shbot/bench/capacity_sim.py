"""Groups playing at people's pace against one bot token, on a virtual clock.

Each group opens its game at a random moment of the ramp, and a new one a minute or two after
each game ends. Its players act only on what they see: a press is scheduled when the buttons
for it reach the screen (the outbox's delivery, watched), after a person's time to think (a
round takes 1-3 minutes: discussion before the nomination and the vote, quick private steps);
no player polls. A fifth of the groups seat two computer players. Deadlines are the bot's
(the "normal" timers, two minutes a step): a person here always acts within them once the
buttons are shown, so any deadline that plays a default move fired because a prompt was late.

A tap is timed from the press to the first group message showing its change (``visible``)
and to the last (``complete``: progress such as a vote count may wait); a step's prompt from
the commit that began the step to its delivery (``prompt_waits``). Taps and prompts count from
the end of the ramp (``start``) to the end of the run.
"""

from __future__ import annotations

import asyncio
import random
from dataclasses import dataclass, field
from typing import Any

from shbot.bench.paced import GROUP, Tap, Taps

#: Seconds a person takes before each kind of press: (fewest, most), uniform.
THINK: dict[str, tuple[float, float]] = {
    "join": (5.0, 60.0),
    "start": (5.0, 20.0),
    "nominate": (15.0, 55.0),  # the table talks before the President picks
    "vote": (8.0, 45.0),  # and before each ballot
    "president_discard": (3.0, 12.0),
    "chancellor_enact": (3.0, 12.0),
    "veto_response": (5.0, 15.0),
    "investigate": (15.0, 45.0),
    "special_election": (15.0, 45.0),
    "execution": (15.0, 45.0),
}
REOPEN = (60.0, 120.0)  # seconds before a group opens its next game
COMPUTERS = 0.2  # share of the groups that seat two computer players
PLAYERS = 7


@dataclass
class Figures:
    """What a run measured (times in virtual seconds)."""

    taps: Taps = field(default_factory=Taps)
    steps: list[Tap] = field(default_factory=list)  # the taps that changed the step
    prompt_waits: list[float] = field(default_factory=list)
    worst_wait: dict[int, float] = field(default_factory=dict)  # group -> longest prompt wait
    fired: int = 0  # deadlines that played a default move
    fired_unshown: int = 0  # ... while the step's prompt was still waiting to be shown
    postponed: int = 0  # deadlines that found the prompt unshown and started the clock again
    rounds: int = 0  # rounds begun after ``start``
    games_over: int = 0


class Group:
    """One group and its seven people (or five and two computer players)."""

    def __init__(self, sim: Simulation, index: int) -> None:
        from shbot.devtools.driver import make_users

        self.sim, self.driver = sim, sim.driver
        self.rng = random.Random(f"{sim.seed}:{index}")
        self.computers = 2 if self.rng.random() < COMPUTERS else 0
        self.users = make_users(PLAYERS - self.computers)
        self.by_id = {u.id: u for u in self.users}
        self.id = self.driver.group(self.users)
        self.planned: set[Any] = set()  # presses scheduled: (gid, step, seat) or lobby keys
        self.gid: str | None = None
        self.opened = 0  # games opened

    def table(self) -> Any:
        outbox = self.driver.svc.outbox
        record = outbox.tables.get(self.id)
        return None if record is None else outbox.tables.table(record)

    def later(self, seconds: float, action: Any) -> None:
        self.sim.later(seconds, action)

    async def open(self) -> None:
        if not self.opened:  # each person opened the bot's private chat long ago
            for user in self.users:
                await self.driver.store.update_user(user.id, {"dm": True, "tg_lang": "en"})
        self.opened += 1
        self.gid = None
        self.planned.clear()
        host = self.users[0]
        await self.feed(self.driver.command(host, self.id, "/newgame"), measured=self.opened > 1)
        if self.computers:
            await self.feed(self.driver.command(host, self.id, f"/addbot {self.computers}"))
        self.poke()

    async def feed(self, payload: dict[str, Any], *, measured: bool = True) -> None:
        """One update; a measured tap notes the group slots its change owed."""
        loop = asyncio.get_running_loop()
        outbox = self.driver.svc.outbox
        before = outbox.tables.get(self.id)
        seq0 = int(before.data.get("seq", 0)) if before is not None else 0
        now = loop.time()
        await self.driver.feed(payload)
        after = outbox.tables.get(self.id)
        if not measured or now < self.sim.start or after is None:
            return
        if before is not None and after.data.get("gid") != before.data.get("gid"):
            return
        needs = {
            slot: seq0 + 1
            for slot, entry in after.data.get("owed", {}).items()
            if entry[1] == GROUP and int(entry[0]) > seq0
        }
        tap = Tap(self.id, now, needs)
        self.sim.figures.taps.add(tap)
        if before is not None and after.data.get("step") != before.data.get("step"):
            self.sim.figures.steps.append(tap)

    def poke(self) -> None:
        """Something reached a screen: schedule the presses it makes possible."""
        table = self.table()
        if table is None:
            return
        if table.game is None:
            self._lobby(table)
            return
        game = table.game
        if game.is_over or table.ending:
            if ("over", table.gid) not in self.planned:
                self.planned.add(("over", table.gid))
                self.sim.figures.games_over += 1
                self.later(self.rng.uniform(*REOPEN), self.open)
            return
        self.gid = table.gid
        for seat in game.to_act():
            player = table.at(seat)
            key = (table.gid, table.step, seat)
            if key in self.planned or player.id not in self.by_id or player.id in table.standins:
                continue  # pressed already, or a computer plays this seat
            if self._buttons(table, seat) is None:
                continue  # not on screen yet
            self.planned.add(key)
            delay = self.rng.uniform(*THINK[game.phase.value])
            self.later(delay, lambda s=seat, st=table.step: self._press(s, st))

    def _lobby(self, table: Any) -> None:
        from shbot.bot import callbacks as cb

        seated = {p.id for p in table.players}
        if self._lobby_button(cb.JOIN) is None:
            return
        for user in self.users[1:]:
            key = ("join", table.gid, user.id)
            if user.id not in seated and key not in self.planned:
                self.planned.add(key)
                self.later(self.rng.uniform(*THINK["join"]), lambda u=user: self._join(u))
        if len(table.players) >= PLAYERS and ("start", table.gid) not in self.planned:
            self.planned.add(("start", table.gid))
            self.later(self.rng.uniform(*THINK["start"]), self._start)

    def _lobby_button(self, op: str) -> Any:
        from shbot.bot import callbacks as cb

        for message in reversed(self.driver.fake.messages(self.id)):
            for button in message.buttons():
                press = cb.parse(button.get("callback_data", ""))
                if isinstance(press, cb.GamePress) and press.op == op and press.step == 0:
                    return message, button["callback_data"]
        return None

    async def _join(self, user: Any) -> None:
        from shbot.bot import callbacks as cb

        found = self._lobby_button(cb.JOIN)
        if found is not None:
            await self.feed(self.driver.press(user, *found))

    async def _start(self) -> None:
        from shbot.bot import callbacks as cb

        found = self._lobby_button(cb.START)
        if found is not None:
            await self.feed(self.driver.press(self.users[0], *found))

    def _buttons(self, table: Any, seat: int) -> Any:
        from shbot.devtools.driver import GROUP_OPS, PRIVATE_OPS, _step_message

        game = table.game
        group_step = game.phase.value in ("nominate", "vote")
        chat = self.id if group_step else table.at(seat).id
        prefix = f"{table.gid}:{table.step}:"
        return _step_message(
            self.driver.fake, chat, prefix, GROUP_OPS if group_step else PRIVATE_OPS
        )

    async def _press(self, seat: int, step: int) -> None:
        from shbot.bot.callbacks import VOTE
        from shbot.devtools.driver import _options

        table = self.table()
        if table is None or table.game is None or table.step != step:
            return  # the step is over (a deadline played it)
        message = self._buttons(table, seat)
        if message is None:
            return
        options = _options(message, f"{table.gid}:{step}:")
        if table.game.phase.value == "vote":
            want = "1" if self.rng.random() < 0.7 else "0"
            data = next(x for op, x in options if op == VOTE and x.endswith(":" + want))
        else:
            data = self.rng.choice([x for _op, x in options])
        await self.feed(self.driver.press(self.by_id[table.at(seat).id], message, data))


class Simulation:
    """``groups`` groups on one driver; measured from ``start`` (virtual seconds)."""

    def __init__(self, driver: Any, groups: int, seed: int, start: float) -> None:
        self.driver, self.seed, self.start = driver, seed, start
        self.figures = Figures()
        self.tasks: set[asyncio.Task[None]] = set()
        self.groups: dict[int, Group] = {}
        self.steps: dict[int, tuple[int, float]] = {}  # group -> (step, when it began)
        self.closed = False
        self.chats: dict[str, int] = {}  # game id -> its group
        for k in range(groups):
            group = Group(self, k)
            self.groups[group.id] = group

    def later(self, seconds: float, action: Any) -> None:
        loop = asyncio.get_running_loop()
        loop.call_later(seconds, self._run, action)

    def close(self) -> None:
        """No more presses: cancel what runs, drop what is scheduled."""
        self.closed = True
        for task in list(self.tasks):
            task.cancel()

    def _run(self, action: Any) -> None:
        if self.closed:
            return
        task = asyncio.get_running_loop().create_task(action())
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    def acked(self, chat: int, slot: str, seq: int) -> None:
        now = asyncio.get_running_loop().time()
        self.figures.taps.acked(chat, slot, seq, now)
        group = self.groups.get(chat)
        if group is None:
            return
        began = self.steps.get(chat)
        table = group.table()
        if began is None or table is None or began[0] != table.step:
            group.poke()
            return
        if began[1] >= 0 and _is_prompt(table, slot):
            self.steps[chat] = (began[0], -1.0)  # shown: counted once
            if began[1] >= self.start:
                self._waited(chat, now - began[1])
        group.poke()

    def _waited(self, chat: int, wait: float) -> None:
        self.figures.prompt_waits.append(wait)
        self.figures.worst_wait[chat] = max(self.figures.worst_wait.get(chat, 0.0), wait)

    def committed(self, chat: int, record: Any) -> None:
        if record is None or chat not in self.groups:
            return
        step = int(record.data.get("step", 0))
        began = self.steps.get(chat)
        if step and (began is None or began[0] != step):
            now = asyncio.get_running_loop().time()
            self.steps[chat] = (step, now)
            self.chats[str(record.data.get("gid"))] = chat
            if now >= self.start and record.data.get("game") is not None:
                self.figures.rounds += _round_began(record, began)

    def unshown(self, end: float) -> None:
        """The prompts still waiting at ``end``: waited until then."""
        from shbot.bench.capacity_bot import prompt_waiting

        for chat, (step, began) in self.steps.items():
            table = self.groups[chat].table()
            if table is None or table.step != step or not prompt_waiting(table):
                continue
            if began >= self.start:
                self._waited(chat, end - began)

    def deadline(self, gid: str, fired: bool, unshown: bool) -> None:
        now = asyncio.get_running_loop().time()
        if now < self.start:
            return
        chat = self.chats.get(gid)
        began = self.steps.get(chat) if chat is not None else None
        if fired and unshown and chat is not None and began is not None and began[1] >= 0:
            self.steps[chat] = (began[0], -1.0)  # its prompt never shown: waited until now
            if began[1] >= self.start:
                self._waited(chat, now - began[1])
        if fired:
            self.figures.fired += 1
            self.figures.fired_unshown += unshown
        elif unshown:
            self.figures.postponed += 1


def _is_prompt(table: Any, slot: str) -> bool:
    game = table.game
    if game is None or game.is_over:
        return False
    if game.phase.value in ("nominate", "vote"):
        return slot == f"round:{game.round}"
    return slot == f"prompt:{table.step}"


def _round_began(record: Any, before: tuple[int, float] | None) -> int:
    """1 if the step that just began is a nomination (a round begins), else 0."""
    game = record.data.get("game") or {}
    return 1 if game.get("phase") == "nominate" else 0
