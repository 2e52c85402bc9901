"""The pinned versions agree with pyproject.toml (docs/dependencies.md).

``requirements/constraints.txt`` is what the tests, CI and the Docker image install;
``requirements/minimal.txt`` is CI's second job, the oldest versions the ranges allow. A range
changed in pyproject.toml without ``sh requirements/update.sh`` fails here, not on a user's
machine.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parent.parent
PINNED = ROOT / "requirements" / "constraints.txt"
MINIMAL = ROOT / "requirements" / "minimal.txt"
#: The extras CI and the bench install; their requirements are pinned too.
EXTRAS = ("test", "bench")


def declared() -> list[Requirement]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    lines = list(project["dependencies"])
    for extra in EXTRAS:
        lines += project["optional-dependencies"][extra]
    return [Requirement(line) for line in lines]


def pins(path: Path) -> dict[str, Version]:
    """``name == version`` lines of a constraints file (markers and comments left aside)."""
    found: dict[str, Version] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        match = re.match(r"^([A-Za-z0-9._-]+)==([^\s;]+)", line)
        if match:
            found[canonicalize_name(match[1])] = Version(match[2])
    return found


@pytest.mark.parametrize("path", [PINNED, MINIMAL], ids=["constraints", "minimal"])
def test_every_requirement_is_pinned_within_its_range(path: Path) -> None:
    pinned = pins(path)
    problems = []
    for requirement in declared():
        version = pinned.get(canonicalize_name(requirement.name))
        if version is None:
            problems.append(f"{requirement.name} is not pinned")
        elif not requirement.specifier.contains(version, prereleases=True):
            problems.append(f"{requirement.name}=={version} is outside {requirement.specifier}")
    assert not problems, f"{path.name}: run `sh requirements/update.sh`: " + "; ".join(problems)


def test_minimal_pins_sit_on_each_lower_bound() -> None:
    """The minimal job tests the bounds we state: each ``>=`` is the release it installs."""
    pinned = pins(MINIMAL)
    off = []
    for requirement in declared():
        lows = [Version(s.version) for s in requirement.specifier if s.operator in (">=", "==")]
        version = pinned[canonicalize_name(requirement.name)]
        # ">=3.6" is met first by 3.6.1 when no 3.6.0 was published: the bound's series.
        if lows and version.release[: len(max(lows).release)] != max(lows).release:
            off.append(f"{requirement.name}: lower bound {max(lows)}, minimal.txt has {version}")
    assert not off, "raise the bound in pyproject.toml (or resolve again): " + "; ".join(off)


def test_the_check_can_fail(tmp_path: Path) -> None:
    """A pin outside its range is found (the test above is not vacuous)."""
    stale = tmp_path / "constraints.txt"
    text = PINNED.read_text(encoding="utf-8")
    stale.write_text(re.sub(r"(?m)^babel==\S+", "babel==2.9.1", text), encoding="utf-8")
    with pytest.raises(AssertionError, match=r"babel==2\.9\.1 is outside >=2\.16"):
        test_every_requirement_is_pinned_within_its_range(stale)


def test_ci_and_docker_install_from_the_pinned_file() -> None:
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "pip install -c requirements/constraints.txt -e '.[test]' && pytest" in ci
    assert "pip install -r requirements/minimal.txt" in ci
    assert "-c /tmp/constraints.txt" in (ROOT / "Dockerfile").read_text(encoding="utf-8")
