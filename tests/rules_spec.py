"""The numbered rules, read from the repository's own copies (a clone has no ``../shared``).

``docs/RULES-SPEC.md`` is the rule book the engine implements (R1–R11), kept identical to
the shared original; ``docs/RULES-TABLE.md`` adds the rules the players keep themselves or
choose as an option (T1, T2).
"""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SPEC = REPO / "docs" / "RULES-SPEC.md"
TABLE = REPO / "docs" / "RULES-TABLE.md"
#: Where the shared original lives beside a developer's checkout (absent in a user's clone).
SHARED_SPEC = REPO.parent / "shared" / "RULES-SPEC.md"


def spec_rules(text: str) -> list[str]:
    """Every rule number in a spec: each section ``## Rk`` (or ``## Tk``) and each of its
    top-level numbered items ``i.`` as ``Rk.i``."""
    rules: list[str] = []
    section: str | None = None
    for line in text.splitlines():
        heading = re.match(r"##\s+([A-Z]\d+)\b", line)
        if heading:
            section = heading.group(1)
            rules.append(section)
        elif line.startswith("#"):
            section = None
        elif section:
            item = re.match(r"(\d+)\.\s", line)  # not indented: sub-bullets are not rules
            if item:
                rules.append(f"{section}.{item.group(1)}")
    return rules


def read_rules(path: Path) -> list[str]:
    """The rule numbers of the spec file ``path``."""
    return spec_rules(path.read_text(encoding="utf-8"))
