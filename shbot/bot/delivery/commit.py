"""The one path by which anything changes a game: lock, load, transition, one write.

Every handler, timer job and settings change that alters a game calls :meth:`Commit.run`
with a table transition. Under the group's lock (held for storage only, never across a Bot
API call) it takes the newest record (this process's cache, reloaded when another process
won the compare-and-set), applies the transition to a fresh copy, and saves it with one
compare-and-set. Duplicate updates are caught by the same write (``Table.duplicate``).
Then the outbox delivers what the change owes, and the scheduler arms the new deadline.
"""

from __future__ import annotations

import asyncio
import logging
import weakref
from collections.abc import Awaitable, Callable
from typing import Any

from shbot.storage import FINISHED, LOBBY, RUNNING, GameRecord, NoGame, Store, VersionConflict
from shbot.table import Outcome, Refusal, Table, seats

from .. import logs
from .outbox import Outbox

log = logging.getLogger(__name__)

Change = Callable[[Table], Outcome]
RETRIES = 20


class Commit:
    def __init__(self, store: Store, outbox: Outbox) -> None:
        self.store = store
        self.outbox = outbox
        self._locks: weakref.WeakValueDictionary[int, asyncio.Lock] = weakref.WeakValueDictionary()
        #: Called after every committed outcome (outside the lock): timers, released players.
        self.after: Callable[[int, Outcome], Awaitable[None]] | None = None
        #: Told each newly committed table at once, in the lock (the Mini App's live view).
        self.watch: Callable[[int, Table], None] | None = None

    def lock(self, chat_id: int) -> asyncio.Lock:
        lock = self._locks.get(chat_id)
        if lock is None:
            lock = self._locks[chat_id] = asyncio.Lock()
        return lock

    async def _load(self, chat_id: int, fresh: bool) -> GameRecord:
        record = None if fresh else self.outbox.tables.get(chat_id)
        if record is None:
            record = await self.store.get_game(chat_id)
            if record is None:
                missing = NoGame(f"no active game in chat {chat_id}")
                # What this process last knew of it: if the store lost the game, its
                # messages can still lose their buttons (Services.lost_game).
                missing.last_known = self.outbox.tables.pop(chat_id, None)
                raise missing
        return record

    async def run(self, chat_id: int, change: Change, *, update_key: str | None = None) -> Outcome:
        """Apply ``change`` to the group's table and save it once; Refusal changes nothing."""
        async with self.lock(chat_id):
            fresh = False
            for _ in range(RETRIES):
                record = await self._load(chat_id, fresh)
                since = self.outbox.tables.mark(record)  # the delivery facts it holds
                table = self.outbox.tables.working_copy(record)
                logs.bind(chat=chat_id, game=table.gid)  # what follows is about this game
                if update_key is not None and table.duplicate(update_key):
                    raise Refusal("duplicate", alert=False)
                seq = table.seq
                try:
                    outcome = change(table)
                except Refusal as refusal:
                    if fresh or update_key is None:
                        refusal.table = table
                        raise
                    fresh = True  # judged on a cached copy: another process may be ahead
                    continue
                try:
                    saved = await self._save(record, table)
                except NoGame as missing:  # judged on a cached copy of a game the store lost
                    missing.last_known = self.outbox.tables.pop(chat_id, record)
                    raise
                except VersionConflict:
                    fresh = True
                    continue
                self.outbox.tables.replay(saved, table, since)  # those recorded since
                self.outbox.committed(chat_id, saved, after_seq=seq, table=table)
                if self.watch is not None:
                    self.watch(chat_id, table)
                break
            else:
                raise VersionConflict(f"chat {chat_id}: too many concurrent changes")
        if self.after is not None:
            await self.after(chat_id, outcome)
        return outcome

    async def _save(self, record: GameRecord, table: Table) -> GameRecord:
        new = GameRecord(
            record.chat_id,
            record.version,
            LOBBY if table.game is None else RUNNING,
            table.to_dict(),
            record.game_id,
        )
        return await self.store.save_game(new)

    async def create(self, chat_id: int, table: Table) -> None:
        """Open a new lobby (GameExists if one is open)."""
        async with self.lock(chat_id):
            record = await self.store.get_game(chat_id)
            if record is not None and Table.from_dict(record.data).ending:
                await self._close(chat_id, record)  # the previous game's last words can wait
            saved = await self.store.create_game(chat_id, LOBBY, table.to_dict())
            self.outbox.committed(chat_id, saved)
            if self.watch is not None:
                self.watch(chat_id, table)

    async def bookkeep(self, chat_id: int, gid: str, change: Callable[[Table], Any]) -> bool:
        """Record delivery facts (message ids, call times); False if the game is gone."""
        async with self.lock(chat_id):
            fresh = False
            for _ in range(RETRIES):
                try:
                    record = await self._load(chat_id, fresh)
                except NoGame:
                    return False
                since = self.outbox.tables.mark(record)
                table = self.outbox.tables.working_copy(record)
                if table.gid != gid:
                    return False
                change(table)
                try:
                    saved = await self._save(record, table)
                except VersionConflict:
                    fresh = True
                    continue
                except NoGame:
                    return False
                self.outbox.tables.replay(saved, table, since)
                self.outbox.tables.remember(saved, table)
                return True
        return False

    async def finalize(self, chat_id: int) -> Table | None:
        """An ended game whose last messages went out leaves the chat: archived or deleted.
        (Called by the delivery worker once it has nothing left to deliver.)"""
        async with self.lock(chat_id):
            try:
                record = await self._load(chat_id, True)
            except NoGame:
                return None
            table = Table.from_dict(record.data)
            if not table.ending:
                return None
            await self._close(chat_id, record)
            return table

    async def _close(self, chat_id: int, record: GameRecord) -> None:
        table = Table.from_dict(record.data)
        self.outbox.tables.pop(chat_id, None)
        finished = table.ending == "finished" and table.game is not None
        # Statistics and players before the game leaves the active games: both are
        # idempotent, so a crash in between only repeats them (the restart finalizes the
        # game again); the other way round it would lose them for good.
        result = seats.human_result(table.result()) if finished else None
        if result is not None and chat_id < 0:  # a /practice game (a private chat) is no record
            await self.store.record_result(chat_id, result)
        await self.store.release_players(chat_id, [p.id for p in table.players])
        try:
            if finished:
                record.status = FINISHED
                await self.store.save_game(record)
            else:
                await self.store.delete_game(chat_id, record.version)
        except (NoGame, VersionConflict):
            return
        game = table.game
        if table.ending == "finished" and game is not None and game.condition is not None:
            log.info("game %s in chat %s ended: %s", table.gid, chat_id, game.condition.value)
        else:
            log.info("game %s in chat %s cancelled", table.gid, chat_id)
