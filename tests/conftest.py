"""Shared pytest configuration: fixtures live in their own modules, registered here."""

from typing import Any

pytest_plugins: list[str] = [
    "tests.redis_server",
    "tests.botplay",
]

#: The start of the skip reason of the Mini App's browser tests (tests/browser.py).
BROWSER_SKIP = "Mini App browser tests skipped: "


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """Where Chromium is missing, say so in one line (pytest -q shows no skip reasons)."""
    for report in terminalreporter.stats.get("skipped", []):
        reason = str(report.longrepr[2] if isinstance(report.longrepr, tuple) else "")
        if reason.startswith("Skipped: "):
            reason = reason[len("Skipped: ") :]
        if reason.startswith(BROWSER_SKIP):
            terminalreporter.write_line(reason)
            return
