"""The board as a picture: tracks, powers, tracker, piles and seats, drawn with Pillow.

Language-free on purpose: only shapes, icons and digits are drawn (digits in Pillow's own
default font), so no script needs a font; every word goes in the localized caption. Built
only from :class:`BoardFacts`, a hashable digest of the engine's ``public_view``: a secret
cannot reach the picture, and the facts are the key of the image cache.
"""

from __future__ import annotations

import struct
import unicodedata
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from operator import attrgetter
from typing import Any

from PIL import Image, ImageDraw, ImageFont

from shbot.engine import FASCIST, HITLER, LIBERAL
from shbot.table import board

from . import picture_icons as icons
from .picture_icons import (
    BG,
    BLACK,
    FAS,
    FAS_EMPTY,
    GOLD,
    GREY,
    LIB,
    LIB_EMPTY,
    LINE,
    PANEL,
    RED_MARK,
    WHITE,
    ZONE,
)

WIDTH, HEIGHT = 800, 560
CARD_W, CARD_H, GAP = 104, 112, 14
TOKEN, SEAT_STEP = 70, 78
CACHE_SIZE = 512  # images kept (a few tens of KB each): about one per step of recent games

# A fixed palette: the image is drawn and stored with 16 colours (small PNGs, fast to write).
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
    initials: tuple[str, ...] = ()  # by seat, from the public names ("": the number alone)
    roles: tuple[str, ...] = ()  # revealed by the engine once the game is over; else empty


def facts(view: dict[str, Any], names: Sequence[str] = ()) -> BoardFacts:
    """The picture's facts from the engine's ``public_view`` and the seats' names (roles are
    read only once the game is over, when the engine's view reveals them)."""
    over = view["winner"] is not None
    drawn = board.picture_view(view)
    if over:  # no term limit holds any more: no padlock is left on the final picture
        drawn["term_limited"] = ()
    roles = tuple(view.get("roles", ())) if over else ()
    return BoardFacts(
        **drawn,
        initials=tuple(initials(n) for n in names),
        roles=tuple(str(r) for r in roles),
    )


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
_ROWS = ((0, 137), (137, 191), (191, 327), (327, 386), (386, HEIGHT))
_KEYS = (
    ("winner", "liberal"),
    ("winner", "draw", "tracker", "discard"),
    ("winner", "fascist", "powers", "veto"),
    ("winner", "players", "president", "chancellor", "in_office"),
    ("winner", "players", "alive", "confirmed", "term_limited", "initials", "roles"),
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
    _border(d, board)
    _DRAW[index](d, board)
    # Two BG pixels before each row pack to byte 0, PNG's filter "none" that starts a row.
    rows = Image.new("P", (WIDTH + 2, bottom - top), BG)
    rows.paste(image.crop((0, top, WIDTH, bottom)), (2, 0))
    raw = rows.tobytes("raw", "P;4")
    deflate = zlib.compressobj(1, zlib.DEFLATED, -15)  # raw deflate, ended on a byte boundary
    return deflate.compress(raw) + deflate.flush(zlib.Z_SYNC_FLUSH), zlib.adler32(raw), len(raw)


def draw(d: ImageDraw.ImageDraw, board: BoardFacts) -> None:
    """The whole of ``board`` on ``d`` at once, on a ``WIDTH`` x ``HEIGHT`` canvas of colour
    ``BG``: how the Mini App's SVG (``shbot.webapp.svg``) draws the same design."""
    _border(d, board)
    for part in _DRAW:
        part(d, board)


def _border(d: ImageDraw.ImageDraw, board: BoardFacts) -> None:
    """The winner's colour round the edge; drawn first, as everything else may cover it."""
    if board.winner:
        d.rectangle(
            (0, 0, WIDTH - 1, HEIGHT - 1),
            outline=LIB if board.winner == "liberal" else FAS,
            width=8,
        )


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


@lru_cache(maxsize=8)
def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    """Pillow's bundled default font, used for digits and Latin initials only."""
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
            icons.dove(d, box)
        else:
            d.rounded_rectangle(box, 10, fill=LIB_EMPTY, outline=LIB, width=3)
            if i == 4:
                icons.flag(d, box, LIB)


def _fascist_track(d: ImageDraw.ImageDraw, b: BoardFacts) -> None:
    x0, y = _row_x(6), 202
    # From the fourth slot on, electing Hitler Chancellor wins (R10): a dark band marks it.
    zone_x = x0 + 3 * (CARD_W + GAP) - GAP // 2
    d.rounded_rectangle((zone_x, y - 8, WIDTH - x0 + GAP // 2, y + CARD_H + 8), 12, fill=ZONE)
    for i in range(6):
        box = (x0 + i * (CARD_W + GAP), y, x0 + i * (CARD_W + GAP) + CARD_W, y + CARD_H)
        if i < b.fascist:
            _card(d, box, FAS)
            icons.fasces(d, box)
        else:
            d.rounded_rectangle(box, 10, fill=FAS_EMPTY, outline=FAS, width=3)
            power = b.powers[i] if i < len(b.powers) else None
            if i == 5:
                icons.flag(d, box, FAS)
            elif power:
                icons.power(d, box, power)
        if i == 4:  # the veto unlocks with the fifth Fascist policy
            icons.veto(d, (box[2] - 30, box[3] - 30, box[2] - 6, box[3] - 6), b.veto)


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


# ------------------------------------------------------------------------------ seats

SEAT_TOP, NUMBER_SIZE, INITIALS_SIZE, MARK = 392, 40, 32, 36  # marks: 1.5x the old digits


def _seat_x(b: BoardFacts) -> int:
    return (WIDTH - b.players * SEAT_STEP) // 2 + (SEAT_STEP - TOKEN) // 2


#: A seat's token at the end: its role's colour (fill, ring, number).
_ROLE_TOKEN = {
    LIBERAL: (LIB, WHITE, WHITE),
    FASCIST: (FAS, WHITE, WHITE),
    HITLER: (BLACK, RED_MARK, WHITE),
}


def _seats(d: ImageDraw.ImageDraw, b: BoardFacts) -> None:
    """The tokens with their numbers, initials under them and a row of marks: dead (a red
    cross), confirmed not Hitler (a tick), term-limited (a padlock); at the end, the roles."""
    x0, y = _seat_x(b), SEAT_TOP
    for seat in range(b.players):
        x = x0 + seat * SEAT_STEP
        box = (x, y, x + TOKEN, y + TOKEN)
        alive = b.alive[seat] if seat < len(b.alive) else True
        role = b.roles[seat] if seat < len(b.roles) else None
        fill, ring, ink = _ROLE_TOKEN.get(role or "", (WHITE if alive else GREY, LINE, BLACK))
        d.ellipse(box, fill=fill, outline=ring, width=6 if role == HITLER else 3)
        _digits(d, (x + TOKEN // 2, y + TOKEN // 2 + 2), seat + 1, NUMBER_SIZE, ink)
        if seat < len(b.initials) and b.initials[seat]:
            d.text(
                (x + TOKEN // 2, y + TOKEN + 22),
                b.initials[seat],
                fill=WHITE,
                font=_font(INITIALS_SIZE),
                anchor="mm",
            )
        if not alive:
            icons.cross(d, box, BLACK if fill == FAS else RED_MARK)
        if role:  # the roles are out: a tick or a padlock would say nothing more
            continue
        marks = []
        if seat < len(b.confirmed) and b.confirmed[seat]:
            marks.append(icons.check)
        if seat in b.term_limited:
            marks.append(icons.padlock)
        for k, mark in enumerate(marks):
            offset = 0 if len(marks) == 1 else (MARK // 2 + 2) * (2 * k - 1)
            mark(d, (x + TOKEN // 2 + offset, y + TOKEN + 64), MARK)


def _government(d: ImageDraw.ImageDraw, b: BoardFacts) -> None:
    """Above the tokens: the President's star and the Chancellor's diamond."""
    x0 = _seat_x(b)
    for seat in range(b.players):
        top = (x0 + seat * SEAT_STEP + TOKEN // 2, 358)
        if seat == b.president:
            icons.star(d, top, 25, filled=b.in_office)
        elif seat == b.chancellor:
            icons.diamond(d, top, 24, filled=b.in_office)


def initials(name: str) -> str:
    """Up to two capital letters for a seat's token, from a name's first two words: accents
    dropped; a word with no Latin letter or digit gives none (the drawn font has only those,
    and the caption names every seat by number)."""
    letters = []
    for word in unicodedata.normalize("NFKD", name).split():
        first = next((c for c in word if c.isascii() and c.isalnum()), None)
        if first:
            letters.append(first.upper())
    return "".join(letters[:2])


_DRAW: tuple[Callable[[ImageDraw.ImageDraw, BoardFacts], None], ...] = (
    _liberal_track,
    _middle_row,
    _fascist_track,
    _government,
    _seats,
)
