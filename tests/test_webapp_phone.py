"""The Mini App on a 360-pixel phone, in headless Chromium (issue 34): the end of a game
readable (names whole, the record folded), the viewer's own seat marked in the lobby, no
empty heading, and the page's retries polite (a 429's Retry-After, a growing wait).
``SHBOT_PHONE_SHOTS=<dir>`` keeps the screenshots."""

from __future__ import annotations

import asyncio
import itertools
import os
import time
from pathlib import Path
from typing import Any

import pytest

from shbot.storage import Store
from tests.botplay import RandomPlay, open_game, play
from tests.browser import chrome, page_errors, require_browser
from tests.harness import FakeUser, make_user, make_users
from tests.test_webapp_browser import page_url, run, text, wait_for
from tests.webapp_bot import webapp, webapp_bot

pytestmark = pytest.mark.usefixtures("browser_present")


@pytest.fixture
def browser_present() -> None:
    require_browser()


def shoot(driver: Any, tmp_path: Path, name: str) -> None:
    target = Path(os.environ.get("SHBOT_PHONE_SHOTS") or tmp_path)
    target.mkdir(parents=True, exist_ok=True)
    driver.save_screenshot(str(target / f"{name}.png"))


#: Every visible heading, and whether its section shows anything beside it.
HEADINGS = """
return [...document.querySelectorAll('h2')].filter((h) => h.offsetParent !== null).map((h) => {
  const box = h.closest('section, details');
  const rest = box ? box.innerText.replace(h.innerText, '').trim() : '';
  return {text: h.innerText.trim(), rest: rest.length};
});
"""

#: Each seat's name: its width, whether it is cut (an ellipsis), its lines.
NAMES = """
return [...document.querySelectorAll('#seats .name')].map((n) => {
  const style = getComputedStyle(n);
  return {text: n.innerText, width: n.getBoundingClientRect().width,
    cut: n.scrollWidth > n.clientWidth + 1 || style.textOverflow === 'ellipsis'
      && style.overflow === 'hidden' && n.scrollWidth > n.clientWidth,
    lines: Math.round(n.getBoundingClientRect().height / parseFloat(style.lineHeight || 20))};
});
"""


async def test_the_lobby_marks_the_viewers_seat_and_shows_no_empty_heading(
    store: Store, tmp_path: Path
) -> None:
    async with webapp_bot(store) as bot:
        users = make_users(5)
        group = await open_game(bot, users, start=False)
        with chrome(width=360, height=800) as driver:
            await run(driver.get, page_url(bot, users[2], group.id))
            await wait_for(driver, "return document.body.dataset.status === 'lobby'")
            mine = await run(
                driver.execute_script,
                "return [...document.querySelectorAll('#seats li.you')].map((li) => li.innerText)",
            )
            assert len(mine) == 1 and users[2].first_name in mine[0], mine
            headings = await run(driver.execute_script, HEADINGS)
            assert headings and all(h["text"] and h["rest"] for h in headings), headings
            assert "record" not in " ".join(h["text"] for h in headings).lower()
            await run(shoot, driver, tmp_path, "lobby-360")
            assert await run(page_errors, driver) == []


async def test_the_end_of_a_game_is_readable_at_360_px(store: Store, tmp_path: Path) -> None:
    async with webapp_bot(store) as bot:
        users: list[FakeUser] = [
            *make_users(8),
            make_user("Maximilian-Alexander"),
            make_user("Anastasia Konstantinova"),
        ]
        group = await open_game(bot, users, seed=34)
        await play(bot, group, users, RandomPlay(34, ja=0.8))
        with chrome(width=360, height=1400, scale=2) as driver:
            await run(driver.get, page_url(bot, users[0], group.id))
            await wait_for(driver, "return document.body.dataset.status === 'over'")
            names = await run(driver.execute_script, NAMES)
            assert len(names) == 10
            for name in names:
                assert not name["cut"] and name["width"] >= 40, name
                assert name["lines"] <= 2, name
            shown = await run(text, driver, "#seats")
            for user in users:
                assert user.first_name in shown
            folded = "return document.querySelector('#record-box').open"
            assert await run(driver.execute_script, folded) is False
            height = await run(driver.execute_script, "return document.body.scrollHeight")
            await run(shoot, driver, tmp_path, "over-360")
            await run(
                driver.execute_script, "document.querySelector('#record-box summary').click()"
            )
            assert await run(driver.execute_script, folded) is True
            assert "Round 1" in await run(text, driver, "#record")
            opened = await run(driver.execute_script, "return document.body.scrollHeight")
            assert opened > height + 500, (height, opened)
            headings = await run(driver.execute_script, HEADINGS)
            assert all(h["text"] and h["rest"] for h in headings), headings
            assert await run(page_errors, driver) == []
        print(f"\ngame over at 360 px: {height} px tall folded, {opened} px unfolded")
        assert height < 3000, height


async def test_the_page_waits_as_a_429_asks_and_longer_each_time(
    store: Store, tmp_path: Path
) -> None:
    """Streams refused (the cap is 0): the page does not hammer the server."""
    async with webapp_bot(store) as bot:
        users = make_users(5)
        group = await open_game(bot, users)
        app = webapp(bot)
        app.max_streams = 0
        seen: list[float] = []
        admit = app.admit

        def counting(user_id: int) -> bool:
            seen.append(time.monotonic())
            return admit(user_id)

        app.admit = counting  # type: ignore[method-assign]
        with chrome(width=360, height=800) as driver:
            await run(driver.get, page_url(bot, users[0], group.id))
            await wait_for(driver, "return document.body.dataset.status === 'running'")
            await asyncio.sleep(12)
            off = "return document.querySelector('#status').className.includes('off')"
            assert await run(driver.execute_script, off)
            app.max_streams = 100  # room again: the page comes back by itself
            await wait_for(
                driver,
                "return !document.querySelector('#status').className.includes('off')",
                timeout=40,
            )
        gaps = [b - a for a, b in itertools.pairwise(seen)]
        # Retry-After is 5 s: at most three tries in the first twelve seconds, never closer
        # than 3.75 s (5 s less a quarter).
        assert 2 <= len(seen) <= 4, seen
        assert all(gap >= 3.7 for gap in gaps), gaps
