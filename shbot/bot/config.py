"""Configuration from environment variables, checked once at start-up.

A bad value stops the bot with one line naming the variable, never a traceback.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field

TOKEN_RE = re.compile(r"^\d{3,}:[A-Za-z0-9_-]{30,}$")


#: Seconds per step of each timer preset a group can choose in /settings (0: no timers).
TIMER_PRESETS: dict[str, int] = {"off": 0, "short": 60, "normal": 120, "long": 300}


class ConfigError(ValueError):
    """A configuration value is missing or malformed; the message names the variable."""


@dataclass(frozen=True)
class Config:
    token: str
    api_url: str = "https://api.telegram.org"
    db_path: str = "shbot.sqlite3"
    redis_url: str | None = None
    redis_prefix: str = "shbot:"
    history_days: float = 30.0
    lobby_minutes: float = 60.0
    log_level: str = "INFO"
    timers: str = "normal"  # default timer preset of a group that never chose (/settings)
    extra: dict[str, str] = field(default_factory=dict)

    @property
    def base_url(self) -> str:
        """What PTB prepends to ``<token>/<method>``: ``$SHBOT_API_URL/bot``."""
        return f"{self.api_url.rstrip('/')}/bot"

    @property
    def base_file_url(self) -> str:
        return f"{self.api_url.rstrip('/')}/file/bot"


def _number(env: Mapping[str, str], name: str, default: float) -> float:
    raw = env.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = float(raw)
    except ValueError:
        raise ConfigError(f"{name} must be a number, got {raw!r}") from None
    if value <= 0:
        raise ConfigError(f"{name} must be positive, got {raw!r}")
    return value


def load_config(env: Mapping[str, str] | None = None) -> Config:
    """Read and validate the configuration; raises :class:`ConfigError`."""
    env = os.environ if env is None else env
    token = env.get("BOT_TOKEN", "").strip()
    if not token:
        raise ConfigError("BOT_TOKEN is not set: create a bot with @BotFather and export its token")
    if not TOKEN_RE.match(token):
        raise ConfigError("BOT_TOKEN does not look like a bot token (expected 123456:ABC-...)")
    api_url = env.get("SHBOT_API_URL", "https://api.telegram.org").strip()
    if not re.match(r"^https?://[^\s/]+", api_url):
        raise ConfigError(f"SHBOT_API_URL must be an http(s) URL, got {api_url!r}")
    redis_url = env.get("REDIS_URL", "").strip() or None
    if redis_url and not re.match(r"^(redis|rediss|unix)://", redis_url):
        raise ConfigError("REDIS_URL must start with redis://, rediss:// or unix://")
    level = env.get("SHBOT_LOG_LEVEL", "INFO").strip().upper()
    if level not in ("DEBUG", "INFO", "WARNING", "ERROR"):
        raise ConfigError(f"SHBOT_LOG_LEVEL must be DEBUG, INFO, WARNING or ERROR, got {level!r}")
    return Config(
        token=token,
        api_url=api_url,
        db_path=env.get("SHBOT_DB", "shbot.sqlite3").strip() or "shbot.sqlite3",
        redis_url=redis_url,
        redis_prefix=env.get("SHBOT_REDIS_PREFIX", "shbot:"),
        history_days=_number(env, "SHBOT_HISTORY_DAYS", 30.0),
        lobby_minutes=_number(env, "SHBOT_LOBBY_MINUTES", 60.0),
        log_level=level,
        timers=_timers(env),
    )


def _timers(env: Mapping[str, str]) -> str:
    raw = env.get("SHBOT_TIMERS", "normal").strip().lower() or "normal"
    if raw not in TIMER_PRESETS:
        raise ConfigError(f"SHBOT_TIMERS must be one of {', '.join(TIMER_PRESETS)}, got {raw!r}")
    return raw
