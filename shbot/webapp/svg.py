"""The board picture as SVG: the very drawing of ``bot/render/picture.py``, traced as shapes.

The picture's own code (:func:`~shbot.bot.render.picture.draw`, its icons, layout and
palette) draws onto a :class:`Trace`, which stands in for Pillow's ``ImageDraw`` and writes
each call as an SVG element; so the page and the chat show one design and cannot drift
apart. Built only from :class:`~shbot.bot.render.picture.BoardFacts`, like the PNG, so a
secret cannot reach it (roles are in the facts only once the game is over); its only words
are the seats' digits and Latin initials, escaped.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import lru_cache
from html import escape
from typing import Any, cast

from PIL import ImageDraw

from shbot.bot.render.picture import HEIGHT, PALETTE, WIDTH, BoardFacts, draw
from shbot.bot.render.picture_icons import BG

Box = Sequence[float]
_HEX = ["#{:02x}{:02x}{:02x}".format(*rgb) for rgb in PALETTE]


def _n(value: float) -> str:
    """A coordinate, short: at most two decimals, no trailing zeros."""
    return f"{round(value, 2):g}"


def _paint(fill: int | None, outline: int | None = None, width: int = 0) -> str:
    out = f'fill="{_HEX[fill] if fill is not None else "none"}"'
    if outline is not None and width:
        out += f' stroke="{_HEX[outline]}" stroke-width="{width}"'
    return out


def _inset(box: Box, outline: int | None, width: int) -> tuple[float, float, float, float, float]:
    """A Pillow box (both ends inclusive, the outline inside it) as an SVG shape's left, top,
    width, height and the half stroke it is inset by (an SVG stroke straddles the edge)."""
    half = width / 2 if outline is not None else 0
    x0, y0, x1, y1 = box
    return x0 + half, y0 + half, x1 + 1 - x0 - 2 * half, y1 + 1 - y0 - 2 * half, half


def _points(xy: Sequence[Any]) -> list[tuple[float, float]]:
    """Pillow's coordinates: flat ``(x0, y0, x1, y1, ...)`` or a list of pairs."""
    if xy and isinstance(xy[0], int | float):
        return [(xy[i], xy[i + 1]) for i in range(0, len(xy), 2)]
    return [(p[0], p[1]) for p in xy]


class Trace:
    """The part of ``ImageDraw.ImageDraw`` the picture uses, writing SVG elements instead of
    pixels (colours are the picture's palette indices; outlines drawn inside, as Pillow)."""

    def __init__(self) -> None:
        self.parts: list[str] = []

    def rectangle(
        self, xy: Box, fill: int | None = None, outline: int | None = None, width: int = 1
    ) -> None:
        self.rounded_rectangle(xy, 0, fill=fill, outline=outline, width=width)

    def rounded_rectangle(
        self,
        xy: Box,
        radius: float = 0,
        fill: int | None = None,
        outline: int | None = None,
        width: int = 1,
    ) -> None:
        x, y, w, h, half = _inset(xy, outline, width)
        rx = f' rx="{_n(radius - half)}"' if radius > half else ""
        self.parts.append(
            f'<rect x="{_n(x)}" y="{_n(y)}" width="{_n(w)}" height="{_n(h)}"{rx} '
            f"{_paint(fill, outline, width)}/>"
        )

    def ellipse(
        self, xy: Box, fill: int | None = None, outline: int | None = None, width: int = 1
    ) -> None:
        x, y, w, h, _ = _inset(xy, outline, width)
        self.parts.append(
            f'<ellipse cx="{_n(x + w / 2)}" cy="{_n(y + h / 2)}" rx="{_n(w / 2)}" '
            f'ry="{_n(h / 2)}" {_paint(fill, outline, width)}/>'
        )

    def line(self, xy: Sequence[Any], fill: int | None = None, width: int = 1) -> None:
        path = " ".join(f"{_n(x)},{_n(y)}" for x, y in _points(xy))
        self.parts.append(
            f'<polyline points="{path}" fill="none" stroke="{_HEX[fill or 0]}" '
            f'stroke-width="{width}" stroke-linejoin="round"/>'
        )

    def polygon(
        self,
        xy: Sequence[Any],
        fill: int | None = None,
        outline: int | None = None,
        width: int = 1,
    ) -> None:
        path = " ".join(f"{_n(x)},{_n(y)}" for x, y in _points(xy))
        self.parts.append(f'<polygon points="{path}" {_paint(fill, outline, width)}/>')

    def arc(
        self, xy: Box, start: float, end: float, fill: int | None = None, width: int = 1
    ) -> None:
        self.parts.append(
            f'<path d="{_arc(xy, start, end, width / 2)}" fill="none" '
            f'stroke="{_HEX[fill or 0]}" stroke-width="{width}"/>'
        )

    def pieslice(
        self, xy: Box, start: float, end: float, fill: int | None = None, **_: Any
    ) -> None:
        x, y, w, h, _half = _inset(xy, None, 0)
        centre = f"M{_n(x + w / 2)},{_n(y + h / 2)} L"
        self.parts.append(f'<path d="{centre}{_arc(xy, start, end, 0)[1:]} Z" {_paint(fill)}/>')

    def text(
        self,
        xy: Sequence[float],
        text: str,
        fill: int | None = None,
        font: Any = None,
        anchor: str | None = None,
        **_: Any,
    ) -> None:
        size = getattr(font, "size", 11)
        align = ' text-anchor="middle" dominant-baseline="central"' if anchor == "mm" else ""
        self.parts.append(
            f'<text x="{_n(xy[0])}" y="{_n(xy[1])}" font-size="{size}" '
            f'fill="{_HEX[fill or 0]}"{align} font-family="sans-serif">{escape(text)}</text>'
        )


def _arc(xy: Box, start: float, end: float, inset: float) -> str:
    """An SVG path (``M`` then ``A``) of Pillow's arc: degrees clockwise from 3 o'clock."""
    x, y, w, h, _ = _inset(xy, None, 0)
    cx, cy, rx, ry = x + w / 2, y + h / 2, w / 2 - inset, h / 2 - inset

    def at(angle: float) -> str:
        a = math.radians(angle)
        return f"{_n(cx + rx * math.cos(a))},{_n(cy + ry * math.sin(a))}"

    large = 1 if (end - start) % 360 > 180 else 0
    return f"M{at(start)} A{_n(rx)},{_n(ry)} 0 {large} 1 {at(end)}"


def trace(paint: Any) -> str:
    """The SVG elements ``paint(d)`` draws on a Pillow-like ``d`` (for tests and icons)."""
    t = Trace()
    paint(cast(ImageDraw.ImageDraw, t))
    return "".join(t.parts)


@lru_cache(maxsize=256)
def board(b: BoardFacts) -> str:
    """The SVG of ``b`` (scales to any width: a viewBox, no fixed size)."""
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" '
        f'class="board-svg" role="img"><rect width="{WIDTH}" height="{HEIGHT}" '
        f'fill="{_HEX[BG]}"/>{trace(lambda d: draw(d, b))}</svg>'
    )
