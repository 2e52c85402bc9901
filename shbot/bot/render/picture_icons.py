"""The board picture's icons: one shape per meaning, drawn in the picture's palette indices.

Each icon has one meaning only: the dove and the fasces are enacted policies, the magnifier,
the ballot box, the eye and the skull the four powers, the flag a party's last slot, the
prohibition sign the veto, the padlock a term limit, the tick a confirmed not-Hitler, the
star and the diamond the President and the Chancellor.
"""

from __future__ import annotations

import math

from PIL import ImageDraw

# The palette's indices (see picture.py, which imports them from here).
BG, LIB, LIB_EMPTY, FAS, FAS_EMPTY, WHITE, BLACK, GOLD = range(8)
GREY, GREEN, ZONE, PURPLE, PANEL, DARK, LINE, RED_MARK = range(8, 16)

Box = tuple[int, int, int, int]
Point = tuple[int, int]


def centre(box: Box) -> Point:
    return (box[0] + box[2]) // 2, (box[1] + box[3]) // 2


def dove(d: ImageDraw.ImageDraw, box: Box) -> None:
    """An enacted Liberal policy."""
    cx, cy = centre(box)
    body = [(cx - 34, cy + 4), (cx - 6, cy - 4), (cx + 4, cy - 30), (cx + 14, cy - 2)]
    body += [(cx + 34, cy - 10), (cx + 20, cy + 12), (cx - 4, cy + 20)]
    d.polygon(body, fill=WHITE)


def fasces(d: ImageDraw.ImageDraw, box: Box) -> None:
    """An enacted Fascist policy: a bundle of rods bound round an axe (unlike every power)."""
    cx, cy = centre(box)
    for k in range(-2, 3):  # five rods
        d.rounded_rectangle((cx + 7 * k - 3, cy - 30, cx + 7 * k + 3, cy + 32), 3, fill=WHITE)
    for y in (cy - 18, cy + 2, cy + 22):  # the straps
        d.rectangle((cx - 18, y - 3, cx + 18, y + 3), fill=BLACK)
    # the axe's blade: a half-disc on the bundle's side (not a pennant: that is the flag)
    d.pieslice((cx + 4, cy - 40, cx + 36, cy - 8), -90, 90, fill=BLACK)
    d.rectangle((cx + 16, cy - 26, cx + 22, cy - 22), fill=WHITE)


def skull(d: ImageDraw.ImageDraw, box: Box, ink: int, bone: int) -> None:
    """The Execution power."""
    cx, cy = centre(box)
    d.ellipse((cx - 26, cy - 30, cx + 26, cy + 16), fill=bone)
    d.rectangle((cx - 15, cy + 8, cx + 15, cy + 26), fill=bone)
    d.ellipse((cx - 17, cy - 12, cx - 5, cy), fill=ink)
    d.ellipse((cx + 5, cy - 12, cx + 17, cy), fill=ink)
    for tx in (-7, 0, 7):
        d.line((cx + tx, cy + 14, cx + tx, cy + 26), fill=ink, width=2)


def flag(d: ImageDraw.ImageDraw, box: Box, colour: int) -> None:
    """The last slot: this party wins."""
    cx, cy = centre(box)
    d.line((cx - 24, cy - 30, cx - 24, cy + 32), fill=BLACK, width=4)
    for row in range(3):
        for col in range(4):
            x, y = cx - 22 + col * 12, cy - 30 + row * 12
            d.rectangle((x, y, x + 11, y + 11), fill=BLACK if (row + col) % 2 else colour)


def power(d: ImageDraw.ImageDraw, box: Box, name: str) -> None:
    cx, cy = centre(box)
    ink = DARK
    if name == "investigate":  # a magnifying glass
        d.ellipse((cx - 26, cy - 28, cx + 10, cy + 8), outline=ink, width=7)
        d.line((cx + 6, cy + 4, cx + 26, cy + 26), fill=ink, width=10)
    elif name == "special_election":  # a ballot going into a box
        d.rectangle((cx - 28, cy - 4, cx + 28, cy + 28), fill=ink)
        d.rectangle((cx - 14, cy - 32, cx + 14, cy + 2), fill=WHITE, outline=ink, width=3)
        d.line((cx - 20, cy - 4, cx + 20, cy - 4), fill=FAS_EMPTY, width=3)
    elif name == "peek":  # an eye
        d.ellipse((cx - 34, cy - 18, cx + 34, cy + 18), fill=WHITE, outline=ink, width=5)
        d.ellipse((cx - 12, cy - 12, cx + 12, cy + 12), fill=ink)
    elif name == "execution":
        skull(d, box, FAS_EMPTY, ink)


def veto(d: ImageDraw.ImageDraw, box: Box, unlocked: bool) -> None:
    """A prohibition sign: the veto (only on the track); filled once unlocked."""
    d.ellipse(box, fill=GOLD if unlocked else None, outline=BLACK, width=3)
    d.line((box[0] + 5, box[3] - 5, box[2] - 5, box[1] + 5), fill=BLACK, width=3)


def padlock(d: ImageDraw.ImageDraw, c: Point, size: int) -> None:
    """A term limit: this seat may not be nominated Chancellor now."""
    x, y, half = c[0], c[1], size // 2
    d.arc(
        (x - half * 6 // 10, y - half, x + half * 6 // 10, y + half // 3),
        180,
        360,
        fill=LINE,
        width=max(3, size // 9),
    )
    d.line(
        (x - half * 6 // 10, y - half // 3, x - half * 6 // 10, y),
        fill=LINE,
        width=max(3, size // 9),
    )
    d.line(
        (x + half * 6 // 10, y - half // 3, x + half * 6 // 10, y),
        fill=LINE,
        width=max(3, size // 9),
    )
    d.rounded_rectangle((x - half, y - 2, x + half, y + half), 4, fill=LINE)
    d.ellipse((x - 4, y + half // 4 - 2, x + 4, y + half // 4 + 6), fill=BG)


def check(d: ImageDraw.ImageDraw, c: Point, size: int) -> None:
    """Confirmed not Hitler: a white tick on a green disc."""
    x, y, half = c[0], c[1], size // 2
    d.ellipse((x - half, y - half, x + half, y + half), fill=GREEN, outline=WHITE, width=2)
    k = size / 36
    tick = [(x - 10 * k, y + 1 * k), (x - 3 * k, y + 8 * k), (x + 10 * k, y - 8 * k)]
    d.line([(round(a), round(b)) for a, b in tick], fill=WHITE, width=max(4, size // 8))


def cross(d: ImageDraw.ImageDraw, box: Box, colour: int = RED_MARK) -> None:
    """Dead: a cross over the whole token (red; black on a Fascist's red token)."""
    x0, y0, x1, y1 = box
    d.line((x0 + 6, y0 + 6, x1 - 6, y1 - 6), fill=colour, width=8)
    d.line((x1 - 6, y0 + 6, x0 + 6, y1 - 6), fill=colour, width=8)


def star(d: ImageDraw.ImageDraw, c: Point, radius: int, *, filled: bool) -> None:
    """The President (outlined: the candidate, before the vote)."""
    inner = radius * 4 // 9
    points = [
        (
            c[0] + (radius if k % 2 == 0 else inner) * _COS[k],
            c[1] + (radius if k % 2 == 0 else inner) * _SIN[k],
        )
        for k in range(10)
    ]
    d.polygon(points, fill=GOLD if filled else BG, outline=GOLD, width=3)


def diamond(d: ImageDraw.ImageDraw, c: Point, radius: int, *, filled: bool) -> None:
    """The Chancellor (outlined: the nominee, before the vote)."""
    x, y = c
    w = radius * 7 // 8
    points = [(x, y - radius), (x + w, y), (x, y + radius), (x - w, y)]
    d.polygon(points, fill=PURPLE if filled else BG, outline=PURPLE, width=3)


def _unit_circle() -> tuple[list[float], list[float]]:
    angles = [-math.pi / 2 + k * math.pi / 5 for k in range(10)]
    return [math.cos(a) for a in angles], [math.sin(a) for a in angles]


_COS, _SIN = _unit_circle()
