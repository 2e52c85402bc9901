"""Delivery: what a committed change owes the players reaches Telegram, paced and in order.

One worker per group. It looks at what the group's table owes (slots, see
:mod:`shbot.table.model`) and at the bot's plain replies for that group, picks the most
urgent message that the :class:`~.pacer.Pacer` lets it send now, renders it from the
newest committed table *then* (so a burst of votes costs one edit and the newest state always
wins), sends or edits it, and only after Telegram accepted it marks the slot delivered in the
store. A crash at any point leaves the slot owed: the restarted bot delivers it again.

Handlers and timers never wait for any of this; no lock is held across a Bot API call.
Failures have one answer each: a 429 pauses that chat, a network error retries with
backoff, a group the bot lost ends its game, a migrated group moves it, a player who
blocked the bot is reported to the group once. The Bot API call itself and the mapping of
its errors to those answers live in :mod:`shbot.bot.delivery.sender`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from telegram import InlineKeyboardMarkup

from shbot.storage import GameRecord, StoreError
from shbot.table import Outcome, Table, timers

from .budget import FREE, Budget, merge_replies
from .pacer import Pacer
from .sender import Dropped, Migrated, Retry, Sender, Unreachable
from .slots import Rendered
from .tables import Tables
from .turns import Turns
from .workers import Plain, _Chat

if TYPE_CHECKING:
    from ..services import Services

log = logging.getLogger(__name__)

STORE_RETRIES = 30  # store failures in a row before a worker pauses (about two minutes)
MIN_WAIT = 0.001  # seconds a worker waits at least for the rate limiter (never spins)
TURN_WAIT = 60.0  # a worker in line for a turn looks again this often (it is woken sooner)


class Outbox:
    """The delivery workers of every group this process serves."""

    def __init__(self, bot: Any, pacer: Pacer) -> None:
        self.bot = bot
        self.pacer = pacer
        self.svc: Services | None = None  # set by Services
        self.tables = Tables()  # the newest committed record per group, its table built
        # Owed entries this process delivers: those its own commits (or its recovery) owed.
        # With several processes on one store each delivers its own, so none sends twice.
        self.mine: dict[int, set[tuple[str, int]]] = {}
        self._chats: dict[int, _Chat] = {}
        self._seq = 0
        self.budget = Budget()
        self.turns = Turns(pacer.overall, pacer.clock)  # the token's calls, shared in order
        self.sender = Sender(bot, pacer, self._count)
        self._running: set[int] = set()  # groups whose worker runs
        self._idle = asyncio.Event()
        self._idle.set()
        self.on_idle: Callable[[], Awaitable[None]] | None = None

    # ------------------------------------------------------------------ producers

    def committed(
        self,
        chat_id: int,
        record: GameRecord | None,
        *,
        after_seq: int = -1,
        table: Table | None = None,
    ) -> None:
        """A change of the group's game was saved: deliver what it owes (the entries owed
        after ``after_seq``: by this change; -1: everything, as after a restart). ``table``
        is the record's table already built (the worker only reads it): not parsed again."""
        if record is None:
            self.tables.pop(chat_id)
            self.budget.forget(chat_id)
        else:
            self.tables.remember(record, table)
            mine = self.mine.setdefault(chat_id, set())
            for slot, entry in record.data.get("owed", {}).items():
                if entry[0] > after_seq:
                    mine.add((slot, int(entry[0])))
        self._kick(chat_id)

    def post(
        self,
        chat_id: int,
        text: str,
        markup: InlineKeyboardMarkup | None = None,
        *,
        key: str | None = None,
        edit_id: int | None = None,
        group: int | None = None,
    ) -> None:
        """A plain reply, paced like game messages; a newer one with the same key replaces
        an unsent older one (repeated /board costs one message)."""
        self._seq += 1
        state = self._chat(owner := group if group is not None else chat_id)
        merge_replies(state.plain, chat_id, key := key or f"#{self._seq}")
        state.plain[key] = Plain(chat_id, text, markup, edit_id, self._seq)
        self._kick(owner)

    def _chat(self, chat_id: int) -> _Chat:
        state = self._chats.get(chat_id)
        if state is None:
            state = self._chats[chat_id] = _Chat()
        return state

    def _kick(self, chat_id: int) -> None:
        state = self._chat(chat_id)
        state.wake.set()
        if state.task is None or state.task.done():
            self._idle.clear()
            state.task = asyncio.get_running_loop().create_task(
                self._work(chat_id), name=f"outbox-{chat_id}"
            )
            self._running.add(chat_id)

    # ------------------------------------------------------------------ the worker

    async def _work(self, chat_id: int) -> None:
        state = self._chat(chat_id)
        outages = 0
        try:
            while True:
                state.wake.clear()
                record = await self._record(chat_id)
                table = None if record is None else self.tables.table(record)
                choice, wait, kind = self._choose(chat_id, table, state)
                if choice is None:
                    self.turns.leave(chat_id)
                if choice is None and wait is None:
                    if table is not None and table.ending and record is not None:
                        await self._finalize(chat_id)
                    if state.wake.is_set():
                        continue  # something was posted or committed meanwhile
                    break
                if choice is None:
                    await self._pause(state, wait or 0.0)
                    continue
                turn = kind == FREE or not self.pacer.enabled
                if not turn and not self.turns.go(chat_id, kind, state.wake):
                    await self._pause(state, TURN_WAIT)  # woken when its turn comes
                    continue
                try:
                    await self._deliver(chat_id, record, table, choice, state)
                    outages = 0
                except StoreError as exc:
                    # The store is down: what Telegram got is recorded again once it is back
                    # (the slot stays owed meanwhile); a long outage leaves it to the next
                    # commit or restart, never to a lost message.
                    outages += 1
                    if outages > STORE_RETRIES:
                        log.warning("delivery to %s paused: store unavailable (%s)", chat_id, exc)
                        break
                    self.tables.pop(chat_id)
                    await asyncio.sleep(min(5.0, 0.2 * 2**outages))
        except asyncio.CancelledError:
            raise
        except Exception:  # a worker must never die silently with work behind it
            log.exception("delivery worker for %s failed", chat_id)
        finally:
            self.turns.leave(chat_id)
            self._stopped(chat_id, state)

    async def _pause(self, state: _Chat, wait: float) -> None:
        """Wait for the pacer's window, or less if something is posted or committed. At
        least a millisecond: a slot that frees a float's hair after "now" would be due at
        once without the clock moving (asyncio treats timers within its clock resolution as
        ready), a spin under a virtual clock."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(state.wake.wait(), max(MIN_WAIT, wait))

    async def _deliver(
        self,
        chat_id: int,
        record: GameRecord | None,
        table: Table | None,
        choice: str | tuple[str, Plain],
        state: _Chat,
    ) -> None:
        """Send the chosen message: an owed slot (by its name) or a plain reply; the
        worker's turn at the token's calls (if it took one) ends with it."""
        try:
            if isinstance(choice, str):
                assert table is not None and record is not None
                await self._deliver_slot(chat_id, record, table, choice, state)
            else:
                await self._deliver_plain(chat_id, choice, state)
        finally:
            self.turns.done(chat_id)

    def _stopped(self, chat_id: int, state: _Chat) -> None:
        """A worker ends; the outbox is idle once none runs."""
        if state.task is asyncio.current_task():
            state.task = None
            self._running.discard(chat_id)
        if not self._running:  # (a set, not a look at every group: a worker ends per press)
            self._idle.set()

    async def _record(self, chat_id: int) -> GameRecord | None:
        record = self.tables.get(chat_id)
        # Only a chat whose game this process committed owes it anything (see _choose).
        if record is None and self.svc is not None and chat_id in self.mine:
            try:
                record = await self.svc.store.get_game(chat_id)
            except StoreError:
                log.warning("delivery to %s waits for the store", chat_id)
                await asyncio.sleep(1.0)
                return None
            if record is not None:
                self.tables.remember(record)
        return record

    def _choose(
        self, chat_id: int, table: Table | None, state: _Chat
    ) -> tuple[str | tuple[str, Plain] | None, float | None, int]:
        """The most urgent message the chats' own windows let go now and its kind, or how
        long to wait (:mod:`.budget`); the overall window is the turns' (:mod:`.turns`)."""
        mine, plain, retry = self.mine.get(chat_id, set()), state.plain, state.retry_at
        return self.budget.pick(self.pacer, chat_id, table, mine, plain, retry, overall=False)

    # ------------------------------------------------------------------ one message

    async def _deliver_slot(
        self, chat_id: int, record: GameRecord, table: Table, slot: str, state: _Chat
    ) -> None:
        assert self.svc is not None
        seq = table.owed[slot][0]
        told = self.budget.teller(chat_id, table, slot, table.owed[slot])  # then: no call
        renderer = await self.svc.slot_renderer(chat_id, table)
        rendered = None if told else await renderer.render(chat_id, table, slot)
        if rendered is None:  # nothing to show any more (e.g. a prompt whose step is over)
            await self._ack(chat_id, table.gid, slot, seq, None, keep=slot == "board")  # its id
            return
        try:
            mid = await self.sender.send(rendered, state)
        except Retry:
            return
        except Unreachable:
            await self._ack(chat_id, table.gid, slot, seq, None, keep=False)
            if rendered.chat_id == chat_id:
                await self.svc.lost_group(chat_id)
            else:
                await self.svc.unreachable(chat_id, rendered.chat_id)
            return
        except Migrated as moved:
            await self.svc.migrate(chat_id, moved.new_id)
            return
        except Dropped:
            mid = None
        part = self.budget.sent(chat_id, slot, table, self.pacer.clock())
        for attempt in range(1, STORE_RETRIES + 1):
            try:
                keep, step = rendered.keep, table.step
                await self._ack(chat_id, table.gid, slot, seq, mid, keep=keep, step=step, part=part)
                return
            except StoreError:
                # Telegram has it: record that once the store is back (sending it again would
                # show it twice), and only then go on with the rest (a worker that gave up
                # here would leave the game's next messages unsent until someone pressed).
                if attempt == STORE_RETRIES:
                    raise
                log.warning("delivered to %s, waiting for the store to record it", chat_id)
                await asyncio.sleep(min(5.0, 0.2 * 2**attempt))

    async def _deliver_plain(self, chat_id: int, item: tuple[str, Plain], state: _Chat) -> None:
        key, plain = item
        rendered = Rendered(plain.chat_id, plain.text, plain.markup, plain.edit_id, False)
        with contextlib.suppress(Dropped, Unreachable, Migrated):
            try:
                await self.sender.send(rendered, state)
            except Retry:
                return
        self.budget.sent(plain.chat_id, f"#{key}", None, self.pacer.clock())
        if state.plain.get(key) is plain:
            del state.plain[key]
        if plain.chat_id == chat_id and chat_id < 0:
            await self._save_calls(chat_id)

    async def _save_calls(self, chat_id: int) -> None:
        """Store the group's recent reply times with the group's settings (not the game: a
        reply changes no game, and a refused command must leave the game untouched), so a
        restarted bot sees the group's full window (``recover`` seeds the pacer from both)."""
        assert self.svc is not None
        state = self._chat(chat_id)
        if state.unsaved_calls:  # the reply's own call: stored here, not with the game
            state.unsaved_replies.append(state.unsaved_calls.pop())
        state.reply_calls = [*state.reply_calls, *state.unsaved_replies][-20:]
        state.unsaved_replies.clear()
        try:
            await self.svc.store.update_group(chat_id, {"reply_calls": state.reply_calls})
        except StoreError:
            log.warning("could not store the reply times of %s", chat_id)

    def _count(self, chat_id: int) -> None:
        at = self.pacer.take(chat_id)
        if chat_id < 0:
            owner = self._chats.get(chat_id)
            if owner is not None:
                owner.unsaved_calls.append(at)

    # ------------------------------------------------------------------ bookkeeping

    async def _ack(
        self,
        chat_id: int,
        gid: str,
        slot: str,
        seq: int,
        mid: int | None,
        *,
        keep: bool,
        step: int | None = None,
        part: str | None = None,
    ) -> None:
        """Telegram has the slot: record it (with the group's recent call times). ``step``:
        the step it was rendered at (showing ``part`` of its round: Table.stages); the step's
        prompt starts the step's clock when shown late (:func:`timers.prompt_shown`)."""
        assert self.svc is not None
        calls = self._chat(chat_id).unsaved_calls
        taken = list(calls)
        shown_at = self.pacer.wall()
        moved: list[Table] = []

        def change(table: Table) -> None:
            table.delivered(slot, seq, mid, keep=keep, stage=part)
            table.record_calls(taken)
            if step is not None and timers.prompt_shown(table, slot, step, shown_at):
                moved.append(table)

        self.mine.get(chat_id, set()).discard((slot, seq))
        record = self.tables.get(chat_id)
        late = step is not None and record is not None and self._late(record, slot, step)
        if (
            mid is not None
            and record is not None
            and not late
            and mid == _shown(record, slot)
            and record.data.get("gid") == gid
        ):
            # An edit of a known message (its last one too: a prompt answered, a round
            # closed): recorded in the cached record and saved with the next commit (it rides
            # in that write); lost in a crash, it costs one no-op edit.
            self.tables.record_in_place(record, change)
            del calls[: len(taken)]
            return
        if await self.svc.commit.bookkeep(chat_id, gid, change):
            del calls[: len(taken)]
            if moved and self.svc.commit.after is not None:
                await self.svc.commit.after(chat_id, Outcome(moved[-1]))  # the new deadline

    def _late(self, record: GameRecord, slot: str, step: int) -> bool:
        """Would showing ``slot`` now move the step's deadline (checked on a copy)?"""
        table = self.tables.table(record)
        return table.deadline is not None and timers.prompt_shown(
            table.copy(), slot, step, self.pacer.wall()
        )

    async def _finalize(self, chat_id: int) -> None:
        assert self.svc is not None
        await self.svc.commit.finalize(chat_id)

    # ------------------------------------------------------------------ lifecycle

    async def join(self, timeout: float | None = None) -> None:
        """Wait until every worker is done (tests, shutdown)."""
        await asyncio.wait_for(self._idle.wait(), timeout)

    async def close(self) -> None:
        tasks = [s.task for s in self._chats.values() if s.task is not None]
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self._chats.clear()
        self._running.clear()
        self._idle.set()


def _shown(record: GameRecord, slot: str) -> int | None:
    mid = record.data.get("shown", {}).get(slot)
    return int(mid) if mid is not None else None
