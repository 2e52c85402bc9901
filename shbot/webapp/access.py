"""Which game a signed-in user asks for, and whether they may see it.

A user sees a game's public view if they play in it or are a member of its group; a
practice game (a private chat) only its one player. Membership is asked of Telegram
(``getChatMember``) only for a chat that has a game, at most :data:`ASKS_PER_USER` times
per user in :data:`ASK_WINDOW`, and on a budget of the Mini App's own (:class:`Budget`,
outside the game's limiter: a page's asking never delays a game message); the excess is
refused ("busy", 429). A "yes" is kept five minutes, a "no" half a minute (the user may
join the group a moment later); :meth:`Access.forget` drops either at once. Their secret panel only
ever holds their own seat. Which chat: the page's ``chat`` parameter (the role message's
button carries it), else the start parameter of a group's link (``c<chat id>``), else the
game the user plays now, else the last one they played.
"""

from __future__ import annotations

import asyncio
import logging
import re
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from telegram.error import BadRequest, Forbidden, NetworkError, RetryAfter

from shbot.bot.delivery.limiter import OWN_BUDGET  # never makes a game's call wait
from shbot.bot.delivery.sender import retry_seconds
from shbot.storage import StoreError
from shbot.table import Table

from .auth import WebUser

log = logging.getLogger(__name__)

MEMBER_SECONDS = 300.0  # a "yes" is kept this long
REFUSED_SECONDS = 30.0  # a "no" only this long
ASKS_PER_USER = 6  # Telegram asked about one user at most this many times...
ASK_WINDOW = 600.0  # ...in this many seconds
ASK_RATE = 5.0  # the Mini App's own getChatMember calls a second, all users together
ASK_BURST = 10.0
FRESH_SECONDS = 1.0  # one read of a chat's game from the store serves this long
MEMBERS = ("creator", "administrator", "member")
CHAT_RE = re.compile(r"^c?(-?[0-9]{1,19})$")
INT64 = 1 << 63


class Denied(Exception):
    """Nothing to show this user: ``reason`` is "no_game", "forbidden" or "busy" (try
    again in ``retry`` seconds)."""

    def __init__(self, reason: str, retry: float = 0.0) -> None:
        super().__init__(reason)
        self.reason = reason
        self.retry = retry


class Budget:
    """A token bucket: ``rate`` a second, ``burst`` at once; :meth:`take` the wait (0: taken)."""

    def __init__(self, rate: float, burst: float, clock: Callable[[], float]) -> None:
        self.rate = rate
        self.burst = burst
        self.clock = clock
        self.tokens = burst
        self.at = clock()

    def take(self) -> float:
        now = self.clock()
        self.tokens = min(self.burst, self.tokens + (now - self.at) * self.rate)
        self.at = now
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            return 0.0
        return (1.0 - self.tokens) / self.rate


@dataclass(frozen=True)
class Seen:
    """What a request may see: the group, its table and the viewer's seat (None: a member
    who does not play, or a lobby)."""

    chat_id: int
    table: Table
    seat: int | None


def chat_param(value: str | None) -> int | None:
    """A chat id from ``?chat=`` or a start parameter ``c-100...``; None if malformed."""
    match = CHAT_RE.match(value or "")
    if not match:
        return None
    chat = int(match.group(1))
    return chat if -INT64 <= chat < INT64 else None  # the store's ids are 64-bit


def start_param(chat_id: int) -> str:
    """The start parameter a group's link carries (Telegram allows ``A-Za-z0-9_-``)."""
    return f"c{chat_id}"


class Access:
    """Finds the user's game and checks their right to it (``svc``: the bot's Services;
    ``hub``: the commit path's newest tables, :class:`~shbot.webapp.hub.Hub`)."""

    def __init__(self, svc: Any, hub: Any, clock: Callable[[], float] = time.monotonic):
        self.svc = svc
        self.hub = hub
        self.clock = clock
        self.budget = Budget(ASK_RATE, ASK_BURST, clock)
        self.asked = 0  # getChatMember calls made (tests and logs)
        self._members: dict[tuple[int, int], tuple[bool, float]] = {}
        self._asks: dict[int, deque[float]] = {}
        self._asking: dict[tuple[int, int], asyncio.Future[bool]] = {}

    async def chat_for(self, user: WebUser, asked: str | None) -> int:
        if asked:
            chat = chat_param(asked)
            if chat is None:
                raise Denied("no_game")
            return chat
        chat = chat_param(user.start_param) if user.start_param else None
        if chat is not None:
            return chat
        store = self.svc.store
        current = await store.player_chat(user.id)
        if current is not None:
            return int(current)
        last = (await store.get_user(user.id)).get("last_game")
        if isinstance(last, list) and len(last) == 2 and isinstance(last[0], int):
            return int(last[0])
        raise Denied("no_game")

    async def table(self, chat_id: int, *, fresh: bool = False) -> Table | None:
        """The chat's newest table: the commit path's, else the store's (a running game,
        else the last finished one). ``fresh``: from the store, read once for every request
        of the chat within :data:`FRESH_SECONDS` (until this process commits a change)."""
        if not fresh:
            known = self.hub.newest(chat_id)
            if known is not None:
                return known  # type: ignore[no-any-return]
        loading = self.hub.loaded.get(chat_id)
        if loading is None or self.clock() - loading[0] >= FRESH_SECONDS:
            if len(self.hub.loaded) > 1024:
                self.hub.loaded.clear()
            loading = (self.clock(), asyncio.ensure_future(self._load(chat_id)))
            self.hub.loaded[chat_id] = loading
        return await asyncio.shield(loading[1])

    async def _load(self, chat_id: int) -> Table | None:
        store = self.svc.store
        try:
            record = await store.get_game(chat_id)
            if record is None:
                finished = await store.finished_games(chat_id, limit=1)
                record = finished[0] if finished else None
        except StoreError:
            log.warning("webapp: could not load the game of chat %s", chat_id)
            return None
        return None if record is None else Table.from_dict(record.data)

    def forget(self, chat_id: int, user_id: int) -> None:
        """Forget what Telegram said of ``user_id`` in ``chat_id`` (a ``chat_member``
        update: they joined or left the group)."""
        self._members.pop((chat_id, user_id), None)

    async def member(self, chat_id: int, user_id: int) -> bool:
        key = (chat_id, user_id)
        cached = self._members.get(key)
        now = self.clock()
        if cached is not None:
            keep = MEMBER_SECONDS if cached[0] else REFUSED_SECONDS
            if now - cached[1] < keep:
                return cached[0]
        asking = self._asking.get(key)
        if asking is not None:  # the same question is on its way: its answer serves both
            return await asyncio.shield(asking)
        asks = self._asks.setdefault(user_id, deque())
        while asks and now - asks[0] >= ASK_WINDOW:
            asks.popleft()
        if len(asks) >= ASKS_PER_USER:
            raise Denied("busy", ASK_WINDOW - (now - asks[0]))
        wait = self.budget.take()
        if wait:
            raise Denied("busy", wait)
        asks.append(now)
        if len(self._asks) > 50_000:
            self._asks = {user_id: asks}
        asking = self._asking[key] = asyncio.ensure_future(self._ask(chat_id, user_id))
        try:
            ok = await asyncio.shield(asking)
        finally:
            self._asking.pop(key, None)
        if len(self._members) > 50_000:
            self._members.clear()
        self._members[key] = (ok, self.clock())
        return ok

    async def _ask(self, chat_id: int, user_id: int) -> bool:
        bot = self.svc.bot
        own = {"rate_limit_args": OWN_BUDGET} if getattr(bot, "rate_limiter", None) else {}
        self.asked += 1
        try:
            found = await bot.get_chat_member(chat_id, user_id, **own)
            status = str(found.status)
            return status in MEMBERS or (status == "restricted" and bool(found.is_member))
        except (BadRequest, Forbidden):  # Telegram's definite answer (a BadRequest is a
            return False  # NetworkError in PTB: it must not read as "ask later")
        except (RetryAfter, NetworkError) as exc:  # Busy, a 429, a timeout, a 5xx: ask later
            wait = retry_seconds(exc) if isinstance(exc, RetryAfter) else 5.0
            raise Denied("busy", max(1.0, wait)) from None  # not kept as a "no"
        except Exception:  # an API error must not grant anything
            log.info("webapp: membership of %s in %s unknown", user_id, chat_id)
            return False

    async def check(self, user: WebUser, chat_id: int, table: Table | None) -> Seen:
        """What ``user`` may see of ``chat_id``; :class:`Denied` if nothing. Telegram is
        asked only about a chat that has a game, and only for a user who does not play."""
        if table is None:
            raise Denied("no_game")
        plays = table.player(user.id) is not None
        if chat_id > 0:  # a private chat: a practice game, its one player only
            allowed = chat_id == user.id
        else:
            allowed = plays or await self.member(chat_id, user.id)
        if not allowed:
            raise Denied("forbidden")
        return Seen(chat_id, table, _seat(table, user.id))


def _seat(table: Table, user_id: int) -> int | None:
    """The viewer's seat; in a lobby, their place in it (marked on the page)."""
    if table.game is not None:
        return table.seat_of(user_id)
    for i, p in enumerate(table.players):
        if p.id == user_id:
            return i
    return None
