"""A delivery recorded in place is never undone by a commit that read the table before it
(issue 31, "leftover owed entries").

The outbox records an edit of a known message in the cached record (saved with the next
write) instead of writing at once. A press judged meanwhile read the table before that
edit; saving it must not bring the delivered slot back as owed (it stayed owed in the
store: a no-op edit after a restart, a claim prompt closed at the end for nothing).
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from shbot.bot.delivery.commit import Commit
from shbot.bot.delivery.outbox import Outbox
from shbot.bot.delivery.pacer import Pacer
from shbot.engine import Nominate, Vote
from shbot.storage import GameRecord, open_store
from shbot.table import Table
from tests.table_helpers import chancellor_for, game_of, press, started

GROUP = -100123


async def test_a_commit_keeps_an_edit_recorded_while_it_was_saving(tmp_path: Path) -> None:
    store = open_store(sqlite_path=str(tmp_path / "shbot.sqlite3"))
    try:
        outbox = Outbox(None, Pacer(lambda: 0.0, lambda: 1000.0))
        outbox._kick = lambda chat_id: None  # type: ignore[method-assign]  # no worker
        commit = Commit(store, outbox)
        outbox.svc = SimpleNamespace(commit=commit)  # type: ignore[assignment]
        table, _ = started(5)
        table.shown["board"] = 7  # the board is out: its next delivery is an edit
        await commit.create(GROUP, table)
        seq = table.owed["board"][0]

        # The next press is saved slowly: the outbox records the board's edit meanwhile.
        saving, go_on = asyncio.Event(), asyncio.Event()
        save = store.save_game

        async def slow_save(record: GameRecord) -> GameRecord:
            saving.set()
            await go_on.wait()
            return await save(record)

        store.save_game = slow_save  # type: ignore[method-assign]
        game = game_of(table)
        nominate = Nominate(game.president, chancellor_for(table))
        pressed = asyncio.create_task(
            commit.run(GROUP, lambda t: press(t, game.president, nominate))
        )
        await saving.wait()
        await outbox._ack(GROUP, table.gid, "board", seq, 7, keep=True)  # recorded in place
        go_on.set()
        await pressed
        store.save_game = save  # type: ignore[method-assign]

        def cached() -> Table:
            record = outbox.tables.get(GROUP)
            assert record is not None
            return outbox.tables.table(record)

        assert "board" not in cached().owed, "the commit brought the delivered edit back"
        # The next write takes it to the store.
        await commit.run(GROUP, lambda t: press(t, 0, Vote(0, True)))
        stored: Any = await store.get_game(GROUP)
        assert "board" not in stored.data["owed"], "left owed in the store"
        assert "board" not in cached().owed and "round:1" in cached().owed
    finally:
        await store.close()
