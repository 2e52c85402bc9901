"""The command line: one-line errors, JSON that parses, the bench contract."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import shbot
from shbot import cli, i18n
from shbot.bot.config import VARIABLES
from shbot.cli import main


@pytest.mark.parametrize(
    "argv",
    [
        ["simulate", "--players", "4"],
        ["simulate", "--players", "5-11"],
        ["simulate", "--players", "seven"],
        ["simulate", "--games", "0"],
        ["simulate", "--agents", "genius"],
        ["simulate", "--lang", "xx", "--transcript"],
        ["simulate", "--lang", "de"],
        ["bench", "nothing"],
        ["frobnicate"],
        [],
    ],
)
def test_bad_arguments_fail_with_one_line(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code != 0
    out, err = capsys.readouterr()
    assert out == ""
    assert err.count("\n") == 1 and err.startswith("shbot: error: ")


def test_simulate_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "--games", "30", "--players", "5-10", "--seed", "2", "--json"]) == 0
    out, _ = capsys.readouterr()
    data = json.loads(out)
    assert data["games"] == 30
    assert sum(data["wins"].values()) == 30
    assert sum(data["conditions"].values()) == 30
    assert set(data["by_players"]) == {"5", "6", "7", "8", "9", "10"}
    assert data["agents"] == {"liberal": "random", "fascist": "random"}


def test_simulate_team_agents_and_transcript_keep_stdout_json(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["simulate", "--games", "3", "--players", "7", "--agents", "heuristic"]
    assert main([*argv, "--fascists", "random", "--json", "--transcript"]) == 0
    out, err = capsys.readouterr()
    data = json.loads(out)
    assert data["agents"] == {"liberal": "heuristic", "fascist": "random"}
    assert "Round 1:" in err and "Roles:" in err


def test_simulate_table_and_transcript(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "--games", "5", "--players", "8", "--transcript"]) == 0
    out, _ = capsys.readouterr()
    assert out.index("Round 1:") < out.index("players  games")
    assert "\n    all      5 " in out


def test_bench_engine_json_lines(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "engine", "--games", "20"]) == 0
    out, err = capsys.readouterr()
    rows = [json.loads(line) for line in out.splitlines()]
    assert [r["players"] for r in rows] == [5, 7, 10]
    for r in rows:
        assert r["bench"] == "engine" and r["games"] == 20
        assert r["games_per_second"] > 0 and r["us_per_action"] > 0
        assert r["actions_per_game"] > 20 and "ballot" in r["actions"]
    assert "games/s" in err


def test_bench_runs_a_registered_bench(capsys: pytest.CaptureFixture[str]) -> None:
    # The bot benches start Redis and bot processes; tests/test_bench.py covers them at tiny
    # sizes. Here: that the CLI's registry runs and prints JSON lines.
    assert main(["bench", "engine", "--games", "2"]) == 0
    out, _ = capsys.readouterr()
    assert {json.loads(line)["bench"] for line in out.splitlines()} == {"engine"}


def test_run_without_bot_module_is_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def missing(name: str) -> object:
        raise ModuleNotFoundError(f"No module named {name!r}", name=name)

    monkeypatch.setattr(cli.importlib, "import_module", missing)
    assert main(["run"]) == 1
    _, err = capsys.readouterr()
    assert err.count("\n") == 1 and err.startswith("shbot: error: ")


def test_python_dash_m_entry_point() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "shbot", "simulate", "--games", "2", "--json"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["games"] == 2
    bad = subprocess.run(
        [sys.executable, "-m", "shbot", "simulate", "--players", "4"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["--version"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    where = Path(shbot.__file__).resolve().parent
    assert out == f"shbot {shbot.__version__} ({where}, Python {sys.version.split()[0]})\n"


def test_the_version_is_the_newest_release_of_the_changelog() -> None:
    """The version says what it is: the newest dated release heading of CHANGELOG.md."""
    changelog = (Path(__file__).resolve().parent.parent / "CHANGELOG.md").read_text("utf-8")
    headings = re.findall(r"^## \[([^\]]+)\](.*)$", changelog, re.M)
    releases = [(name, rest) for name, rest in headings if name != "Unreleased"]
    newest, date = releases[0]
    assert newest == shbot.__version__, (newest, shbot.__version__)
    assert re.fullmatch(r" - \d{4}-\d{2}-\d{2}", date), date
    if headings[0][0] == "Unreleased":  # allowed above it, but then not empty
        body = changelog.split("## [Unreleased]", 1)[1].split("\n## [", 1)[0]
        assert body.strip(), "an empty Unreleased section"


@pytest.mark.parametrize("command", ["run", "health"])
def test_help_lists_every_environment_variable(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exc:
        main([command, "--help"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    listed = [line.split()[0] for line in out.split("environment", 1)[1].splitlines()[1:] if line]
    assert listed == list(VARIABLES)
    assert "BOT_TOKEN             the token from @BotFather [required]" in out
    assert "[default: shbot.sqlite3]" in out


def test_transcript_in_a_language_whose_catalog_is_missing_is_an_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Never an English transcript when Japanese was asked for."""
    monkeypatch.setenv(i18n.LOCALES_ENV, str(tmp_path))
    assert main(["simulate", "--games", "1", "--transcript", "--lang", "ja"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    po = tmp_path / "ja" / "LC_MESSAGES" / "shbot.po"
    assert err == f"shbot: error: no ja catalog at {po} (nor shbot.mo)\n"


def test_script_and_python_dash_m_agree_from_any_directory(tmp_path: Path) -> None:
    """Same code, same answer: ``shbot`` (the console script) and ``python -m shbot``."""
    script = Path(sys.executable).with_name("shbot")
    assert script.exists(), "pip install -e '.[test]' installs the shbot script"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    outputs = []
    for argv in ([str(script)], [sys.executable, "-m", "shbot"]):
        proc = subprocess.run(
            [*argv, "--version"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60
        )
        assert proc.returncode == 0, proc.stderr
        outputs.append(proc.stdout)
    assert outputs[0] == outputs[1]
    assert outputs[0].startswith(f"shbot {shbot.__version__} (")
