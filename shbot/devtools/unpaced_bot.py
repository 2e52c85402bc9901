"""``python -m shbot.devtools.unpaced_bot``: ``shbot run`` with the rate limiter's pacing off.

The scale-out benchmark starts real bot processes (webhook mode, configured from the
environment exactly like ``python -m shbot run``). Production paces every group at 20 calls
a minute on purpose (the outbox's :class:`~shbot.bot.delivery.pacer.Pacer`), which would make a
benchmark game last minutes of real time; this entry point turns the pacer off and keeps
AIORateLimiter (and its retries on 429) but with no rate limits, like the in-process
benchmarks. Nothing else differs.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

from telegram.ext import AIORateLimiter

from shbot.bot import app
from shbot.bot.delivery.pacer import Pacer


def _unpaced() -> AIORateLimiter:
    return AIORateLimiter(overall_max_rate=0, group_max_rate=0, max_retries=5)


def _pacer_off(clock: Callable[[], float]) -> Pacer:
    return Pacer(clock, enabled=False)


def main() -> int:
    # build_application looks both up at call time
    app.rate_limiter = _unpaced
    app.Pacer = _pacer_off  # type: ignore[assignment,misc]
    from shbot.bot.main import run_from_env

    return run_from_env()


if __name__ == "__main__":
    sys.exit(main())
