"""How wide a button label looks on a phone, in cells (docs/translating.md, "Buttons").

Telegram gives the buttons of one row equal widths and cuts a label that does not fit its
share with "…". A cell is the width of a Latin letter; a CJK character or an emoji takes
two. Measured on a 360-dp phone (the narrowest common width), a private or group message
keyboard is about 290 dp wide and a cell of the button font about 7.5 dp: ``ROW_CELLS``
cells, shared equally, less ``PAD_CELLS`` of padding per button. So a label may use 36
cells alone on its row, 17 with two buttons (8 CJK characters and an emoji), 10 with three,
7 with four (the claim buttons: 🔴🔴🔵 is 6).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence

from telegram import InlineKeyboardButton

ROW_CELLS = 38
PAD_CELLS = 2
ZERO_WIDTH = {"\u2068", "\u2069", "\u200d", "\ufe0e"}  # isolates, joiner, text selector
EMOJI_SELECTOR = "\ufe0f"  # the character before it is shown as an emoji: two cells


def display_width(text: str) -> int:
    """Cells ``text`` takes on screen: wide and full-width characters and emoji count two,
    combining marks and invisible controls none."""
    cells = 0
    for i, ch in enumerate(text):
        if ch in ZERO_WIDTH or ch == EMOJI_SELECTOR or unicodedata.combining(ch):
            continue
        wide = unicodedata.east_asian_width(ch) in ("W", "F")
        if not wide and i + 1 < len(text) and text[i + 1] == EMOJI_SELECTOR:
            wide = True  # ⚙️, ↩️: text symbols drawn as emoji
        cells += 2 if wide else 1
    return cells


def label_budget(buttons_in_row: int) -> int:
    """The cells one label may take when ``buttons_in_row`` buttons share its row."""
    return ROW_CELLS // max(buttons_in_row, 1) - PAD_CELLS


def too_wide(row: Sequence[str]) -> list[str]:
    """The labels of ``row`` that a 360-dp phone would cut."""
    budget = label_budget(len(row))
    return [label for label in row if display_width(label) > budget]


def fit_rows(
    buttons: Sequence[InlineKeyboardButton], most: int
) -> list[list[InlineKeyboardButton]]:
    """``buttons`` in order, up to ``most`` a row, fewer where a label would be cut: a row
    closes before a button that would make any of its labels too wide (so a language with
    longer words gets more rows, never cut labels)."""
    rows: list[list[InlineKeyboardButton]] = []
    row: list[InlineKeyboardButton] = []
    for button in buttons:
        wider = [*row, button]
        if row and (len(wider) > most or too_wide([b.text for b in wider])):
            rows.append(row)
            wider = [button]
        row = wider
    if row:
        rows.append(row)
    return rows
