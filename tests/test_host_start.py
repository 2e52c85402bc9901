"""What a host meets starting ``shbot run``, beyond the configuration: one line each.

A second process polling with the same token, an ``SHBOT_API_URL`` that is not a Bot API,
a webhook port already taken (the webhook must not stay registered), and the README's own
example token. The processes are real and talk HTTP to the fake Bot API.
"""

from __future__ import annotations

import re
import socket
from pathlib import Path
from types import SimpleNamespace

import pytest
from telegram.error import Conflict
from telegram.ext import ApplicationHandlerStop

from shbot.bot import start_guards
from shbot.bot.config import TOKEN_RE, load_config
from tests.http_bot_api import TOKEN, PollingBotAPI, free_port, served
from tests.test_operations import assert_one_clear_line, run_to_the_end

ROOT = Path(__file__).resolve().parent.parent
CONFLICT = (
    "Conflict: terminated by other getUpdates request; make sure that only one bot instance "
    "is running"
)


async def test_a_second_poller_stops_with_one_line(tmp_path: Path) -> None:
    fake = PollingBotAPI()
    # Telegram answers 409 to one of two pollers at a time, for as long as both poll.
    fake.fail_next_with(409, CONFLICT, method="getUpdates", times=100_000)
    async with served(fake) as api:
        status, output = await run_to_the_end(
            tmp_path, timeout=40, BOT_TOKEN=TOKEN, SHBOT_API_URL=api
        )
    assert status == 2, output
    last = assert_one_clear_line(output, "shbot: BOT_TOKEN: another process is already polling")
    assert "409 Conflict" in last and "only one bot instance" in last
    # One line about it, not one per retry.
    assert sum("Conflict" in line for line in output.splitlines()) == 1, output
    assert TOKEN not in output


async def test_a_poller_past_its_grace_keeps_polling_and_warns_once_a_minute(
    caplog: pytest.LogCaptureFixture,
) -> None:
    now = [0.0]
    stopped: list[bool] = []
    guard = start_guards.PollingConflict(lambda: stopped.append(True), clock=lambda: now[0])
    context = SimpleNamespace(error=Conflict(CONFLICT))
    for moment in (31.0, 40.0, 80.0, 95.0):  # past the 30 s grace: the other one is new
        now[0] = moment
        with pytest.raises(ApplicationHandlerStop):
            await guard(None, context)  # type: ignore[arg-type]
    assert not stopped and guard.fatal is None
    warnings = [r for r in caplog.records if "another process polls" in r.getMessage()]
    assert len(warnings) == 2  # at 31 s and 95 s: at most one a minute


async def test_a_conflict_right_after_start_stops_this_process_once() -> None:
    stopped: list[bool] = []
    guard = start_guards.PollingConflict(lambda: stopped.append(True), clock=lambda: 5.0)
    for _ in range(3):
        with pytest.raises(ApplicationHandlerStop):
            await guard(None, SimpleNamespace(error=Conflict(CONFLICT)))  # type: ignore[arg-type]
    assert stopped == [True] and guard.fatal == CONFLICT
    # Other errors are not its business.
    await guard(None, SimpleNamespace(error=ValueError("x")))  # type: ignore[arg-type]


async def test_an_api_url_with_a_wrong_path_is_named_not_the_token(tmp_path: Path) -> None:
    fake = PollingBotAPI()
    async with served(fake) as api:
        wrong = f"{api}/telegram"  # the server answers 404 to /telegram/bot<token>/getMe
        status, output = await run_to_the_end(tmp_path, BOT_TOKEN=TOKEN, SHBOT_API_URL=wrong)
    assert status == 2, output
    last = assert_one_clear_line(output, f"shbot: SHBOT_API_URL: {wrong} answered ")
    # PTB 22.1+ sees the 404; 22.0 sees the HTML page that is not JSON: either is named.
    assert "404 Not Found" in last or "not JSON" in last, last
    assert "no Bot API server there" in last
    assert "BOT_TOKEN" not in last and TOKEN not in output


async def test_a_taken_webhook_port_stops_before_registering_the_webhook(tmp_path: Path) -> None:
    fake = PollingBotAPI()
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        async with served(fake) as api:
            status, output = await run_to_the_end(
                tmp_path,
                BOT_TOKEN=TOKEN,
                SHBOT_API_URL=api,
                SHBOT_WEBHOOK_URL="https://bot.example.org/hook",
                SHBOT_WEBHOOK_LISTEN="127.0.0.1",
                SHBOT_WEBHOOK_PORT=str(port),
            )
    assert status == 2, output
    last = assert_one_clear_line(output, "shbot: SHBOT_WEBHOOK_LISTEN/SHBOT_WEBHOOK_PORT: ")
    assert f"cannot listen on 127.0.0.1:{port}: Address already in use" in last
    methods = [call.method.lower() for call in fake.calls]
    assert "setwebhook" not in methods  # nothing registered that would point at no bot


async def test_a_webhook_registered_before_a_failed_bind_is_removed_again(tmp_path: Path) -> None:
    fake = PollingBotAPI()
    async with served(fake) as api:
        config = load_config(
            {
                "BOT_TOKEN": TOKEN,
                "SHBOT_API_URL": api,
                "SHBOT_WEBHOOK_URL": "https://bot.example.org/hook",
                "SHBOT_DB": str(tmp_path / "db.sqlite3"),
            }
        )
        await start_guards.forget_webhook(config)
    assert [call.method.lower() for call in fake.calls][-1] == "deletewebhook"


def test_a_free_port_is_free_and_a_taken_one_is_named() -> None:
    port = free_port()
    assert start_guards.port_problem("127.0.0.1", port) is None
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", port))
        taken.listen()
        assert start_guards.port_problem("127.0.0.1", port) == "Address already in use"


def test_the_readme_example_token_passes_the_bots_own_check() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    examples = set(re.findall(r"BOT_TOKEN=(\S+:\S+?)(?=[\s`])", readme))
    assert examples, "the README shows no example token"
    bad = [token for token in examples if not TOKEN_RE.match(token)]
    assert not bad, f"README example tokens the bot would refuse: {bad}"
