"""``shbot run`` as a host runs it: a real process, the Bot API over HTTP, the exit status.

Each start-up failure an operator can meet ends with one line on stderr naming the setting
(and the path), a non-zero exit status and no traceback; the Bot API being unreachable at
start-up is waited for, one log line per attempt; the token never appears in any output.
"""

from __future__ import annotations

import asyncio
import re
import shutil
import sys
from pathlib import Path

from tests.http_bot_api import (
    OTHER_TOKEN,
    TOKEN,
    PollingBotAPI,
    bot_env,
    free_port,
    served,
    stop,
)

ROOT = Path(__file__).resolve().parent.parent
RUN = [sys.executable, "-m", "shbot", "run"]


async def start(tmp_path: Path, *argv: str, **values: str) -> asyncio.subprocess.Process:
    return await asyncio.create_subprocess_exec(
        *(argv or RUN),
        cwd=tmp_path,
        env=bot_env(tmp_path, **values),
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )


async def run_to_the_end(tmp_path: Path, timeout: float = 60, **values: str) -> tuple[int, str]:
    """Run ``shbot run`` until it exits by itself; returns (status, stdout + stderr)."""
    process = await start(tmp_path, **values)
    try:
        out, err = await asyncio.wait_for(process.communicate(), timeout)
    finally:
        if process.returncode is None:  # timed out: no bot left polling after the test
            process.kill()
            await process.wait()
    assert process.returncode is not None
    return process.returncode, out.decode() + err.decode()


def assert_one_clear_line(output: str, start: str) -> str:
    """The last line is the reason, and nothing looks like a traceback."""
    last = output.strip().splitlines()[-1]
    assert last.startswith(start), output
    assert "Traceback" not in output and 'File "' not in output, output
    return last


async def test_rejected_token_is_one_line_and_never_printed(tmp_path: Path) -> None:
    fake = PollingBotAPI()
    async with served(fake) as api:
        status, output = await run_to_the_end(
            tmp_path, BOT_TOKEN=OTHER_TOKEN, SHBOT_API_URL=api, SHBOT_LOG_LEVEL="DEBUG"
        )
    assert status == 2, output
    assert_one_clear_line(output, f"shbot: BOT_TOKEN was rejected by the Bot API at {api}")
    # Neither the token nor its secret half, anywhere (DEBUG logs included).
    secret_half = OTHER_TOKEN.split(":", 1)[1]
    assert OTHER_TOKEN not in output and secret_half not in output
    assert fake.calls == []  # refused before the fake's methods: HTTP 401 at the door


async def test_unreachable_api_is_retried_with_backoff_then_the_bot_runs(tmp_path: Path) -> None:
    port = free_port()  # nothing listens there yet
    api = f"http://127.0.0.1:{port}"
    process = await start(tmp_path, BOT_TOKEN=TOKEN, SHBOT_API_URL=api)
    assert process.stderr is not None
    attempts: list[str] = []
    try:
        while len(attempts) < 2:
            line = (await asyncio.wait_for(process.stderr.readline(), 30)).decode()
            assert line, "the bot exited instead of retrying"
            if "unreachable" in line:
                attempts.append(line)
        fake = PollingBotAPI()
        async with served(fake, port):  # the network comes up
            user = {"id": 424242, "is_bot": False, "first_name": "Ana", "language_code": "en"}
            fake.send(user, "/help")
            (reply,) = await fake.reply_to(user["id"], 1)
            assert "/newgame" in reply
            out, err = await stop(process)
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
    assert process.returncode == 0
    for number, line in enumerate(attempts, start=1):
        assert re.search(
            rf"WARNING shbot\.bot\.main .*Bot API at {re.escape(api)} unreachable "
            rf"\(attempt {number}: .+\); retrying in {2 ** (number - 1)} s$",
            line.rstrip("\n"),
        ), line
    assert f"Bot API at {api}: logged in as @" in err
    assert TOKEN not in "".join(attempts) + out + err


async def test_refused_webhook_is_one_line(tmp_path: Path) -> None:
    fake = PollingBotAPI()
    refusal = "Bad Request: bad webhook: Failed to resolve host: Name or service not known"
    fake.fail_next_with(400, refusal, method="setWebhook")
    hook = "https://bot.invalid/hook"
    async with served(fake) as api:
        status, output = await run_to_the_end(
            tmp_path,
            BOT_TOKEN=TOKEN,
            SHBOT_API_URL=api,
            SHBOT_WEBHOOK_URL=hook,
            SHBOT_WEBHOOK_LISTEN="127.0.0.1",
            SHBOT_WEBHOOK_PORT=str(free_port()),
        )
    assert status == 2, output
    refused = "shbot: SHBOT_WEBHOOK_URL: the Bot API refused the webhook"
    last = assert_one_clear_line(output, refused)
    assert hook in last and "failed to resolve host" in last.lower()
    assert TOKEN not in output


async def test_sqlite_file_that_is_not_a_database(tmp_path: Path) -> None:
    bad = tmp_path / "games.sqlite3"
    bad.write_bytes(b"PK\x03\x04 certainly not SQLite " * 40)
    status, output = await run_to_the_end(tmp_path, BOT_TOKEN=TOKEN, SHBOT_DB=str(bad))
    assert status == 2, output
    last = assert_one_clear_line(output, "shbot: SHBOT_DB: ")
    assert last == f"shbot: SHBOT_DB: {bad} is not an SQLite database (file is not a database)"


async def test_misspelt_variable_stops_the_start(tmp_path: Path) -> None:
    status, output = await run_to_the_end(
        tmp_path, BOT_TOKEN=TOKEN, SHBOT_REDIS_ULR="redis://redis:6379/0"
    )
    assert status == 2, output
    assert output == "shbot: SHBOT_REDIS_ULR: unknown variable, did you mean REDIS_URL?\n"


async def test_missing_catalogs_stop_the_start_naming_the_path(tmp_path: Path) -> None:
    locales = tmp_path / "locales"
    locales.mkdir()
    status, output = await run_to_the_end(tmp_path, BOT_TOKEN=TOKEN, SHBOT_LOCALES=str(locales))
    assert status == 2, output
    last = assert_one_clear_line(output, "shbot: translations unavailable: no en catalog at ")
    assert str(locales / "en" / "LC_MESSAGES" / "shbot.po") in last


async def test_damaged_catalog_stops_the_start_naming_the_file(tmp_path: Path) -> None:
    locales = tmp_path / "locales"
    shutil.copytree(ROOT / "locales", locales, ignore=shutil.ignore_patterns("*.mo", "ja"))
    damaged = locales / "ja" / "LC_MESSAGES" / "shbot.mo"  # compiled only, like the wheel's
    damaged.parent.mkdir(parents=True)
    damaged.write_bytes(b"\x00" * 64)
    status, output = await run_to_the_end(tmp_path, BOT_TOKEN=TOKEN, SHBOT_LOCALES=str(locales))
    assert status == 2, output
    last = assert_one_clear_line(output, "shbot: translations unavailable: cannot read the ja ")
    assert str(damaged) in last
