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


class Tables:
    """Records by group (``records``, read and dropped by the commit path and services) and
    the table built from each: valid while the record holds the very data it was built from."""

    def __init__(self) -> None:
        self.records: dict[int, GameRecord] = {}
        self._built: dict[int, tuple[dict[str, Any], Table]] = {}

    def remember(self, record: GameRecord, table: Table | None = None) -> None:
        """``record`` is the group's newest; ``table`` is its table if already built."""
        self.records[record.chat_id] = record
        if table is not None:
            self._built[record.chat_id] = (record.data, table)

    def forget(self, chat_id: int) -> None:
        self.records.pop(chat_id, None)
        self._built.pop(chat_id, None)

    def release(self, chat_id: int) -> None:
        """Drop the built table of a group whose record is gone (an idle worker's end)."""
        if chat_id not in self.records:
            self._built.pop(chat_id, None)

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
        """Apply a delivery fact (``change`` touches only what was owed, shown and the call
        times) to the cached record and its table, without building either again."""
        table = self.table(record)
        change(table)
        fields = {"owed": table.owed, "shown": table.shown, "calls": table.calls}
        record.data = {**record.data, **fields}
        self._built[record.chat_id] = (record.data, table)
