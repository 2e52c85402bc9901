"""The board as a picture: tracks, powers, tracker, piles and seats, drawn with Pillow.

Language-free on purpose: only shapes, icons and digits are drawn (digits in Pillow's own
default font), so no script needs a font; every word goes in the localized caption. Built
only from :class:`BoardFacts`, a hashable digest of the engine's ``public_view``: a secret
cannot reach the picture, and the facts are the key of the image cache.
"""

from __future__ import annotations

import math
import struct
import zlib
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import lru_cache
from operator import attrgetter
from typing import Any

from PIL import Image, ImageDraw, ImageFont

from shbot.table import board

WIDTH, HEIGHT = 800, 460
CARD_W, CARD_H, GAP = 104, 112, 14
TOKEN, SEAT_STEP = 56, 78
CACHE_SIZE = 512  # images kept (a few tens of KB each): about one per step of recent games

# A fixed palette: the image is drawn and stored with 16 colours (small PNGs, fast to write).
BG, LIB, LIB_EMPTY, FAS, FAS_EMPTY, WHITE, BLACK, GOLD = range(8)
GREY, GREEN, ZONE, PURPLE, PANEL, DARK, LINE, RED_MARK = range(8, 16)
PALETTE = [
    (43, 45, 51),  # BG
    (52, 118, 196),  # LIB
    (160, 193, 232),  # LIB_EMPTY
    (196, 62, 46),  # FAS
    (236, 170, 156),  # FAS_EMPTY
    (246, 242, 234),  # WHITE
    (24, 24, 26),  # BLACK
    (232, 181, 58),  # GOLD
    (125, 127, 134),  # GREY
    (76, 175, 80),  # GREEN
    (120, 30, 22),  # ZONE
    (150, 96, 190),  # PURPLE
    (66, 68, 76),  # PANEL
    (90, 40, 34),  # DARK
    (200, 200, 205),  # LINE
    (229, 57, 53),  # RED_MARK
]
_FLAT_PALETTE = [c for rgb in PALETTE for c in rgb]

Box = tuple[int, int, int, int]


@dataclass(frozen=True)
class BoardFacts:
    """What the picture shows, all public; equal facts draw identical images."""

    players: int
    powers: tuple[str | None, ...]
    liberal: int
    fascist: int
    tracker: int
    draw: int
    discard: int
    veto: bool
    president: int  # -1: none
    chancellor: int  # the nominee during a vote, the Chancellor in office; -1: none
    in_office: bool
    term_limited: tuple[int, ...]
    alive: tuple[bool, ...]
    confirmed: tuple[bool, ...]
    winner: str | None


def facts(view: dict[str, Any]) -> BoardFacts:
    """The picture's facts from the engine's ``public_view`` (roles are never read)."""
    return BoardFacts(**board.picture_view(view))


@lru_cache(maxsize=CACHE_SIZE)
def render(board: BoardFacts) -> bytes:
    """The PNG of ``board``; cached, so the same facts give the same bytes object."""
    return _png([_band(index, shows(board)) for index, shows in enumerate(_SHOWS)])


def cache_clear() -> None:
    """Forget every image and band (the bench's worst case: each picture drawn in full)."""
    render.cache_clear()
    _band.cache_clear()


# ------------------------------------------------------------------------------ bands

# The picture is five bands of whole rows, each drawn by one function that paints inside its
# own rows only, and each showing only a few facts: a band is drawn and deflated once per
# distinct value of those facts, and an image is its bands' deflated rows put end to end.
# The winner's border runs down every band's sides, so every band shows the winner.
_ROWS = ((0, 137), (137, 191), (191, 327), (327, 369), (369, HEIGHT))
_KEYS = (
    ("winner", "liberal"),
    ("winner", "draw", "tracker", "discard"),
    ("winner", "fascist", "powers", "veto"),
    ("winner", "players", "president", "chancellor", "in_office"),
    ("winner", "players", "alive", "confirmed", "term_limited"),
)
_SHOWS = tuple(attrgetter(*fields) for fields in _KEYS)  # a band's key: the facts it shows
_NOTHING = BoardFacts(0, (), 0, 0, 0, 0, 0, False, -1, -1, False, (), (), (), None)
BAND_CACHE_SIZE = 1024  # deflated bands, 1-3 KB each; most steps of a game draw one or two


@lru_cache(maxsize=BAND_CACHE_SIZE)
def _band(index: int, shown: tuple[Any, ...]) -> tuple[bytes, int, int]:
    """Band ``index`` of a picture showing ``shown`` (its facts ``_KEYS[index]``) as PNG rows:
    deflated, their Adler-32 and length. The other facts are blanked, so cannot leak in."""
    board = replace(_NOTHING, **dict(zip(_KEYS[index], shown, strict=True)))
    top, bottom = _ROWS[index]
    image = Image.new("P", (WIDTH, HEIGHT), BG)
    d = ImageDraw.Draw(image)
    if board.winner:  # drawn first, as everything else may cover it
        d.rectangle(
            (0, 0, WIDTH - 1, HEIGHT - 1),
            outline=LIB if board.winner == "liberal" else FAS,
            width=8,
        )
    _DRAW[index](d, board)
    # Two BG pixels before each row pack to byte 0, PNG's filter "none" that starts a row.
    rows = Image.new("P", (WIDTH + 2, bottom - top), BG)
    rows.paste(image.crop((0, top, WIDTH, bottom)), (2, 0))
    raw = rows.tobytes("raw", "P;4")
    deflate = zlib.compressobj(1, zlib.DEFLATED, -15)  # raw deflate, ended on a byte boundary
    return deflate.compress(raw) + deflate.flush(zlib.Z_SYNC_FLUSH), zlib.adler32(raw), len(raw)


def _png(bands: list[tuple[bytes, int, int]]) -> bytes:
    """A 4-bit palette PNG from its bands' rows, top to bottom, as one zlib stream."""
    adler = 1
    for _, checksum, length in bands:
        adler = _adler32_join(adler, checksum, length)
    data = b"".join(deflated for deflated, _, _ in bands)
    # zlib header (deflate, fastest), the bands' blocks, an empty last block, the checksum.
    idat = b"\x78\x01" + data + b"\x03\x00" + adler.to_bytes(4, "big")
    return _HEAD + _chunk(b"IDAT", idat) + _chunk(b"IEND", b"")


def _adler32_join(first: int, second: int, length: int) -> int:
    """The Adler-32 of two byte strings end to end from theirs (zlib's adler32_combine)."""
    mod, rem = 65521, length % 65521
    low = ((first & 0xFFFF) + (second & 0xFFFF) - 1) % mod
    high = (rem * (first & 0xFFFF) + (first >> 16) + (second >> 16) - rem) % mod
    return low | high << 16


def _chunk(kind: bytes, data: bytes) -> bytes:
    return len(data).to_bytes(4, "big") + kind + data + zlib.crc32(kind + data).to_bytes(4, "big")


_HEAD = (
    b"\x89PNG\r\n\x1a\n"
    + _chunk(b"IHDR", struct.pack(">IIBBBBB", WIDTH, HEIGHT, 4, 3, 0, 0, 0))  # 4-bit palette
    + _chunk(b"PLTE", bytes(_FLAT_PALETTE))
)


@lru_cache(maxsize=4)
def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    """Pillow's bundled default font, used for digits only."""
    try:
        return ImageFont.load_default(size=size)
    except (OSError, TypeError):  # Pillow built without FreeType: the small bitmap font
        return ImageFont.load_default()


def _digits(
    d: ImageDraw.ImageDraw, center: tuple[int, int], number: int, size: int, fill: int
) -> None:
    d.text(center, str(number), fill=fill, font=_font(size), anchor="mm")


# ------------------------------------------------------------------------------ tracks


def _row_x(count: int) -> int:
    return (WIDTH - count * CARD_W - (count - 1) * GAP) // 2


def _liberal_track(d: ImageDraw.ImageDraw, b: BoardFacts) -> None:
    x0, y = _row_x(5), 18
    for i in range(5):
        box = (x0 + i * (CARD_W + GAP), y, x0 + i * (CARD_W + GAP) + CARD_W, y + CARD_H)
        if i < b.liberal:
            _card(d, box, LIB)
            _dove(d, box)
        else:
            d.rounded_rectangle(box, 10, fill=LIB_EMPTY, outline=LIB, width=3)
            if i == 4:
                _flag(d, box, LIB)


def _fascist_track(d: ImageDraw.ImageDraw, b: BoardFacts) -> None:
    x0, y = _row_x(6), 202
    # From the fourth slot on, electing Hitler Chancellor wins (R10): a dark band marks it.
    zone_x = x0 + 3 * (CARD_W + GAP) - GAP // 2
    d.rounded_rectangle((zone_x, y - 8, WIDTH - x0 + GAP // 2, y + CARD_H + 8), 12, fill=ZONE)
    for i in range(6):
        box = (x0 + i * (CARD_W + GAP), y, x0 + i * (CARD_W + GAP) + CARD_W, y + CARD_H)
        if i < b.fascist:
            _card(d, box, FAS)
            _skull(d, box, BLACK, WHITE)
        else:
            d.rounded_rectangle(box, 10, fill=FAS_EMPTY, outline=FAS, width=3)
            power = b.powers[i] if i < len(b.powers) else None
            if i == 5:
                _flag(d, box, FAS)
            elif power:
                _power(d, box, power)
        if i == 4:  # the veto unlocks with the fifth Fascist policy
            _veto(d, (box[2] - 30, box[3] - 30, box[2] - 6, box[3] - 6), b.veto)


def _card(d: ImageDraw.ImageDraw, box: Box, colour: int) -> None:
    d.rounded_rectangle(box, 10, fill=colour, outline=WHITE, width=4)


def _middle_row(d: ImageDraw.ImageDraw, b: BoardFacts) -> None:
    """Draw pile, election tracker, discard pile."""
    y = 142
    _pile(d, (60, y), face_down=True)
    _digits(d, (160, y + 24), b.draw, 34, WHITE)
    cx = WIDTH // 2 - 90
    for i in range(3):
        x = cx + i * 70
        filled = i < b.tracker
        d.ellipse((x, y + 4, x + 40, y + 44), fill=GOLD if filled else PANEL, outline=GOLD, width=4)
        if i < 2:
            d.polygon([(x + 50, y + 16), (x + 60, y + 24), (x + 50, y + 32)], fill=LINE)
    _pile(d, (WIDTH - 200, y), face_down=False)
    _digits(d, (WIDTH - 100, y + 24), b.discard, 34, WHITE)


def _pile(d: ImageDraw.ImageDraw, at: tuple[int, int], *, face_down: bool) -> None:
    x, y = at
    for k in range(3):
        box = (x + 6 * k, y + 6 - 3 * k, x + 6 * k + 34, y + 44 - 3 * k)
        d.rounded_rectangle(box, 4, fill=PANEL if face_down else GREY, outline=LINE, width=2)
    if not face_down:  # a cross on the top card: discarded
        x1, y1 = x + 12, y + 6
        d.line((x1 + 6, y1 + 8, x1 + 22, y1 + 28), fill=BLACK, width=4)
        d.line((x1 + 22, y1 + 8, x1 + 6, y1 + 28), fill=BLACK, width=4)


# ------------------------------------------------------------------------------ icons


def _centre(box: Box) -> tuple[int, int]:
    return (box[0] + box[2]) // 2, (box[1] + box[3]) // 2


def _dove(d: ImageDraw.ImageDraw, box: Box) -> None:
    cx, cy = _centre(box)
    body = [(cx - 34, cy + 4), (cx - 6, cy - 4), (cx + 4, cy - 30), (cx + 14, cy - 2)]
    body += [(cx + 34, cy - 10), (cx + 20, cy + 12), (cx - 4, cy + 20)]
    d.polygon(body, fill=WHITE)


def _skull(d: ImageDraw.ImageDraw, box: Box, ink: int, bone: int) -> None:
    cx, cy = _centre(box)
    d.ellipse((cx - 26, cy - 30, cx + 26, cy + 16), fill=bone)
    d.rectangle((cx - 15, cy + 8, cx + 15, cy + 26), fill=bone)
    d.ellipse((cx - 17, cy - 12, cx - 5, cy), fill=ink)
    d.ellipse((cx + 5, cy - 12, cx + 17, cy), fill=ink)
    for tx in (-7, 0, 7):
        d.line((cx + tx, cy + 14, cx + tx, cy + 26), fill=ink, width=2)


def _flag(d: ImageDraw.ImageDraw, box: Box, colour: int) -> None:
    """The last slot: this party wins."""
    cx, cy = _centre(box)
    d.line((cx - 24, cy - 30, cx - 24, cy + 32), fill=BLACK, width=4)
    for row in range(3):
        for col in range(4):
            x, y = cx - 22 + col * 12, cy - 30 + row * 12
            d.rectangle((x, y, x + 11, y + 11), fill=BLACK if (row + col) % 2 else colour)


def _power(d: ImageDraw.ImageDraw, box: Box, power: str) -> None:
    cx, cy = _centre(box)
    ink = DARK
    if power == "investigate":  # a magnifying glass
        d.ellipse((cx - 26, cy - 28, cx + 10, cy + 8), outline=ink, width=7)
        d.line((cx + 6, cy + 4, cx + 26, cy + 26), fill=ink, width=10)
    elif power == "special_election":  # a ballot going into a box
        d.rectangle((cx - 28, cy - 4, cx + 28, cy + 28), fill=ink)
        d.rectangle((cx - 14, cy - 32, cx + 14, cy + 2), fill=WHITE, outline=ink, width=3)
        d.line((cx - 20, cy - 4, cx + 20, cy - 4), fill=FAS_EMPTY, width=3)
    elif power == "peek":  # an eye
        d.ellipse((cx - 34, cy - 18, cx + 34, cy + 18), fill=WHITE, outline=ink, width=5)
        d.ellipse((cx - 12, cy - 12, cx + 12, cy + 12), fill=ink)
    elif power == "execution":
        _skull(d, box, FAS_EMPTY, ink)


def _veto(d: ImageDraw.ImageDraw, box: Box, unlocked: bool) -> None:
    """A prohibition sign: the veto; filled once unlocked."""
    d.ellipse(box, fill=GOLD if unlocked else None, outline=BLACK, width=3)
    d.line((box[0] + 5, box[3] - 5, box[2] - 5, box[1] + 5), fill=BLACK, width=3)


# ------------------------------------------------------------------------------ seats


def _seat_x(b: BoardFacts) -> int:
    return (WIDTH - b.players * SEAT_STEP) // 2 + (SEAT_STEP - TOKEN) // 2


def _seats(d: ImageDraw.ImageDraw, b: BoardFacts) -> None:
    """The tokens: numbers, deaths, confirmed not-Hitlers, term limits."""
    x0, y = _seat_x(b), 370
    for seat in range(b.players):
        x = x0 + seat * SEAT_STEP
        box = (x, y, x + TOKEN, y + TOKEN)
        alive = b.alive[seat] if seat < len(b.alive) else True
        d.ellipse(box, fill=WHITE if alive else GREY, outline=LINE, width=3)
        _digits(d, (x + TOKEN // 2, y + TOKEN // 2), seat + 1, 26, BLACK)
        if not alive:
            d.line((x + 6, y + 6, x + TOKEN - 6, y + TOKEN - 6), fill=RED_MARK, width=6)
            d.line((x + TOKEN - 6, y + 6, x + 6, y + TOKEN - 6), fill=RED_MARK, width=6)
        if seat < len(b.confirmed) and b.confirmed[seat]:
            _check(d, (x + TOKEN - 16, y + TOKEN - 16))
        if seat in b.term_limited:
            _veto(d, (x - 6, y + TOKEN - 20, x + 18, y + TOKEN + 4), False)


def _government(d: ImageDraw.ImageDraw, b: BoardFacts) -> None:
    """Above the tokens: the President's star and the Chancellor's diamond."""
    x0, y = _seat_x(b), 370
    for seat in range(b.players):
        top = (x0 + seat * SEAT_STEP + TOKEN // 2, y - 22)
        if seat == b.president:
            _star(d, top, filled=b.in_office)
        elif seat == b.chancellor:
            _diamond(d, top, filled=b.in_office)


def _check(d: ImageDraw.ImageDraw, at: tuple[int, int]) -> None:
    x, y = at
    d.ellipse((x - 4, y - 4, x + 22, y + 22), fill=GREEN, outline=WHITE, width=2)
    d.line((x + 3, y + 9, x + 8, y + 15, x + 16, y + 3), fill=WHITE, width=4)


def _star(d: ImageDraw.ImageDraw, c: tuple[int, int], *, filled: bool) -> None:
    """The President (outlined: the candidate, before the vote)."""
    points = [
        (c[0] + (18 if k % 2 == 0 else 8) * _COS[k], c[1] + (18 if k % 2 == 0 else 8) * _SIN[k])
        for k in range(10)
    ]
    d.polygon(points, fill=GOLD if filled else BG, outline=GOLD, width=3)


def _diamond(d: ImageDraw.ImageDraw, c: tuple[int, int], *, filled: bool) -> None:
    """The Chancellor (outlined: the nominee, before the vote)."""
    x, y = c
    points = [(x, y - 17), (x + 15, y), (x, y + 17), (x - 15, y)]
    d.polygon(points, fill=PURPLE if filled else BG, outline=PURPLE, width=3)


def _unit_circle() -> tuple[list[float], list[float]]:
    angles = [-math.pi / 2 + k * math.pi / 5 for k in range(10)]
    return [math.cos(a) for a in angles], [math.sin(a) for a in angles]


_COS, _SIN = _unit_circle()

_DRAW: tuple[Callable[[ImageDraw.ImageDraw, BoardFacts], None], ...] = (
    _liberal_track,
    _middle_row,
    _fascist_track,
    _government,
    _seats,
)
