"""``python -m shbot.devtools.unpaced_bot``: ``shbot run`` with the rate limiter's pacing off.

The scale-out benchmark starts real bot processes (webhook mode, configured from the
environment exactly like ``python -m shbot run``). Production paces every group at 20 calls
a minute on purpose, which would make a benchmark game last minutes of real time; this
entry point keeps AIORateLimiter (and its retries on 429) but with no rate limits, like the
in-process benchmarks that unplug the limiter. Nothing else differs.
"""

from __future__ import annotations

import sys

from telegram.ext import AIORateLimiter

from shbot.bot import app


def _unpaced() -> AIORateLimiter:
    return AIORateLimiter(overall_max_rate=0, group_max_rate=0, max_retries=5)


def main() -> int:
    app.rate_limiter = _unpaced  # build_application looks it up at call time
    from shbot.bot.main import run_from_env

    return run_from_env()


if __name__ == "__main__":
    sys.exit(main())
