"""Every button label fits a 360-dp phone in every language: measured by display width
(a CJK character or an emoji is two cells), against its share of the row
(shbot/bot/render/widths.py documents the budget)."""

from __future__ import annotations

import functools

import pytest
from telegram import InlineKeyboardButton

from shbot.bot.render.widths import display_width, fit_rows, label_budget, too_wide
from shbot.devtools import preview
from shbot.i18n import LANGUAGES


def test_display_width_counts_cells() -> None:
    assert display_width("Join") == 4
    assert display_width("参加") == 4
    assert display_width("🔴🔴🔵") == 6
    assert display_width("⚙️") == 2 and display_width("↩️ Back") == 7
    assert display_width("\u2068Léa\u2069") == 3
    assert display_width("e\u0301") == 1  # a combining accent takes no cell
    assert display_width("成立させる：🔴 ファシスト") == 25


def test_the_budget_shrinks_with_the_buttons_of_a_row() -> None:
    assert [label_budget(n) for n in (1, 2, 3, 4)] == [36, 17, 10, 7]
    assert too_wide(["成立させる：🔴 ファシスト", "成立させる：🔵 リベラル"]) == [
        "成立させる：🔴 ファシスト",
        "成立させる：🔵 リベラル",
    ]
    assert too_wide(["成立させる：🔴 ファシスト"]) == []


def test_rows_are_split_only_where_a_label_would_be_cut() -> None:
    def buttons(*labels: str) -> list[InlineKeyboardButton]:
        return [InlineKeyboardButton(x, callback_data=x[:8]) for x in labels]

    def texts(rows: list[list[InlineKeyboardButton]]) -> list[list[str]]:
        return [[b.text for b in row] for row in rows]

    assert texts(fit_rows(buttons("a", "b", "c"), 2)) == [["a", "b"], ["c"]]
    long = "🤖 Ajouter un joueur virtuel"
    assert texts(fit_rows(buttons(long, "➖ 🤖"), 2)) == [[long], ["➖ 🤖"]]
    assert texts(fit_rows(buttons("Pouvoirs du Président", "Veto", "x"), 2)) == [
        ["Pouvoirs du Président"],
        ["Veto", "x"],
    ]


@functools.cache
def shown_rows(lang: str) -> list[tuple[str, list[str]]]:
    """Every keyboard row the commands and the sample games show (players' names aside:
    they are the players' own, cut at 24 characters)."""
    rows = []
    for s in preview.build(lang).shown:
        for row in s.rows:
            if not all(label.startswith("\u2068") for label in row):
                rows.append((s.text[:60], row))
    return rows


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_keyboard_row_fits_a_phone(lang: str) -> None:
    rows = shown_rows(lang)
    assert len(rows) > 50, "the sample games show the keyboards"
    kinds = {len(row) for _, row in rows}
    assert {1, 2, 3, 4} <= kinds, kinds
    bad = [
        (row, [display_width(x) for x in row], label_budget(len(row)), where)
        for where, row in rows
        if too_wide(row)
    ]
    assert not bad, f"labels a 360-dp phone cuts in {lang}: {bad[:10]}"
