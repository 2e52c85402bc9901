"""``python -m shbot simulate --transcript --lang ja|fr|en`` tells the game in that language."""

from __future__ import annotations

import subprocess
import sys

import pytest

from shbot.cli import main
from tests.langcheck import assert_language, has_japanese

COMMAND = ["simulate", "--games", "1", "--players", "7", "--transcript"]


def transcript(lang: str, capsys: pytest.CaptureFixture[str]) -> list[str]:
    """The transcript lines: the output up to the summary the same run prints without one."""
    assert main([*COMMAND, "--lang", lang]) == 0
    with_transcript = capsys.readouterr().out
    assert main(COMMAND[:-1]) == 0
    summary_head = capsys.readouterr().out.splitlines()[0]  # the rest holds timings
    assert summary_head in with_transcript
    lines = with_transcript[: with_transcript.rindex(summary_head)].splitlines()
    assert len(lines) > 20, with_transcript
    return lines


@pytest.mark.parametrize("lang", ["ja", "fr", "en"])
def test_transcript_in_each_language(lang: str, capsys: pytest.CaptureFixture[str]) -> None:
    lines = transcript(lang, capsys)
    for line in lines:
        assert_language(line, lang, where="in the transcript")
    if lang == "ja":
        worded = [line for line in lines if any(c.isalpha() for c in line)]
        assert all(has_japanese(line) for line in worded)


def test_the_documented_command_prints_japanese() -> None:
    """The README's command, as a user runs it."""
    argv = [sys.executable, "-m", "shbot", *COMMAND, "--lang", "ja"]
    out = subprocess.run(argv, capture_output=True, text=True, check=True, timeout=60).stdout
    japanese = [line for line in out.splitlines() if has_japanese(line)]
    assert len(japanese) > 20
    assert "President" not in out and "nominates" not in out
