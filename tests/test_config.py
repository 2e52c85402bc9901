"""Configuration: every variable's default, accepted values and one-line errors naming it."""

from __future__ import annotations

import os
import re
import tempfile
import time
from pathlib import Path

import pytest

from shbot.bot import main as bot_main
from shbot.bot.config import (
    MEANINGS,
    TELEGRAM_API,
    VARIABLES,
    Config,
    ConfigError,
    derive_webhook_secret,
    load_config,
)
from shbot.cli import main as cli_main

ROOT = Path(__file__).resolve().parent.parent
TOKEN = "123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw"
SECRET_PART = TOKEN.split(":", 1)[1]


def env(**values: str) -> dict[str, str]:
    return {"BOT_TOKEN": TOKEN, **values}


def error_for(values: dict[str, str]) -> str:
    with pytest.raises(ConfigError) as info:
        load_config(values)
    return str(info.value)


def test_defaults() -> None:
    config = load_config(env())
    assert config == Config(
        token=TOKEN,
        api_url=TELEGRAM_API,
        db_path="shbot.sqlite3",
        redis_url=None,
        redis_prefix="shbot:",
        history_days=30.0,
        lobby_minutes=60.0,
        log_level="INFO",
        webhook_url=None,
        webhook_listen="0.0.0.0",
        webhook_port=8443,
        webhook_secret=derive_webhook_secret(TOKEN),
    )
    assert config.webhook_path == "/"


def test_empty_values_mean_unset() -> None:
    """docker compose passes ``${VAR:-}`` through as an empty string."""
    blank = {name: "" for name in VARIABLES if name != "BOT_TOKEN"}
    assert load_config({**blank, "BOT_TOKEN": TOKEN}) == load_config(env())


def test_every_value_read(tmp_path: Path) -> None:
    config = load_config(
        env(
            SHBOT_API_URL="http://127.0.0.1:8081",
            SHBOT_DB=str(tmp_path / "games.db"),
            REDIS_URL="redis://:pw@redis:6379/2",
            SHBOT_REDIS_PREFIX="sh1:",
            SHBOT_HISTORY_DAYS="7.5",
            SHBOT_LOBBY_MINUTES="15",
            SHBOT_LOG_LEVEL="debug",
            SHBOT_WEBHOOK_URL="http://bot.internal:8080/tg/updates",
            SHBOT_WEBHOOK_LISTEN="::",
            SHBOT_WEBHOOK_PORT="8080",
            SHBOT_WEBHOOK_SECRET="my_Secret-42",
            SHBOT_LOCALES=str(ROOT / "locales"),
        )
    )
    assert config.base_url == "http://127.0.0.1:8081/bot"
    assert config.redis_url == "redis://:pw@redis:6379/2"
    assert (config.redis_prefix, config.history_days, config.lobby_minutes) == ("sh1:", 7.5, 15)
    assert config.log_level == "DEBUG"
    assert config.webhook_url == "http://bot.internal:8080/tg/updates"
    assert config.webhook_path == "/tg/updates"
    assert (config.webhook_listen, config.webhook_port) == ("::", 8080)
    assert config.webhook_secret == "my_Secret-42"
    assert config.secrets == (TOKEN, "my_Secret-42")


def test_derived_webhook_secret_is_stable_valid_and_hides_the_token() -> None:
    secret = load_config(env(SHBOT_WEBHOOK_URL="https://example.org/hook")).webhook_secret
    assert secret == derive_webhook_secret(TOKEN)  # same on every restart and replica
    assert re.fullmatch(r"[A-Za-z0-9_-]{1,256}", secret)  # Telegram's rule
    assert SECRET_PART not in secret
    assert secret != derive_webhook_secret("987654:" + "B" * 35)


# Each bad value, and a fragment the one-line error must contain besides the variable name.
BAD: list[tuple[str, str, str]] = [
    ("BOT_TOKEN", "not-a-token", "does not look like a bot token"),
    ("BOT_TOKEN", "123456:short", "does not look like a bot token"),
    ("SHBOT_API_URL", "ftp://example.org", "http(s) URL"),
    ("SHBOT_API_URL", "api.telegram.org", "http(s) URL"),
    ("SHBOT_API_URL", "http://host:99999", "not a valid URL"),
    ("SHBOT_DB", "/no/such/directory/shbot.sqlite3", "does not exist"),
    ("SHBOT_DB", "/", "is a directory"),
    ("REDIS_URL", "localhost:6379", "must start with"),
    ("REDIS_URL", "redis://:secretpw@host:port/0", "malformed host or port"),
    ("REDIS_URL", "redis://:secretpw@host:6379/zero", "must be a number"),
    ("REDIS_URL", "redis:///0", "no host"),
    ("SHBOT_REDIS_PREFIX", "sh{bot}:", "braces"),
    ("SHBOT_REDIS_PREFIX", "sh bot:", "spaces"),
    ("SHBOT_HISTORY_DAYS", "thirty", "must be a number"),
    ("SHBOT_HISTORY_DAYS", "0", "positive"),
    ("SHBOT_HISTORY_DAYS", "nan", "positive"),
    ("SHBOT_LOBBY_MINUTES", "-5", "positive"),
    ("SHBOT_LOBBY_MINUTES", "inf", "positive"),
    ("SHBOT_LOG_LEVEL", "LOUD", "DEBUG, INFO, WARNING or ERROR"),
    ("SHBOT_WEBHOOK_URL", "bot.example.org/hook", "http(s) URL"),
    ("SHBOT_WEBHOOK_URL", "http://bot.example.org/hook", "https:// for Telegram"),
    ("SHBOT_WEBHOOK_URL", "https://bot.example.org:8080/hook", "only calls ports"),
    ("SHBOT_WEBHOOK_URL", "https://bot.example.org/hook#x", "fragment"),
    ("SHBOT_WEBHOOK_LISTEN", "0.0.0.0:8443", "IP address or a host name"),
    ("SHBOT_WEBHOOK_LISTEN", "two words", "IP address or a host name"),
    ("SHBOT_WEBHOOK_PORT", "http", "port number"),
    ("SHBOT_WEBHOOK_PORT", "0", "port number"),
    ("SHBOT_WEBHOOK_PORT", "70000", "port number"),
    ("SHBOT_WEBHOOK_PORT", "²", "port number"),
    ("SHBOT_WEBHOOK_SECRET", "has spaces in it", "1 to 256 characters"),
    ("SHBOT_WEBHOOK_SECRET", "x" * 257, "1 to 256 characters"),
    ("SHBOT_WEBAPP_URL", "table.example.org", "http(s) URL"),
    ("SHBOT_WEBAPP_URL", "http://table.example.org/", "https:// for Telegram"),
    ("SHBOT_WEBAPP_URL", "https://table.example.org/?x=1", "no ?query"),
    ("SHBOT_WEBAPP_LISTEN", "0.0.0.0:8080", "IP address or a host name"),
    ("SHBOT_WEBAPP_PORT", "0", "port number"),
    ("SHBOT_WEBAPP_PORT", "http", "port number"),
    ("SHBOT_LOCALES", "/no/such/locales", "directory of catalogs"),
    ("SHBOT_TIMERS", "forever", "must be one of"),
]


@pytest.mark.parametrize(
    ("name", "value", "fragment"), BAD, ids=[f"{n}={v[:20]}" for n, v, _ in BAD]
)
def test_bad_value_is_one_line_naming_the_variable(name: str, value: str, fragment: str) -> None:
    message = error_for({**env(), name: value})
    assert message.startswith(name), message
    assert fragment in message
    assert "\n" not in message
    assert SECRET_PART not in message and "secretpw" not in message  # secrets never echoed


def test_every_variable_has_a_bad_value_test() -> None:
    assert set(VARIABLES) == {name for name, _, _ in BAD}


def test_missing_token() -> None:
    assert error_for({}).startswith("BOT_TOKEN is not set")
    assert error_for({"BOT_TOKEN": "   "}).startswith("BOT_TOKEN is not set")


def test_sqlite_path_is_not_checked_with_redis() -> None:
    config = load_config(env(REDIS_URL="redis://redis:6379/0", SHBOT_DB="/no/such/dir/x.db"))
    assert config.redis_url == "redis://redis:6379/0"


def test_self_hosted_api_may_take_plain_http_webhooks_on_any_port() -> None:
    config = load_config(
        env(SHBOT_API_URL="http://bot-api:8081", SHBOT_WEBHOOK_URL="http://shbot:9000/")
    )
    assert config.webhook_url == "http://shbot:9000/"
    # ...and Telegram's ports are accepted with Telegram's API.
    for port in (443, 80, 88, 8443):
        assert load_config(env(SHBOT_WEBHOOK_URL=f"https://x.org:{port}/h")).webhook_port == 8443


def test_webapp_values_are_read() -> None:
    config = load_config(
        env(
            SHBOT_WEBAPP_URL="https://games.example.org/table/",
            SHBOT_WEBAPP_LISTEN="127.0.0.1",
            SHBOT_WEBAPP_PORT="9090",
        )
    )
    assert config.webapp_url == "https://games.example.org/table/"
    assert config.webapp_path == "/table"
    assert (config.webapp_listen, config.webapp_port) == ("127.0.0.1", 9090)
    assert load_config(env()).webapp_url is None


def test_webapp_port_must_not_be_the_webhook_port() -> None:
    message = error_for(
        env(
            SHBOT_WEBHOOK_URL="https://x.org/hook",
            SHBOT_WEBHOOK_PORT="8080",
            SHBOT_WEBAPP_URL="https://x.org/table",
        )
    )
    assert message.startswith("SHBOT_WEBAPP_PORT must differ")


def test_readme_table_lists_every_variable_with_its_default() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Configuration", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| `([A-Z_]+)` \| ([^|]+) \|", section, flags=re.M)
    table = {name: default.strip().strip("`") for name, default in rows}
    assert table == VARIABLES


@pytest.mark.parametrize(
    ("name", "suggestion"),
    [
        ("SHBOT_REDIS_ULR", "REDIS_URL"),
        ("SHBOT_REDIS_URL", "REDIS_URL"),
        ("SHBOT_WEBHOOK_ULR", "SHBOT_WEBHOOK_URL"),
        ("SHBOT_WEBHOOKPORT", "SHBOT_WEBHOOK_PORT"),
        ("SHBOT_TIMER", "SHBOT_TIMERS"),
        ("SHBOT_WEBAP_URL", "SHBOT_WEBAPP_URL"),
        ("SHBOT_BOT_TOKEN", "BOT_TOKEN"),
        ("shbot_db", "SHBOT_DB"),
    ],
)
def test_misspelt_variable_is_reported_with_the_closest_name(name: str, suggestion: str) -> None:
    """A typo would otherwise be ignored in silence (polling instead of the webhook...)."""
    message = error_for({**env(), name: "x"})
    assert message == f"{name}: unknown variable, did you mean {suggestion}?"


def test_unknown_variable_without_a_close_name_points_to_the_help() -> None:
    assert error_for({**env(), "SHBOT_FOO": "1"}) == (
        "SHBOT_FOO: unknown variable, see shbot run --help"
    )
    # Variables of other programs are none of the bot's business.
    assert load_config({**env(), "REDIS_HOST": "x", "TOKEN": "y"}).redis_url is None


def test_every_variable_has_a_meaning_for_the_help() -> None:
    assert set(MEANINGS) == set(VARIABLES)


# --------------------------------------------------------------------------- entry points


def test_run_with_bad_config_prints_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("BOT_TOKEN", TOKEN)
    monkeypatch.setenv("SHBOT_WEBHOOK_PORT", "eighty")
    assert cli_main(["run"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1
    assert err.startswith("shbot: SHBOT_WEBHOOK_PORT ")


@pytest.fixture
def heartbeat_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private temp dir, where ``shbot run`` and ``shbot health`` meet (the heartbeat)."""
    target = tmp_path / "tmp"
    target.mkdir()
    monkeypatch.setenv("TMPDIR", str(target))
    monkeypatch.setattr(tempfile, "tempdir", None)  # gettempdir() reads TMPDIR again
    return target


def beat(config_env: dict[str, str], age: float = 0.0) -> Path:
    """Touch the heartbeat a polling bot of this configuration writes, ``age`` s ago."""
    path = bot_main.heartbeat_path(load_config(config_env))
    path.write_text("1\n")
    stamp = time.time() - age
    os.utime(path, (stamp, stamp))
    return path


def test_health_ok_on_sqlite_with_a_running_bot(
    tmp_path: Path, heartbeat_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    values = env(SHBOT_DB=str(tmp_path / "h.sqlite3"))
    path = beat(values)
    assert path.parent == heartbeat_dir
    assert bot_main.check_health(values) == 0
    assert capsys.readouterr().out == "healthy\n"


def test_health_polling_without_a_bot_says_so(
    tmp_path: Path, heartbeat_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    values = env(SHBOT_DB=str(tmp_path / "h.sqlite3"))
    assert bot_main.check_health(values) == 1
    err = capsys.readouterr().err
    assert err.startswith("unhealthy: no bot running: ") and err.count("\n") == 1
    assert str(heartbeat_dir / "shbot-123456789.heartbeat") in err
    beat(values, age=bot_main.HEARTBEAT_STALE + 30)
    assert bot_main.check_health(values) == 1
    err = capsys.readouterr().err
    assert err.startswith("unhealthy: bot not responding: ") and " s old" in err


def test_health_checks_the_catalogs(
    tmp_path: Path, heartbeat_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    empty = tmp_path / "locales"
    empty.mkdir()
    values = env(SHBOT_DB=str(tmp_path / "h.sqlite3"), SHBOT_LOCALES=str(empty))
    beat(values)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("SHBOT_LOCALES", str(empty))  # read by shbot.i18n from the environment
        assert bot_main.check_health(values) == 1
    err = capsys.readouterr().err
    assert err.startswith("unhealthy: translations unavailable: no en catalog at ")
    assert str(empty) in err and err.count("\n") == 1


def test_health_sqlite_file_that_is_not_a_database(
    tmp_path: Path, heartbeat_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "notes.sqlite3"
    bad.write_text("these are my notes, not a database\n" * 10)
    assert bot_main.check_health(env(SHBOT_DB=str(bad))) == 1
    err = capsys.readouterr().err
    assert err == f"unhealthy: SHBOT_DB: {bad} is not an SQLite database (file is not a database)\n"


def test_health_bad_config_is_unhealthy(capsys: pytest.CaptureFixture[str]) -> None:
    assert bot_main.check_health({"BOT_TOKEN": "nope"}) == 1
    err = capsys.readouterr().err
    assert err.startswith("unhealthy: BOT_TOKEN ") and err.count("\n") == 1


def test_health_unreachable_redis_is_unhealthy(capsys: pytest.CaptureFixture[str]) -> None:
    import socket

    with socket.socket() as s:  # a port with nothing listening
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"redis://:secretpw@127.0.0.1:{port}/0"
    assert bot_main.check_health(env(REDIS_URL=url)) == 1
    err = capsys.readouterr().err
    assert err.startswith("unhealthy: REDIS_URL: Redis unavailable") and err.count("\n") == 1
    assert "secretpw" not in err


def test_health_webhook_mode_needs_the_listener(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import socket

    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        port = listener.getsockname()[1]
        values = env(
            SHBOT_DB=str(tmp_path / "h.sqlite3"),
            SHBOT_WEBHOOK_URL="https://bot.example.org/hook",
            SHBOT_WEBHOOK_PORT=str(port),
        )
        assert bot_main.check_health(values) == 0  # 0.0.0.0 is probed on loopback
    assert bot_main.check_health(values) == 1
    assert "no webhook listener" in capsys.readouterr().err


def test_health_subcommand(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, heartbeat_dir: Path
) -> None:
    monkeypatch.setenv("BOT_TOKEN", TOKEN)
    monkeypatch.setenv("SHBOT_DB", str(tmp_path / "h.sqlite3"))
    monkeypatch.delenv("REDIS_URL", raising=False)
    monkeypatch.delenv("SHBOT_WEBHOOK_URL", raising=False)
    beat(env(SHBOT_DB=str(tmp_path / "h.sqlite3")))
    assert cli_main(["health"]) == 0
    monkeypatch.setenv("SHBOT_LOG_LEVEL", "chatty")
    assert cli_main(["health"]) == 1
