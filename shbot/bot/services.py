"""What every handler needs: the store, the outbox, languages and per-chat ordering."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from telegram import User

from shbot.i18n import DEFAULT, Translator, normalize, translator
from shbot.storage import NoGame, Store

from . import logs
from .config import Config
from .flow import Narrator
from .model import Table
from .outbox import Outbox

log = logging.getLogger(__name__)

LANG_CACHE_SECONDS = 60.0


@dataclass
class Services:
    config: Config
    store: Store
    outbox: Outbox
    bot_username: str = ""
    new_seed: Callable[[], int] = field(default=lambda: secrets.randbits(63))
    _locks: dict[int, asyncio.Lock] = field(default_factory=dict)
    _user_lang: dict[int, tuple[str, float]] = field(default_factory=dict)
    _group_lang: dict[int, tuple[str, float]] = field(default_factory=dict)
    _pinged: dict[int, float] = field(default_factory=dict)

    def ping_wait(self, chat_id: int, every: float) -> float:
        """Seconds before the group may /ping again (0: now, and the clock restarts)."""
        now = time.monotonic()
        last = self._pinged.get(chat_id)
        if last is not None and now - last < every:
            return every - (now - last)
        self._pinged[chat_id] = now
        return 0.0

    @contextlib.asynccontextmanager
    async def chat_lock(self, chat_id: int) -> AsyncIterator[None]:
        """Serialize commit-and-enqueue per group, so messages are queued in commit order."""
        lock = self._locks.setdefault(chat_id, asyncio.Lock())
        async with lock:
            yield

    # ------------------------------------------------------------------ languages

    async def user_lang(self, user_id: int, tg_code: str | None = None) -> str:
        """The user's chosen language, else their Telegram app language if ours, else en."""
        cached = self._user_lang.get(user_id)
        if cached and time.monotonic() - cached[1] < LANG_CACHE_SECONDS:
            return cached[0]
        settings = await self.store.get_user(user_id)
        lang = settings.get("lang") or normalize(tg_code) or settings.get("tg_lang") or DEFAULT
        self._user_lang[user_id] = (lang, time.monotonic())
        return str(lang)

    def forget_user_lang(self, user_id: int) -> None:
        self._user_lang.pop(user_id, None)

    async def group_lang(self, chat_id: int) -> str:
        cached = self._group_lang.get(chat_id)
        if cached and time.monotonic() - cached[1] < LANG_CACHE_SECONDS:
            return cached[0]
        settings = await self.store.get_group(chat_id)
        lang = str(settings.get("lang") or DEFAULT)
        self._group_lang[chat_id] = (lang, time.monotonic())
        return lang

    def forget_group_lang(self, chat_id: int) -> None:
        self._group_lang.pop(chat_id, None)

    async def t_user(self, user: User | int) -> Translator:
        if isinstance(user, User):
            return translator(await self.user_lang(user.id, user.language_code))
        return translator(await self.user_lang(user))

    async def t_group(self, chat_id: int) -> Translator:
        return translator(await self.group_lang(chat_id))

    async def narrator(self, chat_id: int, table: Table) -> Narrator:
        """A narrator with every player's language looked up once."""
        logs.bind(chat=chat_id, game=table.gid)  # what follows is about this game
        langs = {p.id: await self.user_lang(p.id, p.lang) for p in table.players}

        def user_t(user_id: int) -> Translator:
            return translator(langs.get(user_id, DEFAULT))

        return Narrator(
            outbox=self.outbox,
            chat_id=chat_id,
            group=await self.t_group(chat_id),
            user_t=user_t,
            bot_username=self.bot_username,
            on_sent=lambda name: self.id_recorder(chat_id, table.gid, name),
        )

    def id_recorder(self, chat_id: int, gid: str, name: str) -> Callable[[int], Awaitable[None]]:
        """A hook that stores a sent message's id in the game, for later edits."""

        async def record(message_id: int) -> None:
            def setter(rec: Any) -> None:
                if rec.data.get("gid") != gid:
                    raise NoGame("another game")
                rec.data.setdefault("msgs", {})[name] = message_id

            with contextlib.suppress(NoGame):
                await self.store.update_game(chat_id, setter)

        return record
