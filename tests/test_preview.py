"""The translators' preview (``python -m shbot.i18n preview``): every message of the code, in
the order and the context players meet it (shbot/devtools/preview.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from shbot.devtools import preview
from shbot.i18n import LANGUAGES
from shbot.i18n.__main__ import main


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_preview_shows_every_message_the_code_uses(lang: str) -> None:
    # The template holds every msgid of the code (tests/test_catalogs.py keeps it current).
    entries = preview.catalog_entries()
    built = preview.build(lang)
    missing = {e.key for e in entries} - built.every
    assert not missing, f"messages the preview of {lang} does not show: {sorted(map(str, missing))}"
    for e in entries:
        assert preview.readable(
            preview.render_entry(preview.Recorder(preview.base_translator(lang)), e)
        ).strip()
    # Most are met in play (commands and sample games), not only with sample values.
    in_play = len({e.key for e in entries} & built.in_play)
    assert in_play >= 0.75 * len(entries), f"{in_play} of {len(entries)} met in play"
    for heading in ("## Group chat", "## Private chats", "## Buttons", "## Toasts", "## Plurals"):
        assert heading in built.text


def test_the_preview_plays_what_a_reviewer_must_see() -> None:
    built = preview.build("fr")
    wheres = {s.where for s in built.shown}
    assert wheres == {"group", "private", "toast"}
    texts = "\n".join(s.text for s in built.shown)
    for seen in ("Gaëlle", "Bruno", "🗣", "⏰", "🌪", "🤫", "📋", "Votre rôle"):
        assert seen in texts, seen
    assert any(s.rows for s in built.shown if s.where == "private"), "private buttons"
    assert "0 " in built.text and "5 " in built.text  # the plurals at 0 and 5


def test_the_command_writes_one_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "ja.txt"
    assert main(["preview", "--lang", "ja", "--out", str(out)]) == 0
    text = out.read_text(encoding="utf-8")
    assert text.startswith("# shbot as players see it: ja") and "大統領" in text
    assert str(out) in capsys.readouterr().out
    for bad in (["preview"], ["preview", "--lang", "de"], ["preview", "--lang", "ja", "--x", "1"]):
        assert main(bad) == 2
