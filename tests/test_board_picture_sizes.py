"""The board picture read at chat-bubble width (issue 24): measured on the rendered PNG.

A phone shows the 800-px picture about 330 px wide. Before, the seat numbers were drawn in
a 26-px font (ink 18 px high: about 7 px on the phone) and the marks were smaller still;
now every mark is at least 1.5 times that, the initials under the seats at least that, and
the final picture colours each seat by its role with no term-limit mark left over.
"""

from __future__ import annotations

import io
import random
from dataclasses import replace

from PIL import Image, ImageFont

from shbot.bench.picture import board_views
from shbot.bot.delivery import media
from shbot.bot.render import picture
from shbot.bot.render import picture_icons as ink
from shbot.engine import FASCIST, HITLER, LIBERAL, Game
from shbot.i18n import translator
from shbot.players import default_action
from shbot.table.model import Player, Table

NAMES = ["Alice", "Bob", "Chloé Dubois", "Daniel", "恵美", "Farid", "Grace", "Hiro", "Ivan", "Jo"]
PHONE = 330 / picture.WIDTH


def old_number_px() -> int:
    """The ink height of the old seat number "10" (the default font at 26 px)."""
    box = ImageFont.load_default(size=26).getbbox("10", anchor="mm")
    return int(box[3] - box[1])


def render(board: picture.BoardFacts) -> Image.Image:
    image = Image.open(io.BytesIO(picture.render(board)))
    assert image.size == (picture.WIDTH, picture.HEIGHT)
    return image


def ink_box(
    image: Image.Image, box: tuple[int, int, int, int], colours: set[int]
) -> tuple[int, int, int, int] | None:
    """The bounding box, within ``box``, of the pixels of the palette ``colours``."""
    crop = image.crop(box)
    mask = Image.new("1", crop.size)
    mask.putdata([1 if p in colours else 0 for p in crop.tobytes()])
    return mask.getbbox()


def seat_column(board: picture.BoardFacts, seat: int) -> tuple[int, int]:
    x = picture._seat_x(board) + seat * picture.SEAT_STEP
    return x - 3, x + picture.TOKEN + 3


def ten_player_end() -> picture.BoardFacts:
    views = list(board_views(10, 0))
    assert views[-1]["winner"] is not None
    return picture.facts(views[-1], NAMES)


def test_ten_player_end_state_sizes_in_pixels() -> None:
    board = ten_player_end()
    image = render(board)
    need = 1.5 * old_number_px()
    assert need >= 27
    top = picture.SEAT_TOP
    for seat in range(10):
        x0, x1 = seat_column(board, seat)
        role = board.roles[seat]
        # the token is the role's colour: liberal blue, fascist red, Hitler black
        colour = {LIBERAL: ink.LIB, FASCIST: ink.FAS, HITLER: ink.BLACK}[role]
        token = ink_box(image, (x0, top, x1, top + picture.TOKEN + 2), {colour})
        assert token is not None and token[3] - token[1] >= picture.TOKEN - 14, seat
        if board.alive[seat]:  # the number, in white on the token
            digits = ink_box(
                image, (x0 + 12, top + 12, x1 - 12, top + picture.TOKEN - 10), {ink.WHITE}
            )
            assert digits is not None and digits[3] - digits[1] >= need, (seat, digits)
        else:  # the dead cross spans the token
            cross_colour = ink.BLACK if role == FASCIST else ink.RED_MARK
            cross = ink_box(image, (x0, top, x1, top + picture.TOKEN), {cross_colour})
            assert cross is not None and min(cross[2] - cross[0], cross[3] - cross[1]) >= need
        label = ink_box(
            image,
            (x0 - 4, top + picture.TOKEN + 4, x1 + 4, top + picture.TOKEN + 40),
            {ink.WHITE},
        )
        if board.initials[seat]:
            assert label is not None and label[3] - label[1] >= old_number_px(), seat
            assert (label[3] - label[1]) * PHONE >= 7  # pixels on a phone
        else:
            assert label is None  # 恵美: no Latin letter, the number alone
        # no mark left under the seat at the end (no term limit, no tick)
        below = ink_box(
            image,
            (x0, top + picture.TOKEN + 42, x1, picture.HEIGHT - 10),
            {ink.LINE, ink.GREEN},
        )
        assert below is None, seat
    assert board.initials[:3] == ("A", "B", "CD")


def test_marks_during_play_are_large() -> None:
    """The star, the diamond, the tick and the padlock, each at least 1.5x the old digits."""
    views = list(board_views(10, 0))
    board = replace(
        picture.facts(views[3], NAMES),
        president=0,
        chancellor=1,
        in_office=True,
        term_limited=(2,),
        confirmed=(False, False, False, True) + (False,) * 6,
        alive=(True,) * 9 + (False,),
    )
    image = render(board)
    need = 1.5 * old_number_px()
    under = picture.SEAT_TOP + picture.TOKEN + 42

    def size(seat: int, band: tuple[int, int], colours: set[int]) -> int:
        x0, x1 = seat_column(board, seat)
        box = ink_box(image, (x0, band[0], x1, band[1]), colours)
        assert box is not None, seat
        return min(box[2] - box[0], box[3] - box[1])

    assert size(0, (328, 386), {ink.GOLD}) >= need  # the President's star
    assert size(1, (328, 386), {ink.PURPLE}) >= need  # the Chancellor's diamond
    assert size(2, (under, picture.HEIGHT), {ink.LINE}) >= need  # term-limited
    assert size(3, (under, picture.HEIGHT), {ink.GREEN}) >= need  # confirmed
    assert size(9, (picture.SEAT_TOP, picture.SEAT_TOP + picture.TOKEN), {ink.RED_MARK}) >= need
    digits = size(4, (picture.SEAT_TOP + 12, picture.SEAT_TOP + picture.TOKEN - 10), {ink.BLACK})
    assert digits >= need * 0.5  # "5" is narrow: its height is checked in the end state


def test_one_symbol_one_meaning() -> None:
    """A Fascist policy is not drawn as any power: the enacted slot differs from every power
    icon, and the term limit is not the veto's prohibition sign."""
    base = picture.facts(next(board_views(10, 0)))
    enacted = render(replace(base, fascist=1, powers=(None,) * 6))
    slot = (picture._row_x(6), 202, picture._row_x(6) + picture.CARD_W, 202 + picture.CARD_H)
    policy = enacted.crop(slot).tobytes()
    for power in ("investigate", "special_election", "peek", "execution"):
        drawn = render(replace(base, fascist=0, powers=(power,) * 5 + (None,)))
        icon = drawn.crop(slot)
        assert icon.tobytes() != policy
        # the power icons are dark ink on a light slot; the policy is white on red
        assert ink.FAS_EMPTY in set(icon.tobytes())
        assert ink.FAS_EMPTY not in set(enacted.crop(slot).tobytes())
    limited = render(replace(base, term_limited=(0,)))
    x0, x1 = seat_column(base, 0)
    under = (x0, picture.SEAT_TOP + picture.TOKEN + 42, x1, picture.HEIGHT)
    assert ink_box(limited, under, {ink.LINE}) is not None  # the padlock
    assert ink_box(limited, under, {ink.BLACK, ink.GOLD}) is None  # not the ⊘


def test_caption_is_two_lines_of_key() -> None:
    """The caption names the seats by number and says what the marks mean; at the end, the
    roles' colours (three lines at most)."""
    game, _ = Game.new(7, 3)
    players = [Player(100 + i, NAMES[i]) for i in range(7)]
    table = Table("g", 100, 0.0, players=players, game=game, options={"board": "picture"})
    t = translator("en")
    caption = media.board_caption(t, table)
    assert len(caption.split("\n")) <= 3
    assert "1 ⁨Alice⁩ · 2 ⁨Bob⁩" in caption and "7 ⁨Grace⁩" in caption
    assert "🔒 term-limited" in caption
    rng = random.Random(0)
    while not game.is_over:
        game.apply(default_action(game, game.to_act()[0], rng))
    ended = media.board_caption(t, table)
    assert len(ended.split("\n")) <= 3 and "⚫ Hitler" in ended and "🔒" not in ended
