"""Logs: one line per event, tagged with chat and game, never the token, roles or hands.

The full-game test sends the bot's API calls through PTB's real HTTP client (httpx) so that
httpx's own request log lines, which contain the token in the URL, are really produced: a
control step first shows they would leak it at INFO, then the bot's logging setup plays a
whole game at INFO and nothing secret reaches either the raw records (caplog) or the
formatted output.
"""

from __future__ import annotations

import contextvars
import io
import logging
import re
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from telegram.request import HTTPXRequest, RequestData

from shbot.bot import logs
from shbot.bot.app import build_application
from shbot.bot.config import Config
from shbot.storage import Store
from tests.botplay import Bot, Played, play_planned, secret_hand_strings
from tests.fake_telegram import FakeBotAPI
from tests.harness import Harness, make_users

TOKEN_SECRET = "AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw"
WEBHOOK_SECRET = "hook-Secret_42"

_pending: contextvars.ContextVar[RequestData | None] = contextvars.ContextVar("pending")


class HttpxToFake(HTTPXRequest):
    """PTB's httpx client, its transport answered by the fake Bot API (no network)."""

    def __init__(self, fake: FakeBotAPI) -> None:
        self.fake = fake
        super().__init__(httpx_kwargs={"transport": httpx.MockTransport(self._answer)})

    async def do_request(  # type: ignore[override]
        self, url: str, method: str, request_data: RequestData | None = None, **kw: Any
    ) -> tuple[int, bytes]:
        token = _pending.set(request_data)  # the fake reads parameters, not the form body
        try:
            return await super().do_request(url, method, request_data, **kw)
        finally:
            _pending.reset(token)

    async def _answer(self, request: httpx.Request) -> httpx.Response:
        status, body = await self.fake.do_request(str(request.url), "POST", _pending.get())
        return httpx.Response(status, content=body)


@pytest.fixture
def restore_logging() -> Iterator[None]:
    """Undo logs.configure: root handlers and level, the quieted loggers' levels."""
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    noisy = {name: logging.getLogger(name).level for name in logs.NOISY}
    try:
        yield
    finally:
        for handler in root.handlers[:]:
            if handler not in handlers:
                root.removeHandler(handler)
        root.setLevel(level)
        for name, old in noisy.items():
            logging.getLogger(name).setLevel(old)
        logs.bind(chat=None, game=None)


# --------------------------------------------------------------------------- formatting


def record(message: str, *args: object, exc: bool = False, **extra: object) -> logging.LogRecord:
    rec = logging.LogRecord("shbot.test", logging.INFO, __file__, 1, message, args, None)
    if exc:
        try:
            raise ValueError("line one\nline two")
        except ValueError:
            import sys

            rec.exc_info = sys.exc_info()
    rec.__dict__.update(extra)
    return rec


def test_formatter_blanks_secrets_and_keeps_one_line() -> None:
    token = f"123456:{TOKEN_SECRET}"
    formatter = logs.OneLineFormatter([token, WEBHOOK_SECRET])
    line = formatter.format(
        record("GET https://api.telegram.org/bot%s/getMe with %s", token, WEBHOOK_SECRET, exc=True)
    )
    assert "\n" not in line and "line one\\nline two" in line and "Traceback" in line
    assert TOKEN_SECRET not in line and WEBHOOK_SECRET not in line
    assert "/bot[redacted]/getMe with [redacted]" in line
    assert " chat=- game=- " in line  # a record outside any update


def test_context_tags_come_from_bind_or_extra(restore_logging: None) -> None:
    stream = io.StringIO()
    logs.configure("INFO", stream=stream)
    log = logging.getLogger("shbot.test")
    logs.bind(chat=-100123, game="g1")
    log.info("inside")
    log.info("explicit", extra={"chat": 42, "game": "g2"})
    logs.bind(chat=-100456)  # another chat: the game tag no longer applies
    log.info("other chat")
    lines = stream.getvalue().splitlines()
    assert [line.split(" ", 3)[3] for line in lines] == [
        "shbot.test chat=-100123 game=g1 inside",
        "shbot.test chat=42 game=g2 explicit",
        "shbot.test chat=-100456 game=- other chat",
    ]


def test_configure_twice_does_not_double_lines(restore_logging: None) -> None:
    first, second = io.StringIO(), io.StringIO()
    logs.configure("INFO", stream=first)
    logs.configure("WARNING", stream=second)
    logging.getLogger("shbot.test").warning("once")
    assert first.getvalue() == "" and second.getvalue().count("once") == 1
    assert logging.getLogger("httpx").getEffectiveLevel() == logging.WARNING


# --------------------------------------------------------------------------- a whole game


def leaks(line: str, played: Played, private_texts: list[str], token: str) -> list[str]:
    """What in ``line`` reveals a secret."""
    found = [s for s in (token, TOKEN_SECRET, WEBHOOK_SECRET) if s in line]
    found += [text for text in private_texts if text in line]
    found += [h for h in secret_hand_strings(logs_t()) if h in line]
    # Outcomes such as "hitler_executed" are public at the end; other role words are not.
    words = re.sub(r"\w*_\w*", "", line)
    found += re.findall(r"(?i)\b(?:liberal|fascist|hitler)s?\b", words)
    found += re.findall(r"\b[LF]{2,3}\b|'[LFH]'|\b[LFH]{5,10}\b", line)  # hands, roles
    for seat, user in enumerate(played.users):
        role = played.game.roles[seat]
        for ident in (str(user.id), user.first_name):
            if re.search(rf"\b{re.escape(ident)}\b.*\b{role}\b", line):
                found.append(f"{ident} with role {role}")
    return found


def logs_t() -> Any:
    from shbot.i18n import translator

    return translator("en")


async def test_full_game_at_info_logs_no_token_role_or_hand(
    store: Store, caplog: pytest.LogCaptureFixture, restore_logging: None
) -> None:
    fake = FakeBotAPI()
    token = f"{fake.bot_id}:{TOKEN_SECRET}"
    config = Config(token=token, webhook_secret=WEBHOOK_SECRET)
    app = build_application(config, store, request=HttpxToFake(fake), menus=False)
    app.bot._rate_limiter = None  # full speed, as in tests.botplay.running_bot
    app.bot_data["svc"].outbox.pacer.enabled = False
    caplog.set_level(logging.INFO)

    async with Harness(app, fake) as h:
        # Control: httpx is really on the path, and at INFO it would log the token.
        logging.getLogger("httpx").setLevel(logging.INFO)
        await app.bot.get_me()
        assert any(token in r.getMessage() for r in caplog.records if r.name == "httpx")
        caplog.clear()

        stream = io.StringIO()
        logs.configure(config.log_level, config.secrets, stream=stream)
        bot = Bot(fake, h, store, app)
        users = make_users(7)
        # Investigation (private result), special election, five Liberal policies.
        played = await play_planned(bot, users, ["L", "F", "F", "L", "F", "L", "L", "L"], hitler=2)
        await bot.settle()
        h.assert_no_errors()

    assert played.game.is_over
    private_texts = [
        line
        for user in users
        for message in fake.messages(user.id)
        if message.from_bot
        for line in message.plain_text.splitlines()
        if len(line) >= 12
    ]
    assert any("secret role" in text for text in private_texts)  # roles were dealt in private
    raw = [r.getMessage() for r in caplog.records]
    output = stream.getvalue().splitlines()
    assert raw and output
    for line in raw + output:
        assert not leaks(line, played, private_texts, token), line
    assert not [r for r in caplog.records if r.name.startswith(("httpx", "httpcore"))]

    # One line per event, tagged with the group and the game.
    gid, group = played.table.gid, played.group.id
    (started,) = [line for line in output if f"game {gid} started" in line]
    (ended,) = [line for line in output if f"game {gid} in chat {group} ended" in line]
    for line in (started, ended):
        assert f" chat={group} game={gid} " in line
    assert len(output) == len([r for r in caplog.records if r.levelno >= logging.INFO])
