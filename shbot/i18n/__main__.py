"""``python -m shbot.i18n update``: the catalog maintenance of docs/translating.md.

Kept apart from the translator (:mod:`shbot.i18n`), which the running bot imports: this
needs Babel's command line and runs only from a checkout.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from shbot.i18n import _SOURCE_LOCALES, DEFAULT, DOMAIN, LANGUAGES


def _update_catalogs(root: Path) -> int:
    """Re-extract the template, merge it into every catalog, mirror English; print stats.

    Runs the ``pybabel`` commands of docs/translating.md from the project root, keeps the
    old template when only its creation date would change (fewer merge conflicts), and
    copies every msgid into the English catalog (the msgids *are* the English text).
    """
    from babel.messages.frontend import CommandLineInterface
    from babel.messages.pofile import read_po, write_po

    os.chdir(root)
    pot = Path("locales", f"{DOMAIN}.pot")
    new_pot = pot.with_name(f".{pot.name}.new")
    cli = CommandLineInterface()
    # File names without line numbers: a change elsewhere in a module leaves the catalogs
    # as they were (no churn, no merge conflicts between branches).
    extract = ["pybabel", "-q", "extract", "-F", "pyproject.toml", "--add-location=file"]
    cli.run([*extract, "-o", str(new_pot), "."])

    def body(path: Path) -> list[str]:
        lines = path.read_text(encoding="utf-8").splitlines() if path.exists() else []
        skip = ('"POT-Creation-Date:', '"Generated-By:')  # the version is dropped below
        return [line for line in lines if not line.startswith(skip)]

    if body(new_pot) == body(pot):
        new_pot.unlink()
    else:
        new_pot.replace(pot)
    merge_options = ["--ignore-obsolete", "--previous", "--ignore-pot-creation-date"]
    cli.run(
        ["pybabel", "-q", "update", "-i", str(pot), "-d", "locales", "-D", DOMAIN, *merge_options]
    )

    en_po = Path("locales", DEFAULT, "LC_MESSAGES", f"{DOMAIN}.po")
    with en_po.open("rb") as source:
        en = read_po(source)
    for message in en:
        if message.id:
            message.string = message.id
            message.flags.discard("fuzzy")
    _scrub(en)
    with en_po.open("wb") as target:
        write_po(target, en, width=76)
    for lang in LANGUAGES:
        if lang != DEFAULT:
            _scrub_file(Path("locales", lang, "LC_MESSAGES", f"{DOMAIN}.po"))

    for path in [
        pot,
        *(Path("locales", lang, "LC_MESSAGES", f"{DOMAIN}.po") for lang in LANGUAGES),
    ]:
        _drop_babel_version(path)

    todo = 0
    for lang in LANGUAGES:
        with Path("locales", lang, "LC_MESSAGES", f"{DOMAIN}.po").open("rb") as source:
            catalog = read_po(source)
        messages = [m for m in catalog if m.id]
        fuzzy = sum(1 for m in messages if m.fuzzy)
        forms = [
            [m.string] if isinstance(m.string, str) else list(m.string or [""]) for m in messages
        ]
        empty = sum(1 for strings in forms if not all(strings))
        print(f"{lang}: {len(messages)} messages, {empty} untranslated, {fuzzy} fuzzy")
        todo += fuzzy + empty
    return 1 if todo else 0


def _scrub(catalog: Any) -> bool:
    """Forget what fuzzy matching left on entries that are not fuzzy any more: the previous
    msgid (``#|``), which Babel reads back as a comment (``# | msgid``) and would keep
    for ever, misleading the next translator. True if anything was dropped."""
    changed = False
    for message in catalog:
        if not message.id or message.fuzzy:
            continue
        kept = [c for c in message.user_comments if not c.startswith("|")]
        if kept != message.user_comments or message.previous_id:
            message.user_comments, message.previous_id = kept, []
            changed = True
    return changed


def _scrub_file(path: Path) -> None:
    from babel.messages.pofile import read_po, write_po

    with path.open("rb") as source:
        catalog = read_po(source)
    if _scrub(catalog):  # written as pybabel update writes it: no reflow, same order
        with path.open("wb") as target:
            write_po(target, catalog, width=76, include_previous=True, ignore_obsolete=True)


def _drop_babel_version(path: Path) -> None:
    """Say "Generated-By: Babel" without the version, so a newer Babel rewrites nothing."""
    text = path.read_text(encoding="utf-8")
    fixed = re.sub(
        r'^"Generated-By: Babel [^"\\]*\\n"$', r'"Generated-By: Babel\\n"', text, flags=re.M
    )
    if fixed != text:
        path.write_text(fixed, encoding="utf-8")


USAGE = """usage: python -m shbot.i18n update
       python -m shbot.i18n preview --lang LANG [--out FILE]   (see docs/translating.md)"""


def _preview(args: list[str]) -> int:
    """Write every message as players see it (shbot.devtools.preview) to one file."""
    options = dict(zip(args[::2], args[1::2], strict=False))
    lang = options.get("--lang")
    if lang not in LANGUAGES or set(options) - {"--lang", "--out"} or len(args) % 2:
        print(USAGE, file=sys.stderr)
        return 2
    from shbot.devtools import preview

    out = options.get("--out")
    path = preview.write(lang, Path(out) if out else None)
    print(f"{lang}: {path}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["preview"]:
        return _preview(args[1:])
    if args != ["update"]:
        print(USAGE, file=sys.stderr)
        return 2
    return _update_catalogs(_SOURCE_LOCALES.parent)


if __name__ == "__main__":
    sys.exit(main())
