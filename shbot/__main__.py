"""``python -m shbot`` and the ``shbot`` console script (commands live in :mod:`shbot.cli`)."""

from __future__ import annotations

import sys

from shbot.cli import main

__all__ = ["main"]

if __name__ == "__main__":
    sys.exit(main())
