"""Every rule number of RULES-SPEC (R1 … R11 and every sub-number such as R7.3) is cited
by at least one engine test, in its name (``test_r7_3_...``) or its docstring ("R7.3").

The rule numbers are read from the spec itself, so a rule added there without a test
fails here. The tests read the repository's copy, ``docs/RULES-SPEC.md`` (a user's clone has
no ``../shared``); when the shared original sits beside the checkout, the copy must match it.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from tests.rules_spec import SHARED_SPEC, SPEC, read_rules, spec_rules

TESTS = Path(__file__).resolve().parent


def cited(text: str, *, name: bool) -> set[str]:
    """Rule numbers cited in a test name (``r6_5_r10_3_...``) or a docstring ("R10.3")."""
    if name:
        found = re.findall(r"(?<![a-z0-9])r(\d+)(?:_(\d+)(?![a-z]))?", text)
    else:  # a range such as "R1–R11" names no rule in particular
        text = re.sub(r"R\d+(?:\.\d+)?\s*(?:[–-]|\.\.\.|…)\s*R\d+(?:\.\d+)?", "", text)
        found = re.findall(r"\bR(\d+)(?:\.(\d+))?", text)
    return {f"R{major}.{minor}" if minor else f"R{major}" for major, minor in found}


def engine_test_citations() -> dict[str, set[str]]:
    """Rule numbers cited by each test function of tests/test_engine_*.py."""
    out: dict[str, set[str]] = {}
    for path in sorted(TESTS.glob("test_engine_*.py")):
        if path.name == Path(__file__).name:
            continue  # this file names rules only to describe itself
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.startswith(
                "test_"
            ):
                doc = ast.get_docstring(node) or ""
                rules = cited(node.name[len("test_") :], name=True) | cited(doc, name=False)
                out[f"{path.name}::{node.name}"] = rules
    return out


def test_spec_parser_reads_sections_and_numbered_items() -> None:
    """The parser's reading of a small spec: headings, items, sub-bullets ignored."""
    text = "# Title\n## R1 Set-up\n1. a\n2. b\n   - c\n## R3 Rounds\ntext\n## R4 X\n1. d\n"
    assert spec_rules(text) == ["R1", "R1.1", "R1.2", "R3", "R4", "R4.1"]
    assert cited("r6_5_r10_3_chaos_wins_with_5_players", name=True) == {"R6.5", "R10.3"}
    assert cited("r9_powers_by_player_count", name=True) == {"R9"}
    assert cited("Chaos (R6.2) and R10; not R7.3x", name=False) == {"R6.2", "R10", "R7.3"}
    assert cited("R1–R11 over many games, R2.1 … R2.5", name=False) == set()


def test_every_rule_of_the_spec_is_cited_by_an_engine_test() -> None:
    """Each rule number of RULES-SPEC (R1 … R11, with sub-numbers) has a test naming it."""
    rules = read_rules(SPEC)
    assert len(rules) > 50, f"the spec parsed to too few rules: {rules}"
    assert {"R1.1", "R4.7", "R7.3", "R10.4", "R11"} <= set(rules)
    everything: set[str] = set().union(*engine_test_citations().values())
    missing = [r for r in rules if r not in everything]
    assert not missing, f"rules of RULES-SPEC without a test citing them: {missing}"


def test_the_spec_copy_is_the_shared_spec() -> None:
    """docs/RULES-SPEC.md is the shared RULES-SPEC, word for word (checked only where the
    shared original exists; the coverage test above never depends on it)."""
    assert SPEC.is_file(), f"{SPEC} is missing: the tests read the rules from it"
    if not SHARED_SPEC.is_file():
        pytest.skip(f"no shared original at {SHARED_SPEC} to compare the copy with")
    assert SPEC.read_text(encoding="utf-8") == SHARED_SPEC.read_text(encoding="utf-8"), (
        f"{SPEC} differs from {SHARED_SPEC}: copy the shared spec into docs/"
    )
