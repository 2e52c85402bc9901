"""A whole game played from the Mini App's page in headless Chromium (issue 34): every
press of the seeded 7-player game of ``tests/webapp_play.py`` (every kind of step, a veto
asked and answered, each power, claims and "My role") is a click on the page of the player
who makes it (one browser, going from one player's signed page to the next); the group's
transcript, and each player's private one, equal those of the same game played with the
chat's buttons. The page runs inside a stand-in for Telegram's WebApp object, which
records the haptics and the BackButton it is asked for."""

from __future__ import annotations

import asyncio
import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from shbot.devtools.fake_records import StoredMessage
from shbot.i18n import translator
from shbot.storage import Store, open_store
from tests.botplay import Bot
from tests.browser import chrome, page_errors, require_browser
from tests.fake_telegram import FakeChat
from tests.harness import FakeUser, make_users
from tests.test_webapp_browser import SCREENSHOT_ENV, THEME, keep, run, wait_for
from tests.webapp_bot import base_url, signed, webapp_bot
from tests.webapp_play import (
    Press,
    group_transcript,
    play_scripted,
    played_with_buttons,
    private_transcript,
    said,
)

EN = translator("en")
pytestmark = pytest.mark.usefixtures("browser_present")

#: Telegram's WebApp object as the page uses it, recording each call (``window.tgCalls``);
#: installed before the page's scripts run (telegram.org is out of reach in tests).
TELEGRAM = """
window.tgCalls = [];
const rec = (name) => (...args) => { window.tgCalls.push([name, ...args.map(String)]); };
window.Telegram = { WebApp: {
  initData: "", themeParams: %s, ready: rec("ready"), expand: rec("expand"),
  onEvent: rec("onEvent"),
  HapticFeedback: { impactOccurred: rec("impact"), notificationOccurred: rec("notification") },
  BackButton: { show: rec("back.show"), hide: rec("back.hide"), onClick: rec("back.onClick"),
    offClick: rec("back.offClick") },
} };
"""


@pytest.fixture
def browser_present() -> None:
    require_browser()


def signed_url(bot: Bot, user: FakeUser, chat: int) -> str:
    """The player's page (``u=``: another player's is another page, not a new #fragment)."""
    init = quote(signed(bot, user), safe="")
    return f"{base_url(bot)}/?chat={chat}&u={user.id}#tgWebAppData={init}&tgWebAppVersion=8.0"


def page_press(bot: Bot, driver: Any, opened: dict[str, Any]) -> Press:
    """Presses as clicks on the presser's page in ``driver``."""
    tmp = Path(tempfile.mkdtemp(prefix="shbot-shot-"))

    async def press(
        user: FakeUser, data: str, message: StoredMessage | None, group: FakeChat
    ) -> dict[str, Any]:
        if opened.get("user") != user.id:
            if "user" in opened:  # what the page asked of Telegram's WebApp object
                opened["calls"] += await run(driver.execute_script, "return window.tgCalls")
            await run(driver.get, signed_url(bot, user, group.id))
            opened["user"] = user.id
            opened["pages"] = opened.get("pages", 0) + 1
        button = f"document.querySelector('button[data-data=\"{data}\"]:not(:disabled)')"
        await wait_for(driver, f"return !!{button}")
        shot = os.environ.get(SCREENSHOT_ENV)
        if shot and ":d:" in data and not opened.get("shot"):  # a President's hand to play
            opened["shot"] = True
            await asyncio.sleep(0.3)  # the view that followed the stream's first event
            await run(driver.save_screenshot, str(tmp / "miniapp.png"))
            keep(tmp / "miniapp.png", Path(shot), height=1800)
        count = await run(driver.execute_script, "return window.shbotAnswers.length")
        await run(driver.execute_script, f"{button}.click()")
        answer = await wait_for(driver, f"return window.shbotAnswers[{count}]")
        if answer.get("alert") and answer.get("text"):  # a pop-up in the chat: the sheet
            assert await run(
                driver.execute_script, "return !document.querySelector('#sheet').hidden"
            )
            sheet = await run(
                driver.execute_script, "return document.querySelector('#sheet-text').innerText"
            )
            assert sheet.strip() == answer["text"].strip()
            await run(driver.execute_script, "document.querySelector('#sheet-back').click()")
            assert await run(
                driver.execute_script, "return document.querySelector('#sheet').hidden"
            )
        await bot.settle()
        return dict(answer)

    return press


async def test_a_whole_game_played_on_the_page_equals_the_buttons(
    store: Store, tmp_path: Path
) -> None:
    users = make_users(7)
    buttons, by_buttons, privately = await played_with_buttons(store, users)
    other = open_store(sqlite_path=str(tmp_path / "page.sqlite3"))
    started = time.monotonic()
    opened: dict[str, Any] = {"calls": []}
    try:
        async with webapp_bot(other) as bot:
            with chrome(
                width=390, height=900, scale=2 if os.environ.get(SCREENSHOT_ENV) else 1
            ) as driver:
                script = TELEGRAM % json.dumps(THEME)
                await run(
                    driver.execute_cdp_cmd,
                    "Page.addScriptToEvaluateOnNewDocument",
                    {"source": script},
                )
                page = await play_scripted(bot, users, page_press(bot, driver, opened))
                calls = opened["calls"] + await run(driver.execute_script, "return window.tgCalls")
                background = await run(
                    driver.execute_script, "return getComputedStyle(document.body).backgroundColor"
                )
                assert await run(page_errors, driver) == []
            assert group_transcript(bot, page) == by_buttons
            for user in users:
                assert private_transcript(bot, page, user) == privately[user.id], user
            bot.h.assert_no_errors()
    finally:
        await other.close()
    assert page.kinds == buttons.kinds and len(page.kinds) == 11, page.kinds
    assert said(page) == said(buttons)
    # Telegram's WebApp API: ready and expanded, its theme, haptics, the BackButton.
    names = [c[0] for c in calls]
    assert {"ready", "expand", "impact", "back.show", "back.hide"} <= set(names)
    assert ["notification", "success"] in calls
    assert background == "rgb(23, 33, 43)"
    print(
        f"\nthe page played {len(page.answers)} presses on {opened['pages']} page loads "
        f"in {time.monotonic() - started:.1f} s"
    )
