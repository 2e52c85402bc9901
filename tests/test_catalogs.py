"""The gettext catalogs: complete, well-formed, consistent with the code.

When one of these fails after a code change, the fix is almost always::

    python -m shbot.i18n update     # re-extract locales/shbot.pot, merge into every .po

and then translating the new or fuzzy entries of ``ja`` and ``fr`` (docs/translating.md).
"""

from __future__ import annotations

import io
import re
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog, Message
from babel.messages.mofile import write_mo
from babel.messages.plurals import get_plural
from babel.messages.pofile import read_po

from shbot.i18n import DEFAULT, DOMAIN, LANGUAGES, placeholders

ROOT = Path(__file__).resolve().parent.parent
LOCALES = ROOT / "locales"
POT = LOCALES / f"{DOMAIN}.pot"
UPDATE = "run `python -m shbot.i18n update` (docs/translating.md)"
#: What Telegram's HTML parse mode accepts (the bot's texts stick to b, i, code).
TELEGRAM_TAGS = {"b", "strong", "i", "em", "u", "ins", "s", "strike", "del", "code", "pre", "a"}
TAG = re.compile(r"<(/?)([a-zA-Z-]+)[^<>]*>")


def po_path(lang: str) -> Path:
    return LOCALES / lang / "LC_MESSAGES" / f"{DOMAIN}.po"


def load(path: Path) -> Catalog:
    with path.open("rb") as f:
        return read_po(f)


def messages(catalog: Catalog) -> list[Message]:
    return [m for m in catalog if m.id]


def key(m: Message) -> tuple[object, str | None]:
    return (m.id, m.context)


def ids(m: Message) -> tuple[str, ...]:
    return m.id if isinstance(m.id, tuple) else (m.id,)


def strings(m: Message) -> tuple[str, ...]:
    return tuple(m.string) if isinstance(m.string, list | tuple) else (m.string,)


def describe(m: Message) -> str:
    text = ids(m)[0]
    return repr(text if len(text) < 70 else text[:67] + "...")


@pytest.fixture(scope="module", params=LANGUAGES)
def lang(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture(scope="module")
def catalog(lang: str) -> Catalog:
    assert po_path(lang).is_file(), f"missing catalog {po_path(lang)}: see docs/translating.md"
    return load(po_path(lang))


# ---------------------------------------------------------------- well-formed


@pytest.mark.skipif(shutil.which("msgfmt") is None, reason="GNU gettext's msgfmt not installed")
def test_msgfmt_check_passes(lang: str) -> None:
    result = subprocess.run(
        ["msgfmt", "--check", "--statistics", "-o", "/dev/null", str(po_path(lang))],
        capture_output=True,
        text=True,
        check=False,
    )
    report = result.stdout + result.stderr
    assert result.returncode == 0, report
    assert "untranslated" not in report and "fuzzy" not in report, report


def test_babel_checkers_pass(catalog: Catalog) -> None:
    problems = [
        f"{describe(m)}: {error}" for m, errors in catalog.check() for error in errors if m.id
    ]
    assert not problems, "\n".join(problems)


def test_compiles_with_babel(catalog: Catalog) -> None:
    import gettext

    buf = io.BytesIO()
    write_mo(buf, catalog)
    buf.seek(0)
    gettext.GNUTranslations(buf)


# ---------------------------------------------------------------- complete


def test_fully_translated_no_fuzzy(lang: str, catalog: Catalog) -> None:
    fuzzy = [describe(m) for m in messages(catalog) if m.fuzzy]
    empty = [describe(m) for m in messages(catalog) if not all(strings(m))]
    assert not fuzzy, f"{lang}: fuzzy entries, review and unmark them:\n" + "\n".join(fuzzy)
    hint = f"{UPDATE}" if lang == DEFAULT else "translate them"
    assert not empty, f"{lang}: untranslated entries, {hint}:\n" + "\n".join(empty)


def test_english_catalog_mirrors_the_msgids() -> None:
    english = load(po_path(DEFAULT))
    differing = [describe(m) for m in messages(english) if strings(m) != ids(m)]
    assert not differing, f"en: msgstr must equal msgid, {UPDATE}:\n" + "\n".join(differing)


# ---------------------------------------------------------------- consistent translations


def test_placeholders_match(lang: str, catalog: Catalog) -> None:
    bad = []
    for m in messages(catalog):
        expected = frozenset().union(*(placeholders(i) for i in ids(m)))
        for index, string in enumerate(strings(m)):
            if not string:
                continue  # untranslated: reported by test_fully_translated_no_fuzzy
            try:
                found = placeholders(string)
            except ValueError as exc:
                bad.append(f"{describe(m)} form {index}: not a valid format string ({exc})")
                continue
            if found != expected:
                bad.append(
                    f"{describe(m)} form {index}: has {sorted(found)}, needs {sorted(expected)}"
                )
    assert not bad, f"{lang}: placeholders differ from the msgid:\n" + "\n".join(bad)


def tags(text: str) -> list[tuple[str, str]]:
    return [(close, name.lower()) for close, name in TAG.findall(text)]


def test_html_matches_and_is_telegram_safe(lang: str, catalog: Catalog) -> None:
    bad = []
    for m in messages(catalog):
        expected = Counter(name for _, name in tags(ids(m)[-1]))
        for index, string in enumerate(strings(m)):
            if not string:
                continue
            where = f"{describe(m)} form {index}"
            stack: list[str] = []
            for close, name in tags(string):
                if name not in TELEGRAM_TAGS:
                    bad.append(f"{where}: <{name}> is not allowed by Telegram")
                elif not close:
                    stack.append(name)
                elif not stack or stack.pop() != name:
                    bad.append(f"{where}: </{name}> does not close the open tag")
            if stack:
                bad.append(f"{where}: unclosed {stack}")
            if Counter(name for _, name in tags(string)) != expected:
                bad.append(f"{where}: tags differ from the msgid")
            # A bare < or & breaks parse_mode=HTML.
            bare = TAG.sub("", re.sub(r"&(#\d+|#x[0-9a-fA-F]+|\w+);", "", string))
            if "<" in bare or ">" in bare or "&" in bare:
                bad.append(f"{where}: unescaped <, > or & (write &lt; &gt; &amp;)")
    assert not bad, f"{lang}:\n" + "\n".join(bad)


def test_plural_forms_follow_babel_locale_data(lang: str, catalog: Catalog) -> None:
    expected = get_plural(lang)
    assert catalog.num_plurals == expected.num_plurals
    assert catalog.plural_expr == expected.plural_expr
    wrong = [
        describe(m)
        for m in messages(catalog)
        if m.pluralizable and len(strings(m)) != expected.num_plurals
    ]
    assert not wrong, f"{lang}: needs {expected.num_plurals} plural forms:\n" + "\n".join(wrong)


def test_plural_form_counts() -> None:
    assert load(po_path("ja")).num_plurals == 1
    assert load(po_path("fr")).num_plurals == 2
    assert load(po_path("en")).num_plurals == 2


def test_french_typography() -> None:
    """Non-breaking space before : ; ! ? and inside « », never an ordinary space."""
    bad = []
    for m in messages(load(po_path("fr"))):
        for string in strings(m):
            text = TAG.sub("", re.sub(r"\{[^{}]*\}", "", string))
            for match in re.finditer(r"(.?)([:;!?»])", text):
                before, mark = match.groups()
                if before not in ("\u00a0", "\u202f", "!", "?") and not before.isdigit():
                    bad.append(f"{describe(m)}: {before!r} before {mark!r}")
            if re.search(r"«[^\u00a0\u202f]", text):
                bad.append(f"{describe(m)}: « without a non-breaking space after it")
    assert not bad, "\n".join(bad)


# ---------------------------------------------------------------- in step with the code


def test_catalogs_contain_exactly_the_template(lang: str, catalog: Catalog) -> None:
    template = {key(m) for m in messages(load(POT))}
    present = {key(m) for m in messages(catalog)}
    missing = [repr(k[0]) for k in template - present]
    stale = [repr(k[0]) for k in present - template]
    assert not missing and not stale, (
        f"{lang} catalog out of step with locales/shbot.pot, {UPDATE}.\n"
        f"missing: {missing}\nno longer in the template: {stale}"
    )


def test_template_is_up_to_date_with_the_code(tmp_path: Path) -> None:
    fresh = tmp_path / "fresh.pot"
    pybabel = [sys.executable, "-c", "from babel.messages.frontend import main; main()"]
    result = subprocess.run(
        [*pybabel, "-q", "extract", "-F", "pyproject.toml", "-o", str(fresh), "."],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    extracted = {key(m): m for m in messages(load(fresh))}
    committed = {key(m): m for m in messages(load(POT))}
    added = [describe(extracted[k]) for k in extracted.keys() - committed.keys()]
    removed = [describe(committed[k]) for k in committed.keys() - extracted.keys()]
    assert not added and not removed, (
        f"locales/shbot.pot is out of date with the code, {UPDATE}, then translate.\n"
        f"new in the code: {added}\ngone from the code: {removed}"
    )
