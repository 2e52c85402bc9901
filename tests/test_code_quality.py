"""The code stays linted, formatted and typed (ruff and mypy, configured in pyproject.toml),
and the modules of shbot/ import each other without a cycle."""

from __future__ import annotations

import ast
import graphlib
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True, timeout=600
    )


def test_ruff_lint_is_clean() -> None:
    result = run("ruff", "check", "shbot", "tests")
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_format_is_clean() -> None:
    result = run("ruff", "format", "--check", "shbot", "tests")
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_is_clean() -> None:
    result = run("mypy")
    assert result.returncode == 0, result.stdout + result.stderr


def modules(root: Path) -> dict[str, Path]:
    """Every module under ``root``/shbot by dotted name (a package by its own name)."""
    out = {}
    for path in (root / "shbot").rglob("*.py"):
        parts = path.relative_to(root).with_suffix("").parts
        out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return out


def imported(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The modules of ours that ``name`` imports when it runs: imports inside functions
    count, imports under ``if TYPE_CHECKING:`` do not. ``from pkg import sub`` names the
    submodule ``pkg.sub``; a module's own package counts only for names defined in it."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                for other in child.orelse:
                    visit(other)
                continue
            if isinstance(child, ast.Import):
                found.update(a.name for a in child.names)
            elif isinstance(child, ast.ImportFrom):
                stem = child.module or ""
                if child.level:  # relative: from the package, one level up per extra dot
                    parts = package.split(".")
                    parts = parts[: len(parts) - child.level + 1]
                    stem = ".".join([*parts, *([child.module] if child.module else [])])
                for alias in child.names:
                    sub = f"{stem}.{alias.name}"
                    found.add(sub if sub in known else stem)
            visit(child)

    visit(ast.parse(path.read_text(encoding="utf-8")))
    return {t for t in found if t in known and t != name}


def import_cycle(root: Path) -> list[str] | None:
    """One cycle of the import graph of ``root``/shbot, or None when there is none."""
    known = modules(root)
    graph = {name: imported(name, path, known) for name, path in known.items()}
    try:
        graphlib.TopologicalSorter(graph).prepare()
    except graphlib.CycleError as exc:
        return list(exc.args[1])
    return None


def test_the_modules_import_each_other_without_a_cycle() -> None:
    assert import_cycle(ROOT) is None


def test_the_cycle_check_finds_a_cycle(tmp_path: Path) -> None:
    for module, text in {
        "shbot/__init__.py": "",
        "shbot/a.py": "from shbot import b\n",
        "shbot/b.py": "def f():\n    from .a import x\n",
        "shbot/c.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import shbot.a\n",
    }.items():
        (tmp_path / module).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / module).write_text(text)
    cycle = import_cycle(tmp_path)
    assert cycle is not None and set(cycle) == {"shbot.a", "shbot.b"}
    (tmp_path / "shbot/b.py").write_text("import shbot.c\n")
    assert import_cycle(tmp_path) is None


#: Modules allowed over MAX_MODULE_LINES: the rules engine and the two storage backends. The
#: test doubles of shbot/devtools are held to it too (the fake Bot API is in parts).
LONG_MODULES = ("shbot/engine/game.py", "shbot/storage/sqlite.py", "shbot/storage/redis.py")
MAX_MODULE_LINES = 400
MAX_HANDLER_LINES = 40


def long_modules(root: Path) -> dict[str, int]:
    """Modules of ``root``/shbot over MAX_MODULE_LINES lines, outside the allowed ones."""
    out = {}
    for path in (root / "shbot").rglob("*.py"):
        name = path.relative_to(root).as_posix()
        if name in LONG_MODULES:
            continue
        lines = len(path.read_text(encoding="utf-8").splitlines())
        if lines > MAX_MODULE_LINES:
            out[name] = lines
    return out


def long_functions(folder: Path) -> dict[str, int]:
    """Functions (nested ones too) of the modules in ``folder`` over MAX_HANDLER_LINES
    lines, decorators not counted."""
    out = {}
    for path in sorted(folder.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                lines = (node.end_lineno or node.lineno) - node.lineno + 1
                if lines > MAX_HANDLER_LINES:
                    out[f"{path.name}:{node.name}"] = lines
    return out


def test_no_module_is_over_400_lines() -> None:
    assert long_modules(ROOT) == {}


def test_no_handler_function_is_over_40_lines() -> None:
    assert long_functions(ROOT / "shbot/bot/handlers") == {}


def test_the_size_checks_find_long_code(tmp_path: Path) -> None:
    (tmp_path / "shbot/engine").mkdir(parents=True)
    (tmp_path / "shbot/devtools").mkdir()
    (tmp_path / "shbot/big.py").write_text("x = 1\n" * 401)
    (tmp_path / "shbot/small.py").write_text("x = 1\n" * 400)
    (tmp_path / "shbot/engine/game.py").write_text("x = 1\n" * 900)
    (tmp_path / "shbot/devtools/fake.py").write_text("x = 1\n" * 900)
    assert long_modules(tmp_path) == {"shbot/big.py": 401, "shbot/devtools/fake.py": 900}
    body = "    x = 1\n"
    (tmp_path / "h.py").write_text(f"async def long():\n{body * 40}\n\ndef short():\n{body * 39}")
    assert long_functions(tmp_path) == {"h.py:long": 41}
