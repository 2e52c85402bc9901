"""The board picture (bot/render/picture.py): drawn from public facts only, cached by them,
the same facts give the same bytes and different facts different ones, within the size
Telegram shows well."""

from __future__ import annotations

import io
import random
import zlib

import pytest
from PIL import Image, ImageDraw

from shbot.bench.picture import board_views
from shbot.bot import render as r
from shbot.bot.delivery import media
from shbot.bot.render import picture
from shbot.engine import HITLER, Game
from shbot.i18n import translator
from shbot.table.model import Player, Table


def test_same_facts_same_bytes_and_cached() -> None:
    view = next(board_views(7, 3))
    board = picture.facts(view)
    first = picture.render(board)
    assert picture.render(picture.facts(dict(view))) is first  # served from the cache
    picture.render.cache_clear()
    assert picture.render(board) == first  # drawn again: byte for byte the same


def test_different_facts_different_bytes_over_games() -> None:
    """Every distinct board state of many games draws a distinct image."""
    images: dict[picture.BoardFacts, bytes] = {}
    for players in range(5, 11):
        for seed in range(3):
            for view in board_views(players, seed):
                board = picture.facts(view)
                images.setdefault(board, picture.render(board))
    assert len(images) > 500
    assert len(set(images.values())) == len(images)


def test_image_is_a_small_png() -> None:
    views = list(board_views(10, 1))
    for view in (views[0], views[len(views) // 2], views[-1]):
        png = picture.render(picture.facts(view))
        assert len(png) < 100 * 1024
        image = Image.open(io.BytesIO(png))
        assert image.format == "PNG"
        assert image.size == (picture.WIDTH, picture.HEIGHT)
        assert image.mode == "P"


def test_picture_ignores_hidden_state() -> None:
    """Two games that differ only in who holds which role draw the same picture during
    play; the roles are drawn only once the game is over (the engine then reveals them)."""
    a, _ = Game.new(7, 11, roles="LLLLFFH")
    b, _ = Game.new(7, 11, roles="HFFLLLL")
    assert a.roles != b.roles
    assert picture.render(picture.facts(a.public_view())) == picture.render(
        picture.facts(b.public_view())
    )
    over = list(board_views(5, 2))[-1]
    assert "roles" in over
    assert picture.facts(over).roles == tuple(over["roles"])
    assert picture.facts(over) != picture.facts({**over, "roles": [HITLER] * 5})
    playing = list(board_views(5, 2))[-2]
    assert picture.facts({**playing, "roles": [HITLER] * 5}).roles == ()


def test_markers_change_the_picture() -> None:
    """Each seat marker is drawn: the President, the nominee, a term limit, a death, a
    confirmed not-Hitler each change the image."""
    base = picture.facts(next(board_views(6, 0)))
    variants = [
        base.__class__(**{**base.__dict__, "president": 3}),
        base.__class__(**{**base.__dict__, "chancellor": 4}),
        base.__class__(**{**base.__dict__, "term_limited": (2,)}),
        base.__class__(**{**base.__dict__, "alive": (True, False, True, True, True, True)}),
        base.__class__(**{**base.__dict__, "confirmed": (False, False, True, False, False, False)}),
        base.__class__(**{**base.__dict__, "draw": 16, "discard": 1}),
        base.__class__(**{**base.__dict__, "tracker": 2}),
        base.__class__(**{**base.__dict__, "veto": True}),
    ]
    rendered = {picture.render(v) for v in variants}
    assert len(rendered) == len(variants)
    assert picture.render(base) not in rendered


@pytest.mark.parametrize("lang", ["en", "ja", "fr"])
def test_caption_shortens_long_names_to_fit(lang: str) -> None:
    """Ten names of 45 emoji (two UTF-16 units each) would make a caption well over 1,024
    characters: the names are shortened, never the caption's lines."""
    game, _ = Game.new(10, 5)
    players = [Player(100 + i, "🦊" * 45 + str(i)) for i in range(10)]
    table = Table("g", 100, 0.0, players=players, game=game, options={"board": "picture"})
    t = translator(lang)
    assert media.visible_length(media._caption(t, table)) > media.MAX_CAPTION
    caption = media.board_caption(t, table)
    assert media.visible_length(caption) <= media.MAX_CAPTION
    assert caption.split("\n")[0] == r.board_text(t, table).split("\n")[0]
    assert "🦊…" in caption  # shortened names
    assert caption.count("\n") == media._caption(t, table).count("\n")  # every line kept


POWERS = (None, "investigate", "special_election", "peek", "execution")


def edge_boards(count: int, seed: int = 0) -> list[picture.BoardFacts]:
    """Boards no game need reach but the picture must draw: every marker, pile and track
    value, winners, the dead, term limits, out-of-range seats (-1), ten players."""
    rng = random.Random(seed)
    boards = []
    for _ in range(count):
        n = rng.randint(5, 10)
        boards.append(
            picture.BoardFacts(
                players=n,
                powers=tuple(rng.choice(POWERS) for _ in range(rng.choice((5, 6)))),
                liberal=rng.randint(0, 5),
                fascist=rng.randint(0, 6),
                tracker=rng.randint(0, 3),
                draw=rng.randint(0, 17),
                discard=rng.randint(0, 17),
                veto=rng.random() < 0.5,
                president=rng.randint(-1, n - 1),
                chancellor=rng.randint(-1, n - 1),
                in_office=rng.random() < 0.5,
                term_limited=tuple(sorted(rng.sample(range(n), rng.randint(0, 2)))),
                alive=tuple(rng.random() < 0.7 for _ in range(n)),
                confirmed=tuple(rng.random() < 0.3 for _ in range(n)),
                winner=rng.choice((None, None, "liberal", "fascist")),
            )
        )
    ten = picture.facts(list(board_views(10, 0))[-1])
    every = {"term_limited": tuple(range(10)), "confirmed": (True,) * 10, "veto": True}
    for winner in (None, "liberal", "fascist"):
        boards.append(ten.__class__(**{**ten.__dict__, **every, "winner": winner}))
        boards.append(ten.__class__(**{**ten.__dict__, "alive": (False,) * 10, "winner": winner}))
    return boards


def one_piece(board: picture.BoardFacts) -> Image.Image:
    """The picture drawn the plain way: every part on one canvas, the winner's border first.
    (On 2026-11-26 this matched the drawing from before the band cache, then kept in a copy,
    for every board of these tests.)"""
    image = Image.new("P", (picture.WIDTH, picture.HEIGHT), picture.BG)
    image.putpalette(picture._FLAT_PALETTE)
    d = ImageDraw.Draw(image)
    if board.winner:
        colour = picture.LIB if board.winner == "liberal" else picture.FAS
        d.rectangle((0, 0, picture.WIDTH - 1, picture.HEIGHT - 1), outline=colour, width=8)
    for draw in picture._DRAW:
        draw(d, board)
    return image


def assert_same_pixels(board: picture.BoardFacts) -> None:
    png = picture.render(board)
    image, reference = Image.open(io.BytesIO(png)), one_piece(board)
    assert image.format == "PNG" and image.mode == "P", board
    assert image.getpalette() == reference.getpalette(), board
    assert image.tobytes() == reference.tobytes(), board
    assert image.convert("RGB").tobytes() == reference.convert("RGB").tobytes(), board


def test_pixels_match_the_reference_over_games() -> None:
    """The picture is put together from cached bands, yet every board of real games draws
    what drawing it in one piece draws, pixel for pixel (a part drawn outside its band's
    rows, or a band keyed without a fact it shows, would differ)."""
    picture.cache_clear()
    boards = {
        picture.facts(view): None for players in range(5, 11) for view in board_views(players, 0)
    }
    assert len(boards) > 300
    for board in boards:
        assert_same_pixels(board)


def test_pixels_match_the_reference_on_edge_cases() -> None:
    """Random boards drawn in turn (bands kept from other boards with the same facts) and
    again from scratch (each band drawn anew) match the reference."""
    boards = edge_boards(250)
    picture.cache_clear()
    for board in boards:
        assert_same_pixels(board)
    for board in boards[:40]:
        picture.cache_clear()
        assert_same_pixels(board)


def test_png_is_well_formed() -> None:
    """Chunk CRCs and the zlib stream's own Adler-32 check out (a decoder may skip them)."""
    for board in edge_boards(20, seed=1):
        png = picture.render(board)
        assert png.startswith(b"\x89PNG\r\n\x1a\n") and len(png) < 100 * 1024
        at, chunks = 8, {}
        while at < len(png):
            size = int.from_bytes(png[at : at + 4], "big")
            kind, data = png[at + 4 : at + 8], png[at + 8 : at + 8 + size]
            assert png[at + 8 + size : at + 12 + size] == zlib.crc32(kind + data).to_bytes(4, "big")
            chunks[kind] = data
            at += 12 + size
        assert list(chunks) == [b"IHDR", b"PLTE", b"IDAT", b"IEND"]
        rows = zlib.decompress(chunks[b"IDAT"])  # checks the Adler-32
        assert len(rows) == picture.HEIGHT * (1 + picture.WIDTH // 2)


def test_adler32_join() -> None:
    rng = random.Random(3)
    for _ in range(200):
        a = rng.randbytes(rng.randint(0, 3000))
        b = rng.randbytes(rng.choice((0, 1, 65520, 65521, 65522, rng.randint(0, 200_000))))
        joined = picture._adler32_join(zlib.adler32(a), zlib.adler32(b), len(b))
        assert joined == zlib.adler32(a + b)
