"""The newest committed record of each group this process serves, and its table built once.

The commit path and the delivery worker look at a group's table on every press and before
every message. Building a table from its record (the engine's state and the table's lists)
cost more than the rest of a press's bookkeeping, done five times a press; so a table is
built once per version of its record, a change works on a copy of it (:meth:`Table.copy`),
and what delivery records changes the built table in place.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from shbot.storage import GameRecord
from shbot.table import Table

#: Delivery facts recorded in place and not yet written, kept per group (one worker per
#: group records them, one Telegram call each, and the group's next write takes them).
KEPT_FACTS = 16


class Tables:
    """The newest record of each group and the table built from it; a built table is valid
    while the record holds the very data it was built from, and goes with its record."""

    def __init__(self) -> None:
        self._records: dict[int, GameRecord] = {}
        self._built: dict[int, tuple[dict[str, Any], Table]] = {}
        # Delivery facts recorded in place, not in the store yet: (number, game, change).
        self._unsaved: dict[int, list[tuple[int, str, Callable[[Table], Any]]]] = {}
        self._count = 0

    def get(self, chat_id: int) -> GameRecord | None:
        return self._records.get(chat_id)

    def remember(self, record: GameRecord, table: Table | None = None) -> None:
        """``record`` is the group's newest; ``table`` is its table if already built."""
        self._records[record.chat_id] = record
        if table is not None:
            self._built[record.chat_id] = (record.data, table)

    def pop(self, chat_id: int, default: GameRecord | None = None) -> GameRecord | None:
        """Forget the group's record (and its table, and the delivery facts not written:
        lost, as in a crash, they cost a no-op edit); the record, else ``default``."""
        self._built.pop(chat_id, None)
        self._unsaved.pop(chat_id, None)
        return self._records.pop(chat_id, default)

    def chat_of(self, gid: str) -> int | None:
        """The group whose known record is game ``gid``, if any."""
        return next((c for c, r in self._records.items() if r.data.get("gid") == gid), None)

    def table(self, record: GameRecord) -> Table:
        """The record's table, built once per version of the record's data (read only)."""
        built = self._built.get(record.chat_id)
        if built is not None and built[0] is record.data:
            return built[1]
        table = Table.from_dict(record.data)
        self._built[record.chat_id] = (record.data, table)
        return table

    def working_copy(self, record: GameRecord) -> Table:
        """A table a change may alter: a copy of the one built for ``record``, if any."""
        built = self._built.get(record.chat_id)
        if built is not None and built[0] is record.data:
            return built[1].copy()
        return Table.from_dict(record.data)

    def record_in_place(self, record: GameRecord, change: Callable[[Table], Any]) -> None:
        """Apply a delivery fact (``change`` touches only what was owed, shown, the call
        times and the players' newest private message in ``talk``) to the cached record and
        its table, without building either again. It reaches the store with the next write;
        until then it is kept, for a write from a table read before it (:meth:`replay`)."""
        self._apply(record, change)
        self._count += 1
        kept = self._unsaved.setdefault(record.chat_id, [])
        kept.append((self._count, str(record.data.get("gid")), change))
        del kept[:-KEPT_FACTS]

    def mark(self, record: GameRecord) -> int:
        """What a table read from ``record`` holds of the facts recorded in place: all of
        them if it is the cached record, none if it came from the store."""
        kept = self._unsaved.get(record.chat_id)
        cached = self._records.get(record.chat_id) is record
        return kept[-1][0] if kept and cached else 0

    def replay(self, record: GameRecord, table: Table, since: int) -> None:
        """``record`` (and its ``table``) was just written from a table read at ``since``
        (:meth:`mark`): the facts recorded in place after that, on the record it replaced
        (or never written), are applied to it too, so a write never undoes a delivery (its
        slot would stay owed: a no-op edit after a restart, a claim prompt closed for
        nothing at the end). They ride in the next write; the others are in the store."""
        gid = str(record.data.get("gid"))
        later = [f for f in self._unsaved.get(record.chat_id, []) if f[0] > since and f[1] == gid]
        self._unsaved[record.chat_id] = later
        if later:
            self._built[record.chat_id] = (record.data, table)
            for _, _, change in later:
                self._apply(record, change)

    def _apply(self, record: GameRecord, change: Callable[[Table], Any]) -> None:
        table = self.table(record)
        change(table)
        fields = {"owed": table.owed, "shown": table.shown, "calls": table.calls}
        fields["talk"] = table.talk
        record.data = {**record.data, **fields}
        self._built[record.chat_id] = (record.data, table)
