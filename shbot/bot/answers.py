"""One player's presses are answered in the order they were applied.

Commits are serialized by the group's lock, but the answers go out after it (no lock is held
across a Bot API call): a slow answer to Ja! could reach Telegram after the answer to the
Nein! that replaced it, and the player would read the vote that was not stored. Each press
takes a ticket when its change is judged (under the lock, so tickets follow the commits) and
answers once every earlier ticket of the same player has answered.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
from collections.abc import AsyncIterator

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
