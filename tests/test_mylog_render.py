"""/mylog's words depend only on what the seat was shown (shbot/bot/render/mylog.py).

The games of tests/test_knowledge.py, rendered for every seat in every language, must read
the same when everything the seat was not shown is changed; and once the game is over the
whole game follows, in pages Telegram accepts."""

from __future__ import annotations

import random

import pytest

from shbot.bot.render import mylog as rm
from shbot.i18n import translator
from shbot.table import Player
from shbot.table.knowledge import encode, read
from tests.test_knowledge import play_game, scramble


@pytest.mark.parametrize("lang", ["en", "ja", "fr"])
def test_the_text_of_a_seat_ignores_what_it_was_not_shown(lang: str) -> None:
    t = translator(lang)
    rng = random.Random(3)
    for seed in range(12):
        game, _events, table = play_game(seed)
        table.players = [Player(1000 + s, f"P{s}") for s in range(game.n)]
        table.game = game
        entries = read(table.log)
        for seat in range(game.n):
            text = rm.mylog_lines(t, table, seat)
            other = table.__class__.from_dict(table.to_dict())
            other.log = "\n".join(
                encode(e.kind, e.data, e.to) for e in scramble(entries, seat, rng)
            )
            assert rm.mylog_lines(t, other, seat) == text
            table.ending = "finished"
            whole = rm.pages(rm.mylog_lines(t, table, seat))
            table.ending = None
            assert all(len(page) <= 4096 for page in whole)
            assert len(whole) <= 8
