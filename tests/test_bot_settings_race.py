"""Settings change under the discipline of games (issue 31): no update lost when two
commands touch them at once, and an explicit /lang always wins over a default.

The race is made exact: the /newgame under test is held right after any read of the
group's settings that finds no language, until the /lang sent with it has written its
choice (a read, then a write of a default, loses that choice; a read-and-write at once
cannot)."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

import pytest

from shbot.i18n import translator
from tests.botplay import Bot, lobby_message
from tests.harness import make_users

HOLD = 2.0  # seconds a held read waits at most for the /lang


def hold_reads_until_lang(bot: Bot, chat_id: int, held: set[asyncio.Task[Any]]) -> None:
    """Reads of ``chat_id``'s settings from the ``held`` tasks that find no language wait
    until a language is written."""
    store = bot.store
    written = asyncio.Event()
    real_get, real_update = store.get_group, store.update_group

    async def get_group(key: int) -> dict[str, Any]:
        found = await real_get(key)
        if key == chat_id and not found.get("lang") and asyncio.current_task() in held:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(HOLD):
                    await written.wait()
        return found

    async def update_group(key: int, changes: dict[str, Any]) -> dict[str, Any]:
        out = await real_update(key, changes)
        if key == chat_id and changes.get("lang"):
            written.set()
        return out

    store.get_group = get_group  # type: ignore[method-assign]
    store.update_group = update_group  # type: ignore[method-assign]


@pytest.mark.parametrize("first", ["lang", "newgame"])
async def test_lang_then_newgame_at_once_keeps_the_chosen_language(bot: Bot, first: str) -> None:
    """`/lang ja` and `/newgame` from an English-speaking host, sent back to back: the
    group speaks Japanese, its lobby included, whichever the bot handles first."""
    host, admin = make_users(2, language_code="en")
    group = bot.h.group(creator=admin, members=[host])
    await bot.h.command(host, host, "/start")
    held: set[asyncio.Task[Any]] = set()
    hold_reads_until_lang(bot, group.id, held)
    lang = bot.h.command(admin, group, "/lang ja", wait=False)
    newgame = bot.h.command(host, group, "/newgame", wait=False)
    order = [lang, newgame] if first == "lang" else [newgame, lang]
    tasks = [asyncio.create_task(c) for c in order]
    held.add(tasks[order.index(newgame)])
    await asyncio.gather(*tasks)
    await bot.settle()
    await bot.h.replies_delivered()
    assert (await bot.store.get_group(group.id)).get("lang") == "ja"
    ja = translator("ja")
    opened = ja._("<b>Secret Hitler</b> — a new game is open.").replace("<b>", "")
    opened = opened.replace("</b>", "")
    text = lobby_message(bot, group).plain_text
    assert opened in text, text
    assert await bot.svc.group_lang(group.id) == "ja"
    bot.h.assert_no_errors()
