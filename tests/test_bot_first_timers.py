"""What a first game must make plain in the group (issue 24): after an execution that did
not end the game, that the executed player was not Hitler; during a vote, how many have
voted of how many."""

from __future__ import annotations

import re

from tests.botplay import Bot, group_calls, play_planned
from tests.harness import make_users

_COUNT = re.compile(r"^🗳 (\d+)/(\d+): ", re.MULTILINE)


async def test_an_execution_that_goes_on_and_the_voters_count(bot: Bot) -> None:
    users = make_users(7)
    # 7 players: investigate (2nd F), special election (3rd), execution (4th), then Hitler.
    played = await play_planned(
        bot, users, ["F", "L", "F", "x", "F", "L", "F", "L", "H"], hitler=3, seed=3
    )
    game, names = played.game, played.table.names()
    executed = [h[2] for h in game.history if h[0] == "x"]
    assert len(executed) == 1 and game.roles[executed[0]] != "H"
    texts = [c.shown_text() for c in group_calls(bot.fake, played.group.id)]
    line = f"\u2068<b>{names[executed[0]]}</b>\u2069 was not Hitler: the game goes on."
    assert any(line in text for text in texts), "nobody said the game goes on"
    # Every vote line counts: "🗳 voted/living: ☑️ ... · ⏳ ...", from 0 up to all.
    counts = [(int(a), int(b)) for text in texts for a, b in _COUNT.findall(text)]
    assert counts, "no counted voter line"
    assert all(0 <= a <= b and b in (7, 6) for a, b in counts), counts
    assert (0, 7) in counts and (6, 7) in counts and (5, 6) in counts


async def test_no_such_line_when_hitler_is_executed(bot: Bot) -> None:
    users = make_users(5)
    played = await play_planned(bot, users, ["F", "L", "x", "F", "F", "F"], targets=["H"], hitler=3)
    assert played.game.condition is not None
    assert played.game.condition.value == "hitler_executed"
    texts = [c.shown_text() for c in group_calls(bot.fake, played.group.id)]
    assert not any("was not Hitler: the game goes on" in text for text in texts)
