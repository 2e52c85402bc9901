"""Every press is answered, and one player's presses in the order they were applied.

Commits are serialized by the group's lock, but the answers go out after it (no lock is held
across a Bot API call): a slow answer to Ja! could reach Telegram after the answer to the
Nein! that replaced it, and the player would read the vote that was not stored. Each press
takes a ticket when its change is judged (under the lock, so tickets follow the commits) and
answers once every earlier ticket of the same player has answered.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import itertools
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import NamedTuple

WAIT = 5.0  # seconds an answer waits at most for an earlier one (Telegram's limit is 15)


class AnswerOrder:
    def __init__(self) -> None:
        self._tickets = itertools.count(1)
        self._open: dict[int, dict[int, asyncio.Future[None]]] = {}

    def ticket(self, user_id: int) -> int:
        """A new ticket for ``user_id``'s press (take it where the change is judged)."""
        n = next(self._tickets)
        self._open.setdefault(user_id, {})[n] = asyncio.get_running_loop().create_future()
        return n

    def release(self, user_id: int, n: int) -> None:
        """Ticket ``n`` is done (answered, or its change judged again under a new ticket)."""
        mine = self._open.get(user_id, {})
        done = mine.pop(n, None)
        if done is not None and not done.done():
            done.set_result(None)
        if not mine:
            self._open.pop(user_id, None)

    @contextlib.asynccontextmanager
    async def turn(self, user_id: int, tickets: list[int]) -> AsyncIterator[None]:
        """Wait for the earlier tickets of ``user_id`` (than the last of ``tickets``), then
        answer; every ticket in ``tickets`` is released afterwards."""
        try:
            if tickets:
                last = tickets[-1]
                earlier = [f for m, f in self._open.get(user_id, {}).items() if m < last]
                for n in tickets[:-1]:
                    self.release(user_id, n)
                if earlier:
                    await asyncio.wait(earlier, timeout=WAIT)
            yield
        finally:
            for n in tickets:
                self.release(user_id, n)


# ---------------------------------------------------------------------------- every press


#: Telegram takes a press's answer up to 15 s after the press; a second for the network.
ANSWER_WINDOW = 14.0
MAX_SAID = 100_000  # bounded memory: forgetting what a player was told costs a plainer answer

_PRESS: contextvars.ContextVar[Press | None] = contextvars.ContextVar("shbot_press", default=None)


@dataclass(eq=False)
class Press:
    """One callback query from its arrival (``at``, the loop's clock) to its answer."""

    registry: Presses
    user_id: int
    where: tuple[int, int]  # the chat and message its button is under
    query_id: str
    n: int  # arrival order
    at: float
    done: asyncio.Future[None]
    excess: bool = False  # beyond the flood guard's budget: answered without any work
    again: bool = False  # a query this process saw already: that delivery answers it

    def answered(self, text: str | None, alert: bool) -> None:
        """Telegram took the answer (the rate limiter tells, whoever answered)."""
        self.registry.said(self, text, alert)


def current() -> Press | None:
    """The press this task handles (None outside a callback query's update)."""
    return _PRESS.get()


class Presses:
    """Every press is answered. One the flood guard lets through is answered by its handler;
    one beyond the budget (the same button again and again) changes nothing and costs no
    work, but is answered too, with what the same player was last told about a press under
    the same message, once their presses before it are answered: the last answer of a
    burst of Ja!/Nein! names the stored vote. Answers do not count against Telegram's
    message limits (only the edits they cause do, and those the outbox paces)."""

    def __init__(self) -> None:
        self._n = itertools.count(1)
        self._open: dict[int, list[Press]] = {}
        self._said: dict[tuple[int, int, int], tuple[str | None, bool]] = {}
        self._ids: dict[str, None] = {}  # query ids seen, oldest first (a query comes twice)

    def arrived(self, user_id: int, where: tuple[int, int], query_id: str) -> Press:
        """A press came in: this task's press from now on (see :func:`current`)."""
        loop = asyncio.get_running_loop()
        now = loop.time()
        press = Press(self, user_id, where, query_id, next(self._n), now, loop.create_future())
        press.again = query_id in self._ids
        if len(self._ids) > MAX_SAID:
            self._ids.clear()
        self._ids[query_id] = None
        mine = self._open.setdefault(user_id, [])
        mine[:] = [p for p in mine if p.at > now - ANSWER_WINDOW]  # too old to wait for
        mine.append(press)
        _PRESS.set(press)
        return press

    def said(self, press: Press, text: str | None, alert: bool) -> None:
        if len(self._said) > MAX_SAID:
            self._said.clear()
        self._said[(press.user_id, *press.where)] = (text, alert)
        self.finished(press)

    def finished(self, press: Press | None) -> None:
        """``press`` is answered, or its handler is done without answering it."""
        if press is None:
            return
        if not press.done.done():
            press.done.set_result(None)
        mine = self._open.get(press.user_id)
        if mine is not None and press in mine:
            mine.remove(press)
            if not mine:
                del self._open[press.user_id]

    async def told(self, press: Press) -> Said | None:
        """Once the player's earlier presses that were let through are answered (``WAIT``
        at most), what the newest answer under the same message said (None: nothing)."""
        earlier = [
            p.done
            for p in self._open.get(press.user_id, [])
            if p.n < press.n and not p.excess and not p.done.done()
        ]
        if earlier:
            await asyncio.wait(earlier, timeout=WAIT)
        said = self._said.get((press.user_id, *press.where))
        return None if said is None else Said(*said)


class Said(NamedTuple):
    """An answer a press was given: its text and whether it was a pop-up."""

    text: str | None
    alert: bool


def again(said: Said) -> str | None:
    """The text of an answer given before (to a press of the same player under the same
    message), to answer another press with: its length was checked where it was made."""
    return said.text
