"""Headless Chromium for the Mini App's browser tests (Debian's ``chromium`` and
``chromium-driver`` packages), driven by Selenium.

The driver's path is given, so Selenium Manager never looks for (or downloads) a browser;
every background network feature of Chromium is off (the test machine has no network).
Without Chromium the tests are skipped with one line saying why, except under CI (``CI``
set), where a missing browser fails them: CI must run them.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = os.environ.get("SHBOT_TEST_CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("SHBOT_TEST_CHROMEDRIVER", "/usr/bin/chromedriver")
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--hide-scrollbars",
)


def missing() -> str | None:
    """Why the browser tests cannot run here, or None."""
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is not installed (pip install -e '.[test]')"
    for path in (CHROMIUM, CHROMEDRIVER):
        if not (Path(path).is_file() and os.access(path, os.X_OK)):
            return f"{path} not found (apt-get install -y chromium chromium-driver)"
    return None


def require_browser() -> None:
    reason = missing()
    if reason is None:
        return
    if os.environ.get("CI"):
        pytest.fail(f"browser tests must run in CI, but {reason}")
    pytest.skip(f"Mini App browser tests skipped: {reason}")


@contextmanager
def chrome(width: int = 360, height: int = 1400, scale: float = 1.0) -> Iterator[Any]:
    """A fresh headless Chromium (its own profile directory, removed afterwards), its
    viewport a phone's ``width`` CSS pixels wide (a desktop window cannot be that narrow)."""
    require_browser()
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    profile = tempfile.mkdtemp(prefix="shbot-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={profile}")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    options.add_argument(f"--window-size={max(width, 800)},{height}")
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    metrics = {"width": width, "height": height, "deviceScaleFactor": scale, "mobile": True}
    try:
        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", metrics)
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


def page_errors(driver: Any) -> list[str]:
    """The console's errors, but Telegram's script not loading (no network here)."""
    return [
        str(entry["message"])
        for entry in driver.get_log("browser")
        if entry["level"] == "SEVERE" and "telegram.org" not in entry["message"]
    ]
