"""Per-decision randomness that a rebuilt player draws again exactly.

A computer player's chance moves (a lie, a tie between two seats) come from dice rolled
afresh for each decision, from the player's seed, its seat and the decision's public name
(round, kind) alone. So the same seat with the same memory makes the same move whether it
watched the game from the start or was rebuilt mid-game (a take-over, a restart, another
process): nothing depends on how many numbers an earlier life of the agent drew.
"""

from __future__ import annotations

from shbot.engine.rng import next_u64, seed_state

__all__ = ["Dice"]

_MASK = (1 << 64) - 1
_UNIT = 2.0**-53


class Dice:
    """A SplitMix64 stream with ``random()`` like :class:`random.Random` (all the players
    use of it): a few integer operations per number, one integer of state."""

    __slots__ = ("state",)

    def __init__(self, seed: int, *key: int) -> None:
        mixed = seed
        for k in key:
            mixed = (mixed * 0x100000001B3) ^ k  # FNV-style fold; seed_state spreads it
        self.state = seed_state(mixed)

    def random(self) -> float:
        """A float in [0, 1)."""
        value, self.state = next_u64(self.state)
        return (value >> 11) * _UNIT

    def choice(self, weights: dict[str, float]) -> str:
        """One key, with probability proportional to its weight."""
        total = sum(weights.values())
        x = self.random() * total
        for key, weight in weights.items():
            x -= weight
            if x < 0:
                return key
        return next(reversed(weights))
