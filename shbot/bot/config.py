"""Configuration from environment variables, checked once at start-up.

A bad value stops the bot with one line naming the variable, never a traceback. An empty
value means unset (so ``docker compose`` can pass ``${VAR:-}`` through). Messages never
echo a value that may hold a secret (the token, a Redis password, the webhook secret).
"""

from __future__ import annotations

import difflib
import hashlib
import hmac
import ipaddress
import math
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

TOKEN_RE = re.compile(r"^\d{3,}:[A-Za-z0-9_-]{30,}$")
TELEGRAM_API = "https://api.telegram.org"
#: Telegram's rule for ``secret_token`` in setWebhook.
SECRET_RE = re.compile(r"^[A-Za-z0-9_-]{1,256}$")
HOSTNAME_RE = re.compile(r"^[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?$")
#: The only ports Telegram delivers webhooks to.
TELEGRAM_WEBHOOK_PORTS = (443, 80, 88, 8443)

#: Every variable the bot reads, with its default as the README shows it (a test keeps the
#: README's Configuration table and this list identical).
VARIABLES: dict[str, str] = {
    "BOT_TOKEN": "(required)",
    "SHBOT_API_URL": TELEGRAM_API,
    "SHBOT_DB": "shbot.sqlite3",
    "REDIS_URL": "(unset)",
    "SHBOT_REDIS_PREFIX": "shbot:",
    "SHBOT_HISTORY_DAYS": "30",
    "SHBOT_LOBBY_MINUTES": "60",
    "SHBOT_LOG_LEVEL": "INFO",
    "SHBOT_WEBHOOK_URL": "(unset)",
    "SHBOT_WEBHOOK_LISTEN": "0.0.0.0",
    "SHBOT_WEBHOOK_PORT": "8443",
    "SHBOT_WEBHOOK_SECRET": "(derived from the token)",
    "SHBOT_WEBAPP_URL": "(unset)",
    "SHBOT_WEBAPP_LISTEN": "127.0.0.1",
    "SHBOT_WEBAPP_PORT": "8080",
    "SHBOT_LOCALES": "(the bundled locales/)",
    "SHBOT_TIMERS": "normal",
}


#: One line per variable for ``shbot run --help`` and ``shbot health --help``.
MEANINGS: dict[str, str] = {
    "BOT_TOKEN": "the token from @BotFather",
    "SHBOT_API_URL": "Bot API server",
    "SHBOT_DB": "SQLite file (when REDIS_URL is not set)",
    "REDIS_URL": "use Redis instead of SQLite (redis://, rediss:// or unix://)",
    "SHBOT_REDIS_PREFIX": "prefix of every Redis key",
    "SHBOT_HISTORY_DAYS": "days finished games are kept",
    "SHBOT_LOBBY_MINUTES": "minutes an untouched lobby lives",
    "SHBOT_LOG_LEVEL": "DEBUG, INFO, WARNING or ERROR",
    "SHBOT_WEBHOOK_URL": "public HTTPS URL Telegram posts updates to; unset: polling",
    "SHBOT_WEBHOOK_LISTEN": "address the webhook listener binds",
    "SHBOT_WEBHOOK_PORT": "port of the webhook listener (plain HTTP)",
    "SHBOT_WEBHOOK_SECRET": "Telegram's secret token, checked on every webhook request",
    "SHBOT_WEBAPP_URL": "public HTTPS URL of the Mini App (the table in one screen); unset: off",
    "SHBOT_WEBAPP_LISTEN": "address the Mini App's server binds",
    "SHBOT_WEBAPP_PORT": "port of the Mini App's server (plain HTTP, behind your TLS proxy)",
    "SHBOT_LOCALES": "directory of the gettext catalogs",
    "SHBOT_TIMERS": "timers of a group that has not chosen: off, short, normal or long",
}


def environment_help() -> str:
    """The variables, their meaning and default, as ``--help`` shows them."""
    width = max(map(len, VARIABLES))
    lines = ["environment (an empty value counts as unset; see README, Configuration):"]
    for name, default in VARIABLES.items():
        inner = default[1:-1] if default.startswith("(") else default
        note = inner if inner == "required" else f"default: {inner}"
        lines.append(f"  {name:<{width}}  {MEANINGS[name]} [{note}]")
    return "\n".join(lines)


#: Seconds per step of each timer preset a group can choose in /settings (0: no timers).
TIMER_PRESETS: dict[str, int] = {"off": 0, "short": 60, "normal": 120, "long": 300}


class ConfigError(ValueError):
    """A configuration value is missing or malformed; the message names the variable."""


@dataclass(frozen=True)
class Config:
    token: str
    api_url: str = TELEGRAM_API
    db_path: str = "shbot.sqlite3"
    redis_url: str | None = None
    redis_prefix: str = "shbot:"
    history_days: float = 30.0
    lobby_minutes: float = 60.0
    log_level: str = "INFO"
    timers: str = "normal"  # default timer preset of a group that never chose (/settings)
    webhook_url: str | None = None  # set: webhook mode; unset: long polling
    webhook_listen: str = "0.0.0.0"
    webhook_port: int = 8443
    webhook_secret: str = ""  # load_config derives one from the token when unset
    webapp_url: str | None = None  # set: the bot serves the Mini App (shbot/webapp)
    webapp_listen: str = "127.0.0.1"  # the TLS proxy in front reaches it there
    webapp_port: int = 8080  # 0: any free port (tests)
    extra: dict[str, str] = field(default_factory=dict)

    @property
    def base_url(self) -> str:
        """What PTB prepends to ``<token>/<method>``: ``$SHBOT_API_URL/bot``."""
        return f"{self.api_url.rstrip('/')}/bot"

    @property
    def base_file_url(self) -> str:
        return f"{self.api_url.rstrip('/')}/file/bot"

    @property
    def webhook_path(self) -> str:
        """The local path updates arrive on: the public URL's path (a proxy keeps it)."""
        return urlsplit(self.webhook_url or "").path or "/"

    @property
    def webapp_path(self) -> str:
        """The local path the Mini App is served under (the public URL's, without a final
        slash: a proxy forwards that path)."""
        return urlsplit(self.webapp_url or "").path.rstrip("/")

    @property
    def secrets(self) -> tuple[str, ...]:
        """Values the logs must never show."""
        return tuple(s for s in (self.token, self.webhook_secret) if s)


def derive_webhook_secret(token: str) -> str:
    """A secret token for setWebhook, stable for a given bot token.

    Stable, so restarts and several replicas agree without configuration; derived through
    HMAC, so knowing it reveals nothing about the bot token.
    """
    return hmac.new(token.encode(), b"shbot webhook secret", hashlib.sha256).hexdigest()


def _get(env: Mapping[str, str], name: str) -> str | None:
    """The stripped value, or None when unset or empty."""
    raw = env.get(name)
    if raw is None:
        return None
    return raw.strip() or None


def _number(env: Mapping[str, str], name: str, default: float) -> float:
    raw = _get(env, name)
    if raw is None:
        return default
    try:
        value = float(raw)
    except ValueError:
        raise ConfigError(f"{name} must be a number, got {raw!r}") from None
    if not math.isfinite(value) or value <= 0:
        raise ConfigError(f"{name} must be a positive number, got {raw!r}")
    return value


def _token(env: Mapping[str, str]) -> str:
    token = _get(env, "BOT_TOKEN")
    if token is None:
        raise ConfigError("BOT_TOKEN is not set: create a bot with @BotFather and export its token")
    if not TOKEN_RE.match(token):
        raise ConfigError("BOT_TOKEN does not look like a bot token (expected 123456:ABC-...)")
    return token


def _http_url(name: str, raw: str) -> str:
    try:
        parts = urlsplit(raw)
        parts.port  # noqa: B018 - raises ValueError on a malformed port
    except ValueError:
        raise ConfigError(f"{name} is not a valid URL, got {raw!r}") from None
    if parts.scheme not in ("http", "https") or not parts.hostname or " " in raw:
        raise ConfigError(f"{name} must be an http(s) URL, got {raw!r}")
    return raw


def _db_path(env: Mapping[str, str]) -> str:
    path = _get(env, "SHBOT_DB") or "shbot.sqlite3"
    if path == ":memory:":
        return path
    target = Path(path)
    if target.is_dir():
        raise ConfigError(f"SHBOT_DB must be a file path, {path!r} is a directory")
    if not target.parent.is_dir():
        raise ConfigError(f"SHBOT_DB: the directory of {path!r} does not exist")
    return path


def _redis_url(env: Mapping[str, str]) -> str | None:
    url = _get(env, "REDIS_URL")
    if url is None:
        return None
    # Never echo the URL: it may carry a password.
    if not re.match(r"^(redis|rediss|unix)://", url):
        raise ConfigError("REDIS_URL must start with redis://, rediss:// or unix://")
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError on a malformed port
    except ValueError:
        raise ConfigError("REDIS_URL has a malformed host or port") from None
    if parts.scheme != "unix":
        if not parts.hostname:
            raise ConfigError("REDIS_URL has no host (expected redis://host:6379/0)")
        db = parts.path.strip("/")
        if db and not db.isdigit():
            raise ConfigError("REDIS_URL: the database after the host must be a number")
    return url


def _redis_prefix(env: Mapping[str, str]) -> str:
    prefix = _get(env, "SHBOT_REDIS_PREFIX") or "shbot:"
    if re.search(r"[{}\s]", prefix):
        raise ConfigError(f"SHBOT_REDIS_PREFIX must not contain braces or spaces, got {prefix!r}")
    return prefix


def _log_level(env: Mapping[str, str]) -> str:
    level = (_get(env, "SHBOT_LOG_LEVEL") or "INFO").upper()
    if level not in ("DEBUG", "INFO", "WARNING", "ERROR"):
        raise ConfigError(f"SHBOT_LOG_LEVEL must be DEBUG, INFO, WARNING or ERROR, got {level!r}")
    return level


def _webhook_url(env: Mapping[str, str], api_url: str) -> str | None:
    raw = _get(env, "SHBOT_WEBHOOK_URL")
    if raw is None:
        return None
    url = _http_url("SHBOT_WEBHOOK_URL", raw)
    parts = urlsplit(url)
    if parts.fragment:
        raise ConfigError(f"SHBOT_WEBHOOK_URL must not have a #fragment, got {raw!r}")
    if api_url.rstrip("/") == TELEGRAM_API:
        # A self-hosted Bot API server may call plain HTTP on any port; Telegram may not.
        if parts.scheme != "https":
            raise ConfigError(f"SHBOT_WEBHOOK_URL must be https:// for Telegram, got {raw!r}")
        port = parts.port or 443
        if port not in TELEGRAM_WEBHOOK_PORTS:
            raise ConfigError(
                f"SHBOT_WEBHOOK_URL: Telegram only calls ports 443, 80, 88 and 8443, got {port}"
            )
    return url


def _webapp_url(env: Mapping[str, str], api_url: str) -> str | None:
    """Telegram opens Mini Apps over HTTPS only (a self-hosted Bot API is trusted to know)."""
    raw = _get(env, "SHBOT_WEBAPP_URL")
    if raw is None:
        return None
    url = _http_url("SHBOT_WEBAPP_URL", raw)
    parts = urlsplit(url)
    if parts.fragment or parts.query:
        raise ConfigError(f"SHBOT_WEBAPP_URL must have no ?query or #fragment, got {raw!r}")
    if api_url.rstrip("/") == TELEGRAM_API and parts.scheme != "https":
        raise ConfigError(f"SHBOT_WEBAPP_URL must be https:// for Telegram, got {raw!r}")
    return url


def _listen(
    env: Mapping[str, str], name: str = "SHBOT_WEBHOOK_LISTEN", default: str = "0.0.0.0"
) -> str:
    host = _get(env, name) or default
    try:
        ipaddress.ip_address(host)
    except ValueError:
        if not HOSTNAME_RE.match(host):
            raise ConfigError(
                f"{name} must be an IP address or a host name, got {host!r}"
            ) from None
    return host


def _port(env: Mapping[str, str], name: str = "SHBOT_WEBHOOK_PORT", default: int = 8443) -> int:
    raw = _get(env, name)
    if raw is None:
        return default
    if not re.fullmatch(r"[0-9]{1,5}", raw) or not 1 <= int(raw) <= 65535:
        raise ConfigError(f"{name} must be a port number (1-65535), got {raw!r}")
    return int(raw)


def _webapp_port(env: Mapping[str, str], both: bool, webhook_port: int) -> int:
    port = _port(env, "SHBOT_WEBAPP_PORT", 8080)
    if both and port == webhook_port:
        raise ConfigError(
            f"SHBOT_WEBAPP_PORT must differ from SHBOT_WEBHOOK_PORT (both {port}): the Mini "
            "App has its own listener"
        )
    return port


def _secret(env: Mapping[str, str], token: str) -> str:
    secret = _get(env, "SHBOT_WEBHOOK_SECRET")
    if secret is None:
        return derive_webhook_secret(token)
    if not SECRET_RE.match(secret):
        raise ConfigError(
            "SHBOT_WEBHOOK_SECRET must be 1 to 256 characters among A-Z, a-z, 0-9, _ and -"
        )
    return secret


def _locales(env: Mapping[str, str]) -> None:
    """Read by shbot.i18n directly; checked here so a typo fails at start, not silently."""
    path = _get(env, "SHBOT_LOCALES")
    if path is not None and not Path(path).is_dir():
        raise ConfigError(f"SHBOT_LOCALES must be a directory of catalogs, got {path!r}")


def _names(env: Mapping[str, str]) -> None:
    """A ``SHBOT_*`` variable the bot does not read is a typo until proven otherwise.

    A misspelt name would otherwise be ignored in silence (``SHBOT_WEBHOOK_ULR`` set and the
    bot polling); the error suggests the closest real name. Names without the prefix
    (``SHBOT_REDIS_URL``, ``SHBOT_BOT_TOKEN``) count as near misses of ``REDIS_URL``,
    ``BOT_TOKEN``.
    """
    prefix = "SHBOT_"
    # Compared without the prefix every candidate shares, so only the distinctive part counts.
    candidates = {name.removeprefix(prefix): name for name in VARIABLES}
    for name in sorted(env):
        if not name.upper().startswith(prefix) or name in VARIABLES:
            continue
        close = difflib.get_close_matches(
            name.upper().removeprefix(prefix), candidates, n=1, cutoff=0.7
        )
        hint = f"did you mean {candidates[close[0]]}?" if close else "see shbot run --help"
        raise ConfigError(f"{name}: unknown variable, {hint}")


def load_config(env: Mapping[str, str] | None = None) -> Config:
    """Read and validate the configuration; raises :class:`ConfigError`."""
    env = os.environ if env is None else env
    _names(env)
    token = _token(env)
    api_url = _http_url("SHBOT_API_URL", _get(env, "SHBOT_API_URL") or TELEGRAM_API)
    _locales(env)
    redis_url = _redis_url(env)
    webhook_url = _webhook_url(env, api_url)
    webhook_port = _port(env)
    webapp_url = _webapp_url(env, api_url)
    return Config(
        token=token,
        api_url=api_url,
        # The SQLite file matters only without Redis.
        db_path=_db_path(env) if redis_url is None else _get(env, "SHBOT_DB") or "shbot.sqlite3",
        redis_url=redis_url,
        redis_prefix=_redis_prefix(env),
        history_days=_number(env, "SHBOT_HISTORY_DAYS", 30.0),
        lobby_minutes=_number(env, "SHBOT_LOBBY_MINUTES", 60.0),
        log_level=_log_level(env),
        timers=_timers(env),
        webhook_url=webhook_url,
        webhook_listen=_listen(env),
        webhook_port=webhook_port,
        webhook_secret=_secret(env, token),
        webapp_url=webapp_url,
        webapp_listen=_listen(env, "SHBOT_WEBAPP_LISTEN", "127.0.0.1"),
        webapp_port=_webapp_port(env, bool(webhook_url and webapp_url), webhook_port),
    )


def _timers(env: Mapping[str, str]) -> str:
    raw = env.get("SHBOT_TIMERS", "normal").strip().lower() or "normal"
    if raw not in TIMER_PRESETS:
        raise ConfigError(f"SHBOT_TIMERS must be one of {', '.join(TIMER_PRESETS)}, got {raw!r}")
    return raw
