"""How ``shbot/storage/record.zdict`` was made: one seeded 7-player game played through the
bot (tests/botplay.py's RandomPlay, seed 0), the JSON of its record after moves 10, 30 and
60 and at its last move, the final 16 KB of that. Records name the dictionary they were
packed with, so the file is never remade in place: a new one goes beside it
(``storage/codec.py``). ``python -m tests.make_zdict OUT`` writes a new candidate."""

from __future__ import annotations

import asyncio
import sys
import tempfile
from pathlib import Path
from typing import Any

import orjson

from shbot.storage import open_store
from tests.botplay import RandomPlay, open_game, play, running_bot
from tests.harness import make_users

SIZE = 16384


async def records(seed: int = 0) -> list[dict[str, Any]]:
    with tempfile.TemporaryDirectory() as tmp:
        store = open_store(sqlite_path=str(Path(tmp) / "game.sqlite3"))
        seen: list[dict[str, Any]] = []
        async with running_bot(store) as bot:
            users = make_users(7)
            group = await open_game(bot, users, seed=seed)

            async def before(*_: Any, **__: Any) -> None:
                found = await store.get_game(group.id)
                if found is not None and found.status == "running":
                    seen.append(found.data)

            await play(bot, group, users, RandomPlay(seed), before=before)
        await store.close()
        return seen


def dictionary(seen: list[dict[str, Any]]) -> bytes:
    picked = [seen[i] for i in (10, 30, 60, len(seen) - 1)]
    return b"".join(orjson.dumps(r, option=orjson.OPT_NON_STR_KEYS) for r in picked)[-SIZE:]


if __name__ == "__main__":
    Path(sys.argv[1]).write_bytes(dictionary(asyncio.run(records())))
