"""What an owed group message is worth to the players waiting, and when it may spend.

A group gets about 20 calls a minute. Spent first come, first served, a burst of votes
used the whole minute and the next step's buttons waited for the window to free. Each owed
group message is therefore one of two kinds:

- a *step change*: something the table must act on or learn to go on (a new message, the
  next step's buttons, a vote's result, a power, the end): sent as soon as the window
  allows, before any progress;
- *progress*: the same step, told in more detail (who has voted, the President's discard,
  claims, the board's picture, lobby joins, command replies): it waits ``HOLD`` seconds
  for more of the same (a batch of votes costs one edit; a command reply in a calm group
  goes at once); it goes only while the group's window keeps ``RESERVE`` calls free for
  the next step changes, at once and at every step of the pacer's pace (progress never
  delays a step change). It is never dropped: the newest state is rendered when it goes.

A group message's *stage* (round and the part of it the group acts on) tells the two
apart: an edit whose stage is the one last shown is progress.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from shbot.engine import Phase
from shbot.table import Table

from .pacer import Window

if TYPE_CHECKING:
    from .pacer import Pacer

STEP, PROGRESS = 0, 1
FREE = -1  # a choice that costs no call (a newer message tells it: Budget.teller)
#: Group calls progress leaves free for step changes, at once and at every step of the
#: pacer's pace (``pacer.GROUP_PACE``): after a progress edit, a step change can go at once.
RESERVE = 1
#: Seconds a progress edit waits for more of the same, in a calm group too: at a human pace
#: votes (and lobby joins) come one to two seconds apart, so the wait saves about every other
#: edit, and the calls saved keep the next step change (and the next vote) on time. Just under
#: the 1.5 s a tap may take to show at a slow pace: a 1 s hold spent a ten-player table's
#: calls on its first votes, and later votes waited 3 s for the pace (bench, slow pace, 40
#: games: 8 over 1.5 s at p95 with 1 s, none with 1.45 s, 1.35-1.4 s one).
HOLD = 1.45
#: Seconds between two edits of the board's picture in a busy group: the round message's
#: glance line shows the same facts at once, so changes close together (a failed vote moving
#: the tracker, the next round's policy resetting it) cost one edit of the picture.
BOARD_EVERY = 30.0
#: Replies to commands in a group (any member can send them): at most this many a minute,
#: and this many waiting (a newer one replaces the oldest): /practice sent thirty times must
#: not take the group's minute from the game.
REPLIES_PER_MINUTE, REPLIES_WAITING = 4, 2
GROUP_PARTS = (Phase.NOMINATE.value, Phase.VOTE.value)  # stages with the group's buttons
SESSION = (Phase.PRESIDENT_DISCARD, Phase.CHANCELLOR_ENACT, Phase.VETO_RESPONSE)
#: Delivery order within a kind: the board before the round message (Round 1 and /board
#: read top to bottom: the picture, then the President's buttons under it).
ORDER = {"board": 0, "round": 1}


def merge_replies(waiting: dict[str, Any], chat_id: int, key: str) -> None:
    """Before a new reply ``key`` to ``chat_id`` joins ``waiting``: a group keeps at most
    ``REPLIES_WAITING`` unsent replies, the oldest giving way (a reply with the same key
    replaces its older self anyway). An edit of a shown message (a settings menu) never
    gives way: it is the message's state, replaced only by its own newer edit."""
    if chat_id >= 0 or key in waiting:
        return
    mine = [k for k, reply in waiting.items() if reply.chat_id == chat_id and reply.edit_id is None]
    for old in mine[: max(0, len(mine) - REPLIES_WAITING + 1)]:
        del waiting[old]


def stage(table: Table) -> tuple[Any, ...]:
    """What the group acts on now: the lobby, a round's nomination, vote, session, power."""
    game = table.game
    if game is None:
        return ("lobby",)
    if game.is_over or table.ending:
        return ("over",)
    part = "session" if game.phase in SESSION else game.phase.value
    return (game.round, part)


@dataclass
class Budget:
    """Per process: the stage each group message last showed, and each group's pace."""

    shown: dict[tuple[int, str], tuple[Any, ...]] = field(default_factory=dict)
    since: dict[tuple[int, str], float] = field(default_factory=dict)
    edited: dict[int, float] = field(default_factory=dict)  # group -> its board's last edit
    posted: dict[int, int] = field(default_factory=dict)  # group -> first round under its board
    replies: dict[int, Window] = field(default_factory=dict)  # group -> its replies' window

    def kind(self, group: int, table: Table, slot: str, entry: list[Any]) -> int:
        """STEP or PROGRESS for an owed slot of ``group`` (private messages: STEP)."""
        if entry[1] != 0:
            return STEP
        fam = slot.split(":", 1)[0]
        payload: dict[str, Any] = entry[2] or {}
        if slot not in table.shown or payload.get("new"):
            return STEP  # a new message: the table reads on below it
        if fam == "board":
            return PROGRESS
        if fam == "lobby":
            return STEP if payload.get("closed") else PROGRESS
        if fam == "round":
            last = self.shown.get((group, slot))
            if payload.get("closed"):
                # A closed round's last edit is the result of a vote its buttons still ask
                # for; after a session or a power (no buttons left) the next round's message
                # and the board tell what came of it first.
                return STEP if last is None or last[-1] in GROUP_PARTS else PROGRESS
            return STEP if last != stage(table) else PROGRESS
        return STEP

    def teller(self, group: int, table: Table, slot: str, entry: list[Any]) -> str | None:
        """The newer message that tells what an owed group edit would, so that edit costs no
        call once that message is out (None: the edit is made). A round closed by a private
        step: the next round's message recaps what came after the vote (``told``), when the
        group last saw its message without buttons, past its vote (``Table.stages``). The
        board once a newer round's message stands under it (scrolled away): that message's
        glance line (``/board`` posts it anew; known to this process only: after a restart
        the board is edited)."""
        if entry[1] != 0 or table.game is None:
            return None
        game, payload = table.game, entry[2] or {}
        newest = "over" if game.is_over else f"round:{game.round}"
        if slot == "board":
            posted = self.posted.get(group)
            live = not (game.is_over or table.ending or payload.get("new"))
            return newest if live and posted is not None and posted < game.round else None
        part = table.stages.get(slot)  # stored: the same answer after a restart
        if not slot.startswith("round:") or part in (None, "closed", *GROUP_PARTS):
            return None
        return newest if payload.get("closed") and payload.get("told") else None

    def order(self, slot: str, kind: int, table: Table) -> int:
        """Order within a kind: step changes top to bottom (the board's picture above the
        round's buttons); progress of the message players look at (the newest round's)
        first, then the board, then closed rounds and the rest."""
        if kind == STEP:
            return ORDER.get(slot.split(":", 1)[0], 2)
        game = table.game
        if game is not None and slot == f"round:{game.round}":
            return 0
        return 1 if slot == "board" else 2

    def not_before(self, group: int, key: str, now: float, calm: bool) -> float:
        """The earliest a progress call of ``key`` may go in ``group`` (besides the pacer's
        windows, which keep a reserve for step changes); in a ``calm`` group (little spent of
        late) a command reply goes at once, and the board without waiting ``BOARD_EVERY``."""
        reply = key.startswith("#")
        hold = 0.0 if reply and calm else HOLD
        at = self.since.setdefault((group, key), now) + hold
        if reply:
            at = max(at, self._replies(group).ready_at(now))
        if key == "board" and not calm:
            at = max(at, self.edited.get(group, -BOARD_EVERY) + BOARD_EVERY)
        return at

    def sent(self, group: int, key: str, table: Table | None, now: float) -> str | None:
        """``key`` of ``group`` reached Telegram at ``now`` (rendered from ``table``); for a
        round's message, the part of its round it shows (kept in ``Table.stages``)."""
        self.since.pop((group, key), None)
        if key == "board":
            self.edited[group] = now
            if table is not None and table.game is not None and _new(table, key):
                rnd = table.game.round  # the first round whose message comes under it
                self.posted[group] = rnd + 1 if f"round:{rnd}" in table.shown else rnd
        if key.startswith("#") and group < 0:
            self._replies(group).take(now)
        if table is not None and key.split(":", 1)[0] in ("round", "lobby", "board"):
            self.shown[(group, key)] = stage(table)
        if table is None or not key.startswith("round:") or table.game is None:
            return None
        return str(stage(table)[-1]) if table.game.round == int(key[6:]) else "closed"

    def choose(
        self,
        pacer: Pacer,
        group: int,
        table: Table | None,
        mine: set[tuple[str, int]],
        plain: Mapping[str, Any],
        retry_at: float,
    ) -> tuple[Any, float | None]:
        """The group's most urgent message that may go now (an owed slot's name, or a plain
        reply's ``(key, reply)``), else None and how long to wait (None: nothing to send).
        Only slots in ``mine`` (owed by this process's commits)."""
        choice, wait, _kind = self.pick(pacer, group, table, mine, plain, retry_at)
        return choice, wait

    def pick(
        self,
        pacer: Pacer,
        group: int,
        table: Table | None,
        mine: set[tuple[str, int]],
        plain: Mapping[str, Any],
        retry_at: float,
        *,
        overall: bool = True,
    ) -> tuple[Any, float | None, int]:
        """:meth:`choose`, and the kind of the message chosen (STEP or PROGRESS: its place
        in line for the token's calls, :mod:`.turns`); with ``overall=False`` only the
        chats' own windows are looked at (the caller takes a turn at the overall one)."""
        now = pacer.clock()
        ready: list[tuple[int, int, int, Any]] = []
        soonest: float | None = None
        candidates: list[tuple[int, int, int, int, str, Any]] = []
        if table is not None:
            for slot, entry in table.owed.items():
                if (slot, entry[0]) not in mine:
                    continue  # owed by another process's commit: that process delivers it
                teller = self.teller(group, table, slot, entry)
                if teller is not None:
                    if teller in table.owed:
                        continue  # once the message that tells it is out
                    return slot, 0.0, FREE  # no call: recorded as shown
                kind = self.kind(group, table, slot, entry)
                to = group if entry[1] == 0 else int(entry[1])
                candidates.append((to, kind, self.order(slot, kind, table), entry[0], slot, slot))
        for key, reply in plain.items():
            kind = PROGRESS if reply.chat_id < 0 else STEP  # a command reply in a group
            candidates.append((reply.chat_id, kind, 3, reply.seq, f"#{key}", (key, reply)))
        if not candidates:
            return None, None, STEP
        for chat, kind, order, seq, key, item in candidates:
            progress = kind == PROGRESS and chat < 0 and pacer.enabled
            reserve = RESERVE if progress else 0
            at = max(pacer.ready_at(chat, now, reserve, overall=overall), retry_at)
            if progress:
                at = max(at, self.not_before(chat, key, now, pacer.calm(chat, now)))
            if at <= now:
                ready.append((kind, order, seq, item))
            elif soonest is None or at < soonest:
                soonest = at
        if ready:
            best = min(ready, key=lambda x: (x[0], x[1], x[2]))
            return best[3], 0.0, best[0]
        return None, (soonest or now) - now, STEP

    def _replies(self, group: int) -> Window:
        w = self.replies.get(group)
        if w is None:
            if len(self.replies) > 50_000:
                self.replies.clear()
            w = self.replies[group] = Window(REPLIES_PER_MINUTE, 60.0)
        return w

    def forget(self, group: int) -> None:
        """The group's game is gone: nothing of it to remember."""
        self.edited.pop(group, None)
        self.posted.pop(group, None)
        for d in (self.shown, self.since):
            for k in [k for k in d if k[0] == group]:
                del d[k]


def _new(table: Table, slot: str) -> bool:
    """Whether delivering ``slot`` of ``table`` sends a new message (not an edit)."""
    entry = table.owed.get(slot)
    return slot not in table.shown or bool(entry and (entry[2] or {}).get("new"))
