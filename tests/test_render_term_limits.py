"""The nomination's "⛔ Term-limited" line names who the candidate may not nominate, never
the presidential candidate herself (review fr-5: "👉 Léa, nominate a Chancellor" above
"⛔ Term-limited: Léa" read as if Léa could not govern)."""

from __future__ import annotations

import re

import pytest

from shbot.bot.render.table import waiting_line
from shbot.engine import FASCIST, LIBERAL, Discard, Enact, Game, Nominate, Phase, Vote
from shbot.i18n import translator
from shbot.table.model import Player, Table
from shbot.table.play import advance


def after_one_government(players: int, roles: str) -> Table:
    """Seat 0 was President and seat 1 Chancellor; seat 1 is now the candidate."""
    game, _ = Game.new(players, 3, roles=roles, deck="FFLLLFFFLLFFFFFLF", first_president=0)
    table = Table("abcd1234", 100, 0.0)
    table.players = [Player(100 + s, f"P{s}", ready=True) for s in range(players)]
    table.game = game
    table.step = 1
    advance(table, Nominate(0, 1))
    for seat in range(players):
        advance(table, Vote(seat, True))
    advance(table, Discard(0, LIBERAL))
    advance(table, Enact(1, FASCIST))
    assert game.phase is Phase.NOMINATE and game.president == 1
    assert 1 in game.term_limited()  # the rule still bars her: the line just does not say so
    return table


def plain(text: str | None) -> str | None:
    return None if text is None else re.sub("[\u2068\u2069]", "", text)


def test_five_players_the_candidate_alone_gives_no_line() -> None:
    table = after_one_government(5, "LLFHL")
    assert waiting_line(translator("en"), table) is None


@pytest.mark.parametrize(
    ("lang", "line"),
    [("en", "⛔ Term-limited: P0"), ("ja", "⛔ 任期満了：P0"), ("fr", "⛔ Inéligible\u00a0: P0")],
)
def test_seven_players_the_last_president_only(lang: str, line: str) -> None:
    table = after_one_government(7, "LLLLFFH")
    assert plain(waiting_line(translator(lang), table)) == line
