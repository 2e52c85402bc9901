"""The Mini App's board SVG (shbot/webapp/svg.py) draws the board picture's design.

The SVG is the picture's own drawing traced as shapes, so each icon has one markup: these
tests find the cards and the seats' tokens in the SVG and check which icon each one carries
(the fasces on an enacted Fascist policy, the skull only on an Execution slot, a padlock per
term limit) and that the seats take their roles' colours at the end, never before.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import replace
from functools import partial
from typing import Any

from shbot.bot.render import picture_icons as icons
from shbot.bot.render.picture import (
    CARD_H,
    CARD_W,
    HEIGHT,
    PALETTE,
    SEAT_TOP,
    TOKEN,
    WIDTH,
    BoardFacts,
    initials,
)
from shbot.i18n import translator
from shbot.webapp import svg, views
from tests.webapp_games import simulate

EN = translator("en")
HEX = ["#{:02x}{:02x}{:02x}".format(*rgb) for rgb in PALETTE]
NS = "{http://www.w3.org/2000/svg}"
POWERS = (None, "investigate", "special_election", "execution", "execution")
ROLE_FILL = {"L": HEX[icons.LIB], "F": HEX[icons.FAS], "H": HEX[icons.BLACK]}


def facts(**changes: Any) -> BoardFacts:
    base = BoardFacts(
        players=8,
        powers=POWERS,
        liberal=1,
        fascist=3,
        tracker=1,
        draw=7,
        discard=6,
        veto=False,
        president=1,
        chancellor=7,
        in_office=False,
        term_limited=(0, 5),
        alive=(True,) * 8,
        confirmed=(False,) * 5 + (True, False, False),
        winner=None,
        initials=("A", "B", "C", "D", "", "F", "G", "H"),
    )
    return replace(base, **changes)


def ellipses(markup: str) -> list[ET.Element]:
    return list(ET.fromstring(f'<g xmlns="{NS[1:-1]}">{markup}</g>').iter(f"{NS}ellipse"))


def fascist_slots(drawn: str) -> list[tuple[int, int, int, int]]:
    """The Fascist track's six card boxes, left to right, as the picture gave them."""
    boxes = []
    for rect in ET.fromstring(drawn).iter(f"{NS}rect"):
        if rect.get("fill") not in (HEX[icons.FAS], HEX[icons.FAS_EMPTY]):
            continue
        half = float(rect.get("stroke-width", 0)) / 2
        x, y = round(float(rect.get("x", 0)) - half), round(float(rect.get("y", 0)) - half)
        if round(float(rect.get("width", 0)) + 2 * half) == CARD_W + 1:
            boxes.append((x, y, x + CARD_W, y + CARD_H))
    assert len(boxes) == 6, boxes
    return sorted(boxes)


def tokens(drawn: str) -> list[ET.Element]:
    """The seats' tokens, left to right: the discs centred on the seats' row."""
    row = SEAT_TOP + (TOKEN + 1) / 2
    found = [
        e
        for e in ET.fromstring(drawn).iter(f"{NS}ellipse")
        if float(e.get("cy", 0)) == row and float(e.get("rx", 0)) > TOKEN / 3
    ]
    return sorted(found, key=lambda e: float(e.get("cx", 0)))


def test_an_enacted_fascist_policy_is_the_fasces_and_the_skull_only_execution() -> None:
    for fascist in range(6):
        drawn = svg.board(facts(fascist=fascist))
        assert drawn.startswith("<svg") and f'viewBox="0 0 {WIDTH} {HEIGHT}"' in drawn
        slots = fascist_slots(drawn)
        for i, box in enumerate(slots):
            fasces = svg.trace(partial(icons.fasces, box=box))
            skull = svg.trace(partial(icons.skull, box=box, ink=icons.FAS_EMPTY, bone=icons.DARK))
            assert (fasces in drawn) == (i < fascist), (fascist, i)
            execution = i >= fascist and i < len(POWERS) and POWERS[i] == "execution"
            assert drawn.count(skull) == int(execution), (fascist, i)
        # no skull anywhere else either (on a seat, in any colour): its head's shape is its own
        head = ellipses(skull)[0]
        shape = [(e.get("rx"), e.get("ry")) for e in ellipses(drawn)]
        executions = sum(1 for i, p in enumerate(POWERS) if p == "execution" and i >= fascist)
        assert shape.count((head.get("rx"), head.get("ry"))) == executions, fascist
        # the prohibition sign is the veto's, once, on the fifth slot only
        x1, y1 = slots[4][2], slots[4][3]
        veto = svg.trace(
            partial(icons.veto, box=(x1 - 30, y1 - 30, x1 - 6, y1 - 6), unlocked=False)
        )
        sign = ellipses(veto)[0]
        assert drawn.count(veto) == 1
        assert shape.count((sign.get("rx"), sign.get("ry"))) == 1


def test_a_term_limit_is_a_padlock_under_the_seat_and_the_veto_is_on_the_track() -> None:
    drawn = svg.board(facts())
    arcs = [p for p in ET.fromstring(drawn).iter(f"{NS}path") if p.get("fill") == "none"]
    assert len(arcs) == 2  # the two padlocks' shackles
    xs = [float(e.get("cx", 0)) for e in tokens(drawn)]
    for seat, arc in zip((0, 5), arcs, strict=True):
        start = float((arc.get("d") or "").split()[0][1:].split(",")[0])
        assert abs(start - xs[seat]) < TOKEN / 2, "the padlock under its seat"
    for seat, letters in enumerate(facts().initials):
        if letters:
            assert f">{letters}</text>" in drawn, seat
    assert [e.get("fill") for e in tokens(drawn)] == [HEX[icons.WHITE]] * 8


def test_the_end_colours_each_seat_by_its_role_and_not_before() -> None:
    games = list(simulate(10, 3))
    end = games[-1]
    game = end.game
    assert game is not None and game.is_over
    drawn = views.public(EN, end)["board"]
    roles = game.public_view()["roles"]
    discs = tokens(drawn)
    assert [e.get("fill") for e in discs] == [ROLE_FILL[r] for r in roles]
    hitler = discs[roles.index("H")]
    assert hitler.get("stroke") == HEX[icons.RED_MARK] and hitler.get("stroke-width") == "6"
    assert not [p for p in ET.fromstring(drawn).iter(f"{NS}path") if p.get("fill") == "none"]
    for name in end.names():
        if initials(name):
            assert f">{initials(name)}</text>" in drawn
    for table in games[:-1]:  # while it runs: white tokens (grey once dead), whatever the roles
        fills = {e.get("fill") for e in tokens(views.public(EN, table)["board"])}
        assert fills <= {HEX[icons.WHITE], HEX[icons.GREY]}, table.step
