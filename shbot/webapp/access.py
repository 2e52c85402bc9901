"""Which game a signed-in user asks for, and whether they may see it.

A user sees a game's public view if they play in it or are a member of its group (asked
of Telegram with ``getChatMember``, cached a few minutes: a read, not one of the group's
messages); a practice game (a private chat) only its one player. Their secret panel only
ever holds their own seat. Which chat: the page's ``chat`` parameter (the role message's
button carries it), else the start parameter of a group's link (``c<chat id>``), else the
game the user plays now, else the last one they played.
"""

from __future__ import annotations

import logging
import re
import time
from dataclasses import dataclass
from typing import Any

from shbot.storage import StoreError
from shbot.table import Table

from .auth import WebUser

log = logging.getLogger(__name__)

MEMBER_SECONDS = 300.0
MEMBERS = ("creator", "administrator", "member")
CHAT_RE = re.compile(r"^c?(-?[0-9]{1,20})$")


class Denied(Exception):
    """Nothing to show this user: ``reason`` is "no_game" or "forbidden"."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


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
    return int(match.group(1)) if match else None


def start_param(chat_id: int) -> str:
    """The start parameter a group's link carries (Telegram allows ``A-Za-z0-9_-``)."""
    return f"c{chat_id}"


class Access:
    """Finds the user's game and checks their right to it (``svc``: the bot's Services)."""

    def __init__(self, svc: Any, newest: Any) -> None:
        self.svc = svc
        self.newest = newest  # chat id -> the newest committed table this process knows
        self._members: dict[tuple[int, int], tuple[bool, float]] = {}

    async def chat_for(self, user: WebUser, asked: str | None) -> int:
        chat = chat_param(asked) if asked else None
        if chat is None and user.start_param:
            chat = chat_param(user.start_param)
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
        else the last finished one)."""
        if not fresh:
            known = self.newest(chat_id)
            if known is not None:
                return known  # type: ignore[no-any-return]
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

    async def member(self, chat_id: int, user_id: int) -> bool:
        key = (chat_id, user_id)
        cached = self._members.get(key)
        if cached is not None and time.monotonic() - cached[1] < MEMBER_SECONDS:
            return cached[0]
        try:
            found = await self.svc.bot.get_chat_member(chat_id, user_id)
            status = str(found.status)
            ok = status in MEMBERS or (status == "restricted" and bool(found.is_member))
        except Exception:  # an API error must not grant anything
            log.info("webapp: membership of %s in %s unknown", user_id, chat_id)
            ok = False
        if len(self._members) > 50_000:
            self._members.clear()
        self._members[key] = (ok, time.monotonic())
        return ok

    async def check(self, user: WebUser, chat_id: int, table: Table | None) -> Seen:
        """What ``user`` may see of ``chat_id``; :class:`Denied` if nothing."""
        seat = table.seat_of(user.id) if table is not None else None
        plays = table is not None and table.player(user.id) is not None
        if chat_id > 0:  # a private chat: a practice game, its one player only
            allowed = chat_id == user.id
        else:
            allowed = plays or await self.member(chat_id, user.id)
        if not allowed:
            raise Denied("forbidden")
        if table is None:
            raise Denied("no_game")
        return Seen(chat_id, table, seat)
