"""The gettext catalogs: complete, well-formed, consistent with the code.

When one of these fails after a code change, the fix is almost always::

    python -m shbot.i18n update     # re-extract locales/shbot.pot, merge into every .po

and then translating the new or fuzzy entries of ``ja`` and ``fr`` (docs/translating.md).
"""

from __future__ import annotations

import gettext
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


def fuzzy_and_empty(catalog: Catalog) -> tuple[list[str], list[str]]:
    """The fuzzy entries and those with an empty msgstr (any plural form)."""
    fuzzy = [describe(m) for m in messages(catalog) if m.fuzzy]
    empty = [describe(m) for m in messages(catalog) if not all(strings(m))]
    return fuzzy, empty


def test_fully_translated_no_fuzzy(lang: str, catalog: Catalog) -> None:
    fuzzy, empty = fuzzy_and_empty(catalog)
    assert not fuzzy, f"{lang}: fuzzy entries, review and unmark them:\n" + "\n".join(fuzzy)
    hint = f"{UPDATE}" if lang == DEFAULT else "translate them"
    assert not empty, f"{lang}: untranslated entries, {hint}:\n" + "\n".join(empty)


def test_english_catalog_mirrors_the_msgids() -> None:
    english = load(po_path(DEFAULT))
    differing = [describe(m) for m in messages(english) if strings(m) != ids(m)]
    assert not differing, f"en: msgstr must equal msgid, {UPDATE}:\n" + "\n".join(differing)


# ---------------------------------------------------------------- consistent translations


def placeholder_problems(catalog: Catalog) -> list[str]:
    """Entries whose msgstr (each plural form) has other {placeholders} than the msgid (the
    union of singular and plural), or is not a valid format string."""
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
    return bad


def test_placeholders_match(lang: str, catalog: Catalog) -> None:
    bad = placeholder_problems(catalog)
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


#: Every count the bot can put in a plural message (players, seats, policies, games, seconds,
#: minutes): far more than any table or group reaches, and well short of the millions where
#: CLDR 42+ gives French a third form ("many") that no count of ours can take.
SHOWN_COUNTS = range(0, 100_001)


def plural_index(catalog: Catalog, n: int) -> int:
    """The msgstr index gettext picks for ``n`` under the catalog's own Plural-Forms header."""
    return int(gettext.c2py(catalog.plural_expr)(n))


def test_plural_rule_agrees_with_cldr_on_every_shown_count(lang: str, catalog: Catalog) -> None:
    """The header's rule sorts every count we show as CLDR does (whatever Babel's
    version): each plural form stands for exactly one CLDR category over those counts, and
    each category met there has its own form. A new CLDR release that splits counts we never
    show (French "many" for millions) changes nothing here."""
    from babel import Locale

    cldr = Locale.parse(lang).plural_form
    category_of_form: dict[int, set[str]] = {}
    form_of_category: dict[str, set[int]] = {}
    for n in SHOWN_COUNTS:
        index, category = plural_index(catalog, n), cldr(n)
        assert 0 <= index < catalog.num_plurals, f"{lang}: form {index} for {n} is out of range"
        category_of_form.setdefault(index, set()).add(category)
        form_of_category.setdefault(category, set()).add(index)
    mixed = {i: c for i, c in category_of_form.items() if len(c) > 1}
    split = {c: i for c, i in form_of_category.items() if len(i) > 1}
    assert not mixed, f"{lang}: one plural form covers several CLDR categories: {mixed}"
    assert not split, f"{lang}: one CLDR category is spread over several forms: {split}"
    assert len(category_of_form) == catalog.num_plurals, f"{lang}: a plural form is never used"


def test_plural_messages_have_the_headers_number_of_forms(lang: str, catalog: Catalog) -> None:
    wrong = [
        describe(m)
        for m in messages(catalog)
        if m.pluralizable and len(strings(m)) != catalog.num_plurals
    ]
    assert not wrong, f"{lang}: needs {catalog.num_plurals} plural forms:\n" + "\n".join(wrong)


def test_plural_rule_is_cldr_for_the_counts_of_a_game() -> None:
    """Spot checks a reader can follow: French 0 and 1 are singular, 2 plural; Japanese has
    one form; English 1 singular, 0 and 2 plural."""
    fr, ja, en = (load(po_path(lang)) for lang in ("fr", "ja", "en"))
    assert [plural_index(fr, n) for n in (0, 1, 2, 5, 10)] == [0, 0, 1, 1, 1]
    assert [plural_index(ja, n) for n in (0, 1, 2, 5)] == [0, 0, 0, 0]
    assert [plural_index(en, n) for n in (0, 1, 2, 5)] == [1, 0, 1, 1]


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


# ---------------------------------------------------------------- no English left in ja / fr

#: Latin-script words a Japanese or French message may keep as they are: the game's title
#: and Hitler's name, the ballots, Telegram's own names (its "START" button), the "R" of a
#: round number (R3).
UNTRANSLATABLE = ("Secret Hitler", "Hitler", "Ja!", "Nein!", "Telegram", "BotFather", "START", "R")
#: English words that are no French words: in a French message they are English left over.
ENGLISH_ONLY = frozenset(
    """
    the and of to is are was were you your with for this that these those will would has have
    had not be been by from it its who what when which where their they them there can cannot
    may must should could into only about after before than then yet every each any some yes
    no already still here now game games player players policy policies chancellor round
    rounds waiting press choose chosen nominated elected enacted discard discarded voted
    settings help rules turn next last first new off
    """.split()  # noqa: SIM905 - a word list reads better as words
)
#: How many foreign words a message may hold before it counts as untranslated.
MOST_LATIN_WORDS_JA = 2
MOST_ENGLISH_WORDS_FR = 1
_NOT_LANGUAGE = re.compile(r"\{[^{}]*\}|<[^<>]*>|&#?\w+;|/[A-Za-z0-9_]+(?:@\w+)?")
_ALLOWED = re.compile(
    "|".join(
        rf"(?<![A-Za-z]){re.escape(w)}(?![A-Za-z])" for w in sorted(UNTRANSLATABLE, key=len)[::-1]
    )
)


def foreign_words(text: str, lang: str) -> list[str]:
    """The words of a ``lang`` message that are English left untranslated: for Japanese every
    Latin-script word, for French the English-only words; names ({placeholders}),
    /commands, HTML and :data:`UNTRANSLATABLE` aside."""
    rest = _ALLOWED.sub(" ", _NOT_LANGUAGE.sub(" ", text))
    if lang == "ja":
        return re.findall(r"[A-Za-z]+", rest)
    return [w for w in re.findall(r"[^\W\d_]+", rest) if w.lower() in ENGLISH_ONLY]


def untranslated_english(catalog: Catalog, lang: str) -> list[str]:
    """Entries of a ja or fr catalog with more foreign words than a message may hold."""
    most = MOST_LATIN_WORDS_JA if lang == "ja" else MOST_ENGLISH_WORDS_FR
    bad = []
    for m in messages(catalog):
        for index, string in enumerate(strings(m)):
            words = foreign_words(string, lang)
            if len(words) > most:
                bad.append(f"{describe(m)} form {index}: {words}")
    return bad


@pytest.mark.parametrize("lang", [lang for lang in LANGUAGES if lang != DEFAULT])
def test_no_english_left_in_the_translations(lang: str) -> None:
    bad = untranslated_english(load(po_path(lang)), lang)
    assert not bad, f"{lang}: English left in the translation:\n" + "\n".join(bad)


def test_the_checks_catch_what_they_must() -> None:
    """Each catalog check fails on a small catalog made to break it."""
    fr = Catalog(locale="fr")
    fr.add("{n} vote", "{n} vote", flags=["fuzzy"])
    fr.add("Hello {name}", "")
    fr.add("{president} nominated {chancellor}.", "{president} a désigné {chancelier}.")
    fr.add(("{n} player", "{n} players"), ("{n} joueur", "{count} joueurs"))
    fr.add("Choose.", "Choose the player you want to investigate.")
    fuzzy, empty = fuzzy_and_empty(fr)
    assert fuzzy == ["'{n} vote'"] and empty == ["'Hello {name}'"]
    bad = placeholder_problems(fr)
    assert len(bad) == 2 and "form 0" in bad[0] and "form 1" in bad[1], bad
    assert untranslated_english(fr, "fr") == [
        "'Choose.' form 0: ['Choose', 'the', 'player', 'you', 'to']"
    ]
    assert (
        foreign_words("Ja! ou Nein! pour /join, {name} : le Président de Secret Hitler", "fr") == []
    )
    assert foreign_words("🗳 {president}が<b>Ja!</b>に投票（R3、Telegram）", "ja") == []
    assert foreign_words("開始（Start）を押してください: you", "ja") == ["Start", "you"]


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


@pytest.fixture(scope="module")
def extracted(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[object, str | None], Message]:
    """Every message the code uses, extracted now with the project's babel settings
    (pyproject's [tool.babel]: _, gettext, ngettext, pgettext, npgettext, N_)."""
    fresh = tmp_path_factory.mktemp("extract") / "fresh.pot"
    pybabel = [sys.executable, "-c", "from babel.messages.frontend import main; main()"]
    result = subprocess.run(
        [*pybabel, "-q", "extract", "-F", "pyproject.toml", "-o", str(fresh), "."],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    found = {key(m): m for m in messages(load(fresh))}
    assert len(found) > 100, f"the extraction found too few messages: {len(found)}"
    return found


def test_template_is_up_to_date_with_the_code(
    extracted: dict[tuple[object, str | None], Message],
) -> None:
    committed = {key(m): m for m in messages(load(POT))}
    added = [describe(extracted[k]) for k in extracted.keys() - committed.keys()]
    removed = [describe(committed[k]) for k in committed.keys() - extracted.keys()]
    assert not added and not removed, (
        f"locales/shbot.pot is out of date with the code, {UPDATE}, then translate.\n"
        f"new in the code: {added}\ngone from the code: {removed}"
    )


def test_every_message_of_the_code_is_in_the_catalog(
    lang: str, catalog: Catalog, extracted: dict[tuple[object, str | None], Message]
) -> None:
    """Straight from the code to each catalog (not through the template): a message the code
    uses and a catalog lacks would show in English."""
    present = {key(m) for m in messages(catalog)}
    missing = [describe(m) for k, m in extracted.items() if k not in present]
    assert not missing, f"{lang}: used in the code, missing from the catalog:\n" + "\n".join(
        missing
    )
