"""An overloaded token (more groups than its calls a second can serve at people's pace),
on a virtual clock: every group's step changes keep flowing while progress waits, and no
deadline runs while its prompt waits unshown.

The groups of ``bench capacity`` (:mod:`shbot.bench.capacity_sim`: people who act on what
they see, at people's pace) play against the real bot, a sample of 14 groups on their share
of the token as if 280 games ran at once: a little more than the token serves (about 190
at the time of writing) with every edit, less than it serves with step changes alone. The
groups' timers are "short" (a minute a step), so a prompt held back a minute behind other
groups' calls would see its deadline play the default move.
"""

from __future__ import annotations

import pytest

from shbot.bench.capacity import run_games

pytest.importorskip("looptime")

GROUPS, AS_IF = 14, 280
#: A step's prompt reaches its group within this many seconds of the step's start: the
#: token's calls go to step changes first, each group in turn.
PROMPT_WITHIN = 30.0


@pytest.mark.looptime
async def test_an_overloaded_token_keeps_every_groups_step_changes_flowing() -> None:
    row = await run_games(AS_IF, 4.0, seed=7, sample=GROUPS, ramp=90.0, timers="short")
    assert row["simulated"] == GROUPS and row["token_share"] == pytest.approx(0.05)
    assert row["rounds_per_game"] >= 1.5, row  # the games went on
    # Overloaded: the token's calls went at its whole (scaled) rate, progress waited for them.
    assert row["p95_complete"] > 2 * row["prompt_p95"], row
    # Step changes flow: each group's next prompt shown within the pace, none starves.
    assert row["prompt_max"] <= PROMPT_WITHIN, row
    assert row["groups_starved"] == 0, row
    # No deadline ran while its prompt waited to be shown; none fired at all (the players
    # act within their minute once they see the buttons).
    assert row["fired_unshown"] == 0, row
    assert row["deadlines_fired"] == 0, row
    assert row["429s"] == 0, row
