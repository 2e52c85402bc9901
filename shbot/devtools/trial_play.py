"""One group of the trial: its people, the lobby, and the game played by pressing buttons.

Players act at a human pace (a press every ``pace`` seconds in the group). Whose move it is
comes from the store, read only (as ``driver.GameRun`` does: a player reads it off the screen);
the button itself is always one the bot put on screen: the group's round message for
nominations and votes, the player's own private keyboard for everything else. A press still
waited for ``REPRESS_AFTER`` seconds later is pressed again, as a person would, and noted.
Once in the middle of the game the group also tries bad input (see :meth:`GroupPlay.bad_input`).
"""

from __future__ import annotations

import asyncio
import itertools
import os
import random
from collections.abc import Callable
from dataclasses import dataclass, field

from shbot.bot import callbacks as cb
from shbot.engine import Phase
from shbot.storage import Store, StoreError
from shbot.table.model import Table

from .fake_telegram import JSONDict, StoredMessage
from .trial_api import TrialAPI

GROUP_OPS = frozenset({cb.NOMINATE, cb.VOTE})
PRIVATE_OPS = frozenset({cb.DISCARD, cb.ENACT, cb.VETO, cb.VETO_ANSWER, cb.TARGET})
REPRESS_AFTER = 15.0
_ids = itertools.count(300_001)
Look = Callable[[], "tuple[StoredMessage, str] | None"]
_groups = itertools.count(1)


def user(name: str, lang: str, last: str | None = None) -> JSONDict:
    data: JSONDict = {"id": next(_ids), "is_bot": False, "first_name": name, "language_code": lang}
    if last is not None:
        data["last_name"] = last
    return data


@dataclass
class Press:
    """One button press (or command) a player made, for the report."""

    group: str
    kind: str  # "lobby", "move", "repress", "stale", "forged", "outsider", ...
    query_id: str | None
    user_id: int
    data: str
    at: float
    chat_id: int = 0  # where a command was written


@dataclass
class GroupPlay:
    """A group of ``people`` playing one game in ``lang``; ``silent`` never opens the
    private chat until the lobby refuses to start without them (if it does)."""

    name: str
    lang: str
    people: list[JSONDict]
    api: TrialAPI
    store: Store
    pace: tuple[float, float] = (0.3, 1.0)
    silent: int | None = None
    bot_admin: bool = True
    seed: int = 0
    chat_id: int = 0
    presses: list[Press] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    gid: str | None = None
    start_pressed_at: float | None = None
    done: bool = False
    bad_input_done: bool = False
    stale: tuple[StoredMessage, str] | None = None  # an early vote button, pressed later
    outsider: JSONDict = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)
        self.chat_id = -1_000_000_000_000 - next(_groups) * 1000 - self.rng.randrange(1000)
        chat = self.api.add_chat(self.chat_id, title=f"Trial {self.name}", bot_admin=self.bot_admin)
        self.outsider = user("Kibitzer", self.lang)
        for person in [*self.people, self.outsider]:
            self.api.add_user(person)
            chat.members.add(person["id"])
        self.api.set_admins(self.chat_id, creator=self.people[0]["id"])
        self._pressed: dict[tuple[int, int], float] = {}

    # ---- the screen ------------------------------------------------------------------------

    def now(self) -> float:
        return asyncio.get_running_loop().time()

    async def pause(self) -> None:
        await asyncio.sleep(self.rng.uniform(*self.pace))

    def note(self, text: str) -> None:
        self.notes.append(f"[{self.name} t={self.now():.1f}] {text}")

    def press(self, person: JSONDict, message: StoredMessage, data: str, kind: str) -> str:
        query_id = self.api.press(person, message, data)
        self.presses.append(Press(self.name, kind, query_id, person["id"], data, self.now()))
        return query_id

    def command(self, person: JSONDict, chat_id: int, text: str, kind: str = "command") -> None:
        self.api.command(person, chat_id, text)
        self.presses.append(Press(self.name, kind, None, person["id"], text, self.now(), chat_id))

    def lobby_button(self, op: str) -> tuple[StoredMessage, str] | None:
        for message in reversed(self.api.messages(self.chat_id)):
            for button in message.buttons():
                press = cb.parse(button.get("callback_data", ""))
                if isinstance(press, cb.GamePress) and press.op == op and press.step == 0:
                    return message, button["callback_data"]
        return None

    async def wait_answer(self, query_id: str, timeout: float = 15.0) -> str | None:
        """The text the bot answered ``query_id`` with (or the link it opens; "" for neither);
        None if unanswered."""
        deadline = self.now() + timeout
        while self.now() < deadline:
            for answer in reversed(self.api.answers):
                if answer.query_id == query_id:
                    return answer.text or (f"<opens {answer.url}>" if answer.url else "")
            await asyncio.sleep(0.1)
        return None

    async def table(self) -> Table | None:
        try:
            record = await self.store.get_game(self.chat_id)
        except (StoreError, OSError) as exc:  # the bot may be writing, or just restarted
            self.note(f"store read failed: {exc!r}")
            return None
        return Table.from_dict(record.data) if record is not None else None

    # ---- the lobby -------------------------------------------------------------------------

    async def lobby(self) -> None:
        host = self.people[0]
        for i, person in enumerate(self.people):
            if i != self.silent:
                self.command(person, person["id"], "/start")
                await self.pause()
        if self.lang != "en":
            self.command(host, self.chat_id, f"/lang {self.lang}")
            await self.pause()
        self.command(host, self.chat_id, "/newgame")
        for i, person in enumerate(self.people[1:], start=1):
            found = await self.wait_for(lambda: self.lobby_button(cb.JOIN))
            query = self.press(person, found[0], found[1], "lobby")
            if i == self.silent:
                answer = await self.wait_answer(query)
                await asyncio.sleep(3)  # let the lobby message catch up
                lobby = self.api.last(self.chat_id).plain_text
                self.note(f"silent player's Join answered {answer!r}; lobby now:\n{lobby}")
            await self.pause()
        again = await self.wait_for(lambda: self.lobby_button(cb.JOIN))
        self.press(self.people[1], again[0], again[1], "lobby-extra")  # joined already
        await self.start()

    async def wait_for(self, look: Look, timeout: float = 120.0) -> tuple[StoredMessage, str]:
        deadline = self.now() + timeout
        while self.now() < deadline:
            found = look()
            if found is not None:
                return found
            await asyncio.sleep(0.2)
        raise TimeoutError(f"{self.name}: nothing to press after {timeout} s")

    async def start(self) -> None:
        host = self.people[0]
        for attempt in range(3):
            message, data = await self.wait_for(lambda: self.lobby_button(cb.START))
            query = self.press(host, message, data, "lobby")
            self.start_pressed_at = self.now()
            await asyncio.sleep(0.15)
            self.press(self.people[2], message, data, "lobby-extra")  # a second Start
            join = self.lobby_button(cb.JOIN)
            if join is not None:
                await asyncio.sleep(0.1)
                self.press(self.people[-1], join[0], join[1], "lobby-extra")  # a late Join
            answer = await self.wait_answer(query)
            for _ in range(100):
                table = await self.table()
                if table is not None and table.game is not None:
                    self.gid = table.gid
                    self.note(f"Start (attempt {attempt + 1}) answered {answer!r}")
                    return
                await asyncio.sleep(0.2)
            self.note(f"Start refused (attempt {attempt + 1}): {answer!r}")
            if self.silent is not None:  # what a person would do after reading the refusal
                person = self.people[self.silent]
                self.note("the silent player now opens the private chat")
                self.command(person, person["id"], "/start")
                await asyncio.sleep(2)
                join = self.lobby_button(cb.JOIN)
                if join is not None:
                    answer = await self.wait_answer(self.press(person, *join, "lobby"))
                    self.note(f"silent player's second Join answered {answer!r}")
                await asyncio.sleep(3)
        raise RuntimeError(f"{self.name}: the game never started")

    # ---- the game --------------------------------------------------------------------------

    def step_button(self, chat_id: int, prefix: str, ops: frozenset[str]) -> StoredMessage | None:
        for message in reversed(self.api.messages(chat_id)):
            for button in message.buttons():
                press = cb.parse(button.get("callback_data", ""))
                data = button.get("callback_data", "")
                if data.startswith(prefix) and isinstance(press, cb.GamePress) and press.op in ops:
                    return message
        return None

    async def play(self, deadline: float) -> None:
        while not self.done and self.now() < deadline:
            await self.pause()
            try:
                record = await self.store.get_game(self.chat_id)
            except (StoreError, OSError) as exc:  # the bot may be writing, or restarting
                self.note(f"store read failed: {exc!r}")
                continue
            table = Table.from_dict(record.data) if record is not None else None
            if table is None or table.gid != self.gid or table.game is None:
                self.done = table is None or table.gid != self.gid
                continue
            if table.ending or table.game.phase is Phase.GAME_OVER:
                self.done = True
                continue
            if table.step >= 4 and not self.bad_input_done:
                self.bad_input_done = True
                await self.bad_input(table)
                continue
            self.move(table)

    def move(self, table: Table) -> None:
        game = table.game
        assert game is not None
        prefix = f"{table.gid}:{table.step}:"
        now = self.now()
        waiting = game.to_act()
        fresh = [s for s in waiting if (table.step, s) not in self._pressed]
        again = [
            s for s in waiting if now - self._pressed.get((table.step, s), now) > REPRESS_AFTER
        ]
        seats = fresh or again
        if not seats:
            return
        seat = self.rng.choice(seats) if game.phase is Phase.VOTE else seats[0]
        person = next(p for p in self.people if p["id"] == table.at(seat).id)
        group_step = game.phase in (Phase.NOMINATE, Phase.VOTE)
        where = self.chat_id if group_step else person["id"]
        message = self.step_button(where, prefix, GROUP_OPS if group_step else PRIVATE_OPS)
        if message is None:
            return  # not on screen yet
        options = [
            b["callback_data"]
            for b in message.buttons()
            if b.get("callback_data", "").startswith(prefix)
        ]
        ops = {cb.VOTE} if game.phase is Phase.VOTE else PRIVATE_OPS | {cb.NOMINATE}
        options = [
            d for d in options if (p := cb.parse(d)) and isinstance(p, cb.GamePress) and p.op in ops
        ]
        if not options:
            return
        if game.phase is Phase.VOTE:
            want = ":1" if self.rng.random() < 0.7 else ":0"
            data = next((d for d in options if d.endswith(want)), options[0])
            if self.stale is None:
                self.stale = (message, data)
        else:
            data = self.rng.choice(options)
        kind = "move" if seat in fresh else "repress"
        if kind == "repress":
            self.note(f"seat {seat} still asked at step {table.step}: pressing again ({data})")
        self._pressed[(table.step, seat)] = now
        self.press(person, message, data, kind)

    async def bad_input(self, table: Table) -> None:
        """A stale button, forged data, an outsider's press, an unknown command, /lang xx."""
        host, round_message = self.people[0], self.api.last(self.chat_id)
        if self.stale is not None:
            self.press(self.people[1], self.stale[0], self.stale[1], "stale")
            await self.pause()
        junk = os.urandom(self.rng.randrange(8, 48)).decode("utf-8", "replace")
        junk = junk.encode()[:64].decode("utf-8", "ignore") or "x"
        for data in (junk, "@zz:1", f"{table.gid}:{table.step}:zz:1", "no-such-button"):
            self.press(self.people[1], round_message, data, "forged")
            await self.pause()
        message = self.step_button(self.chat_id, f"{table.gid}:{table.step}:", GROUP_OPS)
        if message is None:  # no vote or nomination now: the board's "My role" button
            message = self.step_button(self.chat_id, f"{table.gid}:", frozenset({cb.MY_ROLE}))
        if message is not None:
            data = next(b["callback_data"] for b in message.buttons() if "callback_data" in b)
            self.press(self.outsider, message, data, "outsider")
            await self.pause()
        self.command(self.people[1], self.chat_id, "/frobnicate", "unknown-command")
        await self.pause()
        name = self.api.bot_username
        self.command(self.people[1], self.chat_id, f"/frobnicate@{name}", "unknown-command")
        await self.pause()
        self.command(host, self.chat_id, "/lang xx", "lang-xx")
