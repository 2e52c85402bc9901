"""The board picture (bot/render/picture.py): drawn from public facts only, cached by them,
the same facts give the same bytes and different facts different ones, within the size
Telegram shows well."""

from __future__ import annotations

import io

import pytest
from PIL import Image

from shbot.bench.picture import board_views
from shbot.bot import media
from shbot.bot import render as r
from shbot.bot.render import picture
from shbot.engine import Game
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
    """Two games that differ only in who holds which role draw the same picture, during
    play and whatever the revealed roles at the end."""
    a, _ = Game.new(7, 11, roles="LLLLFFH")
    b, _ = Game.new(7, 11, roles="HFFLLLL")
    assert a.roles != b.roles
    assert picture.render(picture.facts(a.public_view())) == picture.render(
        picture.facts(b.public_view())
    )
    over = list(board_views(5, 2))[-1]
    assert "roles" in over
    assert picture.facts(over) == picture.facts({**over, "roles": ["hitler"] * 5})


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
    characters: the names are shortened, never the board lines."""
    game, _ = Game.new(10, 5)
    players = [Player(100 + i, "🦊" * 45 + str(i)) for i in range(10)]
    table = Table("g", 100, 0.0, players=players, game=game, options={"board": "picture"})
    t = translator(lang)
    assert media.visible_length(media._caption(t, table)) > media.MAX_CAPTION
    caption = media.board_caption(t, table)
    assert media.visible_length(caption) <= media.MAX_CAPTION
    assert caption.split("\n")[0] == r.board_text(t, table).split("\n")[0]
    assert "🦊…" in caption  # shortened names
    assert caption.count("\n") >= r.board_text(t, table).count("\n")  # every line kept
