"""The board picture as SVG: the same design as ``bot/render/picture.py``, drawn to scale.

Built only from :class:`~shbot.bot.render.picture.BoardFacts` (a digest of the engine's
public view), like the PNG, so a secret cannot reach it; it carries no words either (names
are shown beside it, in HTML), only shapes and digits. Geometry and palette are the PNG's.
"""

from __future__ import annotations

import math
from functools import lru_cache

from shbot.bot.render.picture import (
    CARD_H,
    CARD_W,
    GAP,
    HEIGHT,
    PALETTE,
    SEAT_STEP,
    TOKEN,
    WIDTH,
    BoardFacts,
)

Box = tuple[int, int, int, int]
_C = ["#{:02x}{:02x}{:02x}".format(*rgb) for rgb in PALETTE]
BG, LIB, LIB_EMPTY, FAS, FAS_EMPTY, WHITE, BLACK, GOLD = _C[:8]
GREY, GREEN, ZONE, PURPLE, PANEL, DARK, LINE, RED_MARK = _C[8:]


def _rect(box: Box, fill: str, *, r: int = 10, stroke: str = "none", width: int = 0) -> str:
    x0, y0, x1, y1 = box
    return (
        f'<rect x="{x0}" y="{y0}" width="{x1 - x0}" height="{y1 - y0}" rx="{r}" '
        f'fill="{fill}" stroke="{stroke}" stroke-width="{width}"/>'
    )


def _circle(cx: float, cy: float, r: float, fill: str, stroke: str = "none", w: int = 0) -> str:
    return (
        f'<circle cx="{cx}" cy="{cy}" r="{r}" fill="{fill}" stroke="{stroke}" stroke-width="{w}"/>'
    )


def _line(x0: float, y0: float, x1: float, y1: float, colour: str, width: int) -> str:
    return (
        f'<line x1="{x0}" y1="{y0}" x2="{x1}" y2="{y1}" stroke="{colour}" '
        f'stroke-width="{width}" stroke-linecap="round"/>'
    )


def _poly(points: list[tuple[float, float]], fill: str, stroke: str = "none", w: int = 0) -> str:
    path = " ".join(f"{x:.1f},{y:.1f}" for x, y in points)
    return f'<polygon points="{path}" fill="{fill}" stroke="{stroke}" stroke-width="{w}"/>'


def _digits(cx: float, cy: float, number: int, size: int, fill: str) -> str:
    return (
        f'<text x="{cx}" y="{cy}" font-size="{size}" fill="{fill}" text-anchor="middle" '
        f'dominant-baseline="central" font-family="sans-serif" font-weight="bold">{number}</text>'
    )


def _centre(box: Box) -> tuple[int, int]:
    return (box[0] + box[2]) // 2, (box[1] + box[3]) // 2


def _row_x(count: int) -> int:
    return (WIDTH - count * CARD_W - (count - 1) * GAP) // 2


def _dove(box: Box) -> str:
    cx, cy = _centre(box)
    body = [(cx - 34, cy + 4), (cx - 6, cy - 4), (cx + 4, cy - 30), (cx + 14, cy - 2)]
    body += [(cx + 34, cy - 10), (cx + 20, cy + 12), (cx - 4, cy + 20)]
    return _poly([(float(x), float(y)) for x, y in body], WHITE)


def _skull(box: Box, ink: str, bone: str) -> str:
    cx, cy = _centre(box)
    out = [
        f'<ellipse cx="{cx}" cy="{cy - 7}" rx="26" ry="23" fill="{bone}"/>',
        _rect((cx - 15, cy + 8, cx + 15, cy + 26), bone, r=0),
        _circle(cx - 11, cy - 6, 6, ink),
        _circle(cx + 11, cy - 6, 6, ink),
    ]
    out += [_line(cx + tx, cy + 14, cx + tx, cy + 26, ink, 2) for tx in (-7, 0, 7)]
    return "".join(out)


def _flag(box: Box, colour: str) -> str:
    cx, cy = _centre(box)
    out = [_line(cx - 24, cy - 30, cx - 24, cy + 32, BLACK, 4)]
    for row in range(3):
        for col in range(4):
            x, y = cx - 22 + col * 12, cy - 30 + row * 12
            out.append(_rect((x, y, x + 12, y + 12), BLACK if (row + col) % 2 else colour, r=0))
    return "".join(out)


def _power(box: Box, power: str) -> str:
    cx, cy = _centre(box)
    if power == "investigate":  # a magnifying glass
        return _circle(cx - 8, cy - 10, 15, "none", DARK, 7) + _line(
            cx + 6, cy + 4, cx + 26, cy + 26, DARK, 10
        )
    if power == "special_election":  # a ballot going into a box
        return (
            _rect((cx - 28, cy - 4, cx + 28, cy + 28), DARK, r=0)
            + _rect((cx - 14, cy - 32, cx + 14, cy + 2), WHITE, r=0, stroke=DARK, width=3)
            + _line(cx - 20, cy - 4, cx + 20, cy - 4, FAS_EMPTY, 3)
        )
    if power == "peek":  # an eye
        return (
            f'<ellipse cx="{cx}" cy="{cy}" rx="32" ry="16" fill="{WHITE}" stroke="{DARK}" '
            'stroke-width="5"/>' + _circle(cx, cy, 12, DARK)
        )
    return _skull(box, FAS_EMPTY, DARK)  # execution


def _veto(box: Box, unlocked: bool) -> str:
    """A prohibition sign: the veto; filled once unlocked."""
    cx, cy = _centre(box)
    r = (box[2] - box[0]) / 2
    return _circle(cx, cy, r, GOLD if unlocked else "none", BLACK, 3) + _line(
        box[0] + 5, box[3] - 5, box[2] - 5, box[1] + 5, BLACK, 3
    )


def _tracks(b: BoardFacts) -> list[str]:
    out = []
    x0, y = _row_x(5), 18
    for i in range(5):
        box = (x0 + i * (CARD_W + GAP), y, x0 + i * (CARD_W + GAP) + CARD_W, y + CARD_H)
        if i < b.liberal:
            out += [_rect(box, LIB, stroke=WHITE, width=4), _dove(box)]
        else:
            out.append(_rect(box, LIB_EMPTY, stroke=LIB, width=3))
            if i == 4:
                out.append(_flag(box, LIB))
    x0, y = _row_x(6), 202
    zone_x = x0 + 3 * (CARD_W + GAP) - GAP // 2
    out.append(_rect((zone_x, y - 8, WIDTH - x0 + GAP // 2, y + CARD_H + 8), ZONE, r=12))
    for i in range(6):
        box = (x0 + i * (CARD_W + GAP), y, x0 + i * (CARD_W + GAP) + CARD_W, y + CARD_H)
        if i < b.fascist:
            out += [_rect(box, FAS, stroke=WHITE, width=4), _skull(box, BLACK, WHITE)]
        else:
            out.append(_rect(box, FAS_EMPTY, stroke=FAS, width=3))
            power = b.powers[i] if i < len(b.powers) else None
            if i == 5:
                out.append(_flag(box, FAS))
            elif power:
                out.append(_power(box, power))
        if i == 4:
            out.append(_veto((box[2] - 30, box[3] - 30, box[2] - 6, box[3] - 6), b.veto))
    return out


def _pile(x: int, y: int, *, face_down: bool) -> str:
    out = [
        _rect(
            (x + 6 * k, y + 6 - 3 * k, x + 6 * k + 34, y + 44 - 3 * k),
            PANEL if face_down else GREY,
            r=4,
            stroke=LINE,
            width=2,
        )
        for k in range(3)
    ]
    if not face_down:
        x1, y1 = x + 12, y + 6
        out += [
            _line(x1 + 6, y1 + 8, x1 + 22, y1 + 28, BLACK, 4),
            _line(x1 + 22, y1 + 8, x1 + 6, y1 + 28, BLACK, 4),
        ]
    return "".join(out)


def _middle(b: BoardFacts) -> list[str]:
    y = 142
    out = [_pile(60, y, face_down=True), _digits(160, y + 24, b.draw, 34, WHITE)]
    cx = WIDTH // 2 - 90
    for i in range(3):
        x = cx + i * 70
        out.append(_circle(x + 20, y + 24, 18, GOLD if i < b.tracker else PANEL, GOLD, 4))
        if i < 2:
            out.append(_poly([(x + 50, y + 16), (x + 60, y + 24), (x + 50, y + 32)], LINE))
    out += [
        _pile(WIDTH - 200, y, face_down=False),
        _digits(WIDTH - 100, y + 24, b.discard, 34, WHITE),
    ]
    return out


def _star(cx: float, cy: float, filled: bool) -> str:
    points = []
    for k in range(10):
        a = -math.pi / 2 + k * math.pi / 5
        r = 18 if k % 2 == 0 else 8
        points.append((cx + r * math.cos(a), cy + r * math.sin(a)))
    return _poly(points, GOLD if filled else BG, GOLD, 3)


def _seats(b: BoardFacts) -> list[str]:
    out = []
    x0, y = (WIDTH - b.players * SEAT_STEP) // 2 + (SEAT_STEP - TOKEN) // 2, 370
    for seat in range(b.players):
        x = x0 + seat * SEAT_STEP
        cx, top = x + TOKEN // 2, y - 22
        if seat == b.president:
            out.append(_star(cx, top, b.in_office))
        elif seat == b.chancellor:
            diamond = [(cx, top - 17), (cx + 15, top), (cx, top + 17), (cx - 15, top)]
            out.append(
                _poly(
                    [(float(p), float(q)) for p, q in diamond],
                    PURPLE if b.in_office else BG,
                    PURPLE,
                    3,
                )
            )
        alive = b.alive[seat] if seat < len(b.alive) else True
        out.append(_circle(cx, y + TOKEN // 2, TOKEN // 2 - 1, WHITE if alive else GREY, LINE, 3))
        out.append(_digits(cx, y + TOKEN // 2, seat + 1, 26, BLACK))
        if not alive:
            out.append(_line(x + 6, y + 6, x + TOKEN - 6, y + TOKEN - 6, RED_MARK, 6))
            out.append(_line(x + TOKEN - 6, y + 6, x + 6, y + TOKEN - 6, RED_MARK, 6))
        if seat < len(b.confirmed) and b.confirmed[seat]:
            cx2, cy2 = x + TOKEN - 7, y + TOKEN - 7
            out.append(_circle(cx2, cy2, 13, GREEN, WHITE, 2))
            out.append(
                f'<polyline points="{cx2 - 6},{cy2} {cx2 - 1},{cy2 + 6} {cx2 + 7},{cy2 - 6}" '
                f'fill="none" stroke="{WHITE}" stroke-width="4"/>'
            )
        if seat in b.term_limited:
            out.append(_veto((x - 6, y + TOKEN - 20, x + 18, y + TOKEN + 4), False))
    return out


@lru_cache(maxsize=256)
def board(b: BoardFacts) -> str:
    """The SVG of ``b`` (scales to any width: a viewBox, no fixed size)."""
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" '
        'class="board-svg" role="img">',
        _rect((0, 0, WIDTH, HEIGHT), BG, r=16),
    ]
    if b.winner:
        parts.append(
            _rect(
                (4, 4, WIDTH - 4, HEIGHT - 4),
                "none",
                r=14,
                stroke=LIB if b.winner == "liberal" else FAS,
                width=8,
            )
        )
    parts += _tracks(b) + _middle(b) + _seats(b)
    parts.append("</svg>")
    return "".join(parts)
