"""An overloaded token (more groups than its calls a second can serve at people's pace),
on a virtual clock: every group's step changes keep flowing while progress waits, and no
deadline runs while its prompt waits unshown.

The groups of ``bench capacity`` (:mod:`shbot.bench.capacity_sim`: people who act on what
they see, at people's pace) play against the real bot, a sample of 40 groups on their share
of the token as if 280 games ran at once: about twice what the token serves with every edit
(137 games, docs/benchmarks.md), less than it serves with step changes alone. The
groups' timers are "short" (a minute a step), so a prompt held back a minute behind other
groups' calls would see its deadline play the default move.
"""

from __future__ import annotations

import pytest

from shbot.bench.capacity import run_games

pytest.importorskip("looptime")

GROUPS, AS_IF = 40, 280
#: A step's prompt reaches its group within this many seconds of the step's start at p95
#: (the "short" timers' minute a step): the token's calls go to step changes first, each
#: group in turn. A sample on its share of the token waits longer than the whole would (a
#: call takes 1/share of the time), hence a step's time rather than the 3 s of a full run.
PROMPT_WITHIN = 60.0


@pytest.mark.looptime
async def test_an_overloaded_token_keeps_every_groups_step_changes_flowing() -> None:
    row = await run_games(AS_IF, 5.0, seed=7, sample=GROUPS, ramp=240.0, timers="short")
    assert row["simulated"] == GROUPS and row["token_share"] == pytest.approx(
        GROUPS / AS_IF, abs=1e-3
    )
    # Overloaded: taps wait for the token (at people's pace a calm group shows one in 1.5 s).
    assert row["p50"] > 5.0, row
    # No deadline ran while its prompt waited to be shown (a few were held instead); none
    # fired at all: these people act within their minute once they see the buttons.
    assert row["fired_unshown"] == 0 and row["deadlines_fired"] == 0, row
    # Step changes flow: each group's prompts within the step's minute at p95, none kept
    # two steps' time, and the games go on (a round is 1-3 minutes at this pace).
    assert row["prompt_p95"] < PROMPT_WITHIN, row
    assert row["groups_starved"] == 0, row
    assert row["rounds_per_game"] >= 1.5, row
    # Progress waited: the vote counts' taps came later than the step changes' prompts.
    assert row["progress_p95"] > 1.5 * row["step_p95"], row
    assert row["429s"] == 0, row
