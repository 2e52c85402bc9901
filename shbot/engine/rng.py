"""A tiny seeded generator whose whole state is one 64-bit integer.

Python's ``random.Random`` carries 2.5 KB of state; keeping the generator inside the
game state (so a saved game replays exactly) needs something that serializes small.
SplitMix64 is well studied, fast enough for the few shuffles a game needs, and its state
is a single integer.
"""

from __future__ import annotations

from typing import TypeVar

_MASK = (1 << 64) - 1
_GOLDEN = 0x9E3779B97F4A7C15

T = TypeVar("T")


def seed_state(seed: int) -> int:
    """Spread any integer seed (even 0 or negative) into a generator state."""
    state = seed & _MASK
    value, _ = next_u64(state ^ 0x5DEECE66D)
    return value


def next_u64(state: int) -> tuple[int, int]:
    """Return (random 64-bit value, next state)."""
    state = (state + _GOLDEN) & _MASK
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    return z ^ (z >> 31), state


def below(state: int, n: int) -> tuple[int, int]:
    """Return (uniform integer in [0, n), next state); bias is below n / 2**64."""
    value, state = next_u64(state)
    return (value * n) >> 64, state


def shuffle(state: int, items: list[T]) -> int:
    """Fisher–Yates shuffle of ``items`` in place; returns the next state.

    Each swap takes ``below(state, i + 1)``; its two steps are written out here because a
    game shuffles often enough for the function calls to show (same numbers as below)."""
    for i in range(len(items) - 1, 0, -1):
        state = (state + _GOLDEN) & _MASK
        z = ((state ^ (state >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        j = ((z ^ (z >> 31)) * (i + 1)) >> 64
        items[i], items[j] = items[j], items[i]
    return state
