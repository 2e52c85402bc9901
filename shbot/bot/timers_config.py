"""Timer presets: the seconds each step of a group's game may take."""

from __future__ import annotations

from .config import TIMER_PRESETS

PRESETS = TIMER_PRESETS
PRESET_ORDER = tuple(TIMER_PRESETS)


def preset_seconds(name: str | None, default: str = "normal") -> int:
    """Seconds of the preset ``name`` (unknown names fall back to ``default``)."""
    if name in PRESETS:
        return PRESETS[str(name)]
    return PRESETS.get(default, PRESETS["normal"])
