"""The translation layer: locale handling, formatting, plurals, pseudo-locale, .mo building."""

from __future__ import annotations

import asyncio
import os
import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from shbot import i18n, rules_text
from shbot.i18n import (
    DEFAULT,
    LANGUAGE_NAMES,
    LANGUAGES,
    PSEUDO,
    esc,
    normalize,
    pseudo_leaks,
    translator,
)

ROOT = Path(__file__).resolve().parent.parent
TELEGRAM_LIMIT = 4096

# A plural entry only the temporary French catalog has.
PLURAL_PO = """
msgid "{n} law"
msgid_plural "{n} laws"
msgstr[0] "{n} loi"
msgstr[1] "{n} lois"
"""


@pytest.fixture
def temp_locales(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A private copy of locales/ (without compiled files), selected with SHBOT_LOCALES."""
    target = tmp_path / "locales"
    shutil.copytree(ROOT / "locales", target, ignore=shutil.ignore_patterns("*.mo"))
    monkeypatch.setenv(i18n.LOCALES_ENV, str(target))
    i18n.clear_cache()
    yield target
    i18n.clear_cache()


def po(locales: Path, lang: str) -> Path:
    return locales / lang / "LC_MESSAGES" / f"{i18n.DOMAIN}.po"


def touch_later(path: Path, seconds: float = 10) -> None:
    stamp = path.stat().st_mtime + seconds
    os.utime(path, (stamp, stamp))


# ---------------------------------------------------------------- languages


@pytest.mark.parametrize(
    ("code", "expected"),
    [
        ("en", "en"),
        ("EN", "en"),
        ("en-GB", "en"),
        ("fr-CA", "fr"),
        ("fr_FR.UTF-8", "fr"),
        ("ja_JP", "ja"),
        ("ja", "ja"),
        (" Fr ", "fr"),
        ("de", None),
        ("", None),
        (None, None),
        (PSEUDO, None),
        ("qps-ploc", None),
    ],
)
def test_normalize(code: str | None, expected: str | None) -> None:
    assert normalize(code) == expected


def test_language_constants() -> None:
    assert LANGUAGES == ("en", "ja", "fr")
    assert DEFAULT == "en"
    assert LANGUAGE_NAMES == {"en": "English", "ja": "日本語", "fr": "Français"}
    assert PSEUDO not in LANGUAGES


def test_translators_are_cached_per_locale_and_unknown_means_english() -> None:
    assert translator("fr") is translator("fr-CA")
    assert translator("ja") is not translator("fr")
    assert translator("de").locale == "en"
    assert translator("fr").locale == "fr"


# ---------------------------------------------------------------- translate and format


def test_translates_and_formats() -> None:
    prompt = "Current language: {language}. Choose the language I use in this chat:"
    assert translator("en").gettext(prompt, language="English").startswith("Current language: E")
    assert translator("fr")._(prompt, language="Français").startswith("Langue actuelle\u00a0: F")
    assert translator("ja")._(prompt, language="日本語").startswith("現在の言語：日本語")


def test_missing_translation_falls_back_to_english() -> None:
    t = translator("ja")
    assert t._("Not in any catalog, {who}.", who="Ann") == "Not in any catalog, Ann."
    assert t.ngettext("{n} thing", "{n} things", 3) == "3 things"
    assert t.pgettext("menu", "Nothing {x}", x=1) == "Nothing 1"


def test_ngettext_fills_n_and_english_plurals() -> None:
    t = translator("en")
    assert t.ngettext("{n} law", "{n} laws", 1) == "1 law"
    assert t.ngettext("{n} law", "{n} laws", 0) == "0 laws"
    assert t.ngettext("one law", "{n} laws", 1) == "one law"
    assert t.ngettext("{n} law by {who}", "{n} laws by {who}", 2, who="Bo") == "2 laws by Bo"


def test_literal_braces_are_doubled_and_wrong_placeholders_fail_loudly() -> None:
    t = translator("en")
    assert t._("a {{literal}} {x}", x=1) == "a {literal} 1"
    with pytest.raises(KeyError):
        t._("Hello {name}")


def test_esc() -> None:
    assert esc('<b>Tom & "Jerry"</b>') == "&lt;b&gt;Tom &amp; &quot;Jerry&quot;&lt;/b&gt;"
    assert esc(42) == "42"


def test_language_picker_texts() -> None:
    assert "English" in i18n.language_prompt_text(translator("en"))
    assert "日本語" in i18n.language_prompt_text(translator("ja"))
    assert i18n.language_changed_text("fr-CA") == (
        "C’est fait\u00a0! Langue de cette discussion\u00a0: Français."
    )


async def test_locales_never_mix_under_concurrency() -> None:
    """Two games, one in Japanese and one in French, formatting interleaved."""
    msgid = "Done: from now on I speak {language} in this chat."

    async def game(code: str, rounds: int = 200) -> list[str]:
        out = []
        for _ in range(rounds):
            t = translator(code)
            out.append(t._(msgid, language=LANGUAGE_NAMES[code]))
            await asyncio.sleep(0)
        return out

    ja, fr = await asyncio.gather(game("ja"), game("fr"))
    assert set(ja) == {"設定しました。このチャットの言語：日本語"}
    assert set(fr) == {"C’est fait\u00a0! Langue de cette discussion\u00a0: Français."}


# ---------------------------------------------------------------- plurals (temporary catalog)


def test_plural_rules_come_from_the_catalogs(temp_locales: Path) -> None:
    with po(temp_locales, "fr").open("a", encoding="utf-8") as f:
        f.write(PLURAL_PO)
    with po(temp_locales, "ja").open("a", encoding="utf-8") as f:
        f.write('\nmsgid "{n} law"\nmsgid_plural "{n} laws"\nmsgstr[0] "法案{n}枚"\n')
    fr, ja = translator("fr"), translator("ja")
    assert fr.ngettext("{n} law", "{n} laws", 0) == "0 loi"  # French: 0 is singular
    assert fr.ngettext("{n} law", "{n} laws", 1) == "1 loi"
    assert fr.ngettext("{n} law", "{n} laws", 2) == "2 lois"
    assert [ja.ngettext("{n} law", "{n} laws", n) for n in (0, 1, 5)] == [
        "法案0枚",
        "法案1枚",
        "法案5枚",
    ]


def test_broken_translation_falls_back_to_english(temp_locales: Path) -> None:
    with po(temp_locales, "fr").open("a", encoding="utf-8") as f:
        f.write('\nmsgid "Hi {name}"\nmsgstr "Salut {nom}"\n')
    assert translator("fr")._("Hi {name}", name="Zoé") == "Hi Zoé"


# ---------------------------------------------------------------- compiled catalogs


def test_mo_built_when_missing_and_rebuilt_when_po_is_newer(temp_locales: Path) -> None:
    fr_po = po(temp_locales, "fr")
    fr_mo = fr_po.with_suffix(".mo")
    assert not fr_mo.exists()
    assert translator("fr")._("Overview") == "Présentation"
    assert fr_mo.is_file()

    text = fr_po.read_text(encoding="utf-8")
    fr_po.write_text(text.replace('msgstr "Présentation"', 'msgstr "Aperçu"'), encoding="utf-8")
    touch_later(fr_po)
    i18n.clear_cache()
    assert translator("fr")._("Overview") == "Aperçu"
    assert fr_mo.stat().st_mtime_ns == fr_po.stat().st_mtime_ns


def test_fresh_mo_is_reused(temp_locales: Path) -> None:
    translator("ja")
    ja_mo = po(temp_locales, "ja").with_suffix(".mo")
    before = ja_mo.stat().st_mtime_ns
    i18n.clear_cache()
    translator("ja")
    assert ja_mo.stat().st_mtime_ns == before


def test_unwritable_locales_compile_in_memory(
    temp_locales: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(target: Path, data: bytes, mtime_ns: int) -> None:
        raise PermissionError(f"read-only: {target}")

    monkeypatch.setattr(i18n, "_write_atomically", refuse)
    assert translator("ja")._("Overview") == "概要"
    assert not po(temp_locales, "ja").with_suffix(".mo").exists()


def test_missing_catalog_means_english(temp_locales: Path) -> None:
    shutil.rmtree(temp_locales / "fr")
    assert translator("fr")._("Overview") == "Overview"


# ---------------------------------------------------------------- pseudo-locale


def test_pseudo_locale_transforms_and_keeps_placeholders_and_html() -> None:
    t = translator(PSEUDO)
    out = t._("Hello {name}, <b>vote</b> &amp; <i>win</i>!", name="Bob")
    assert out.startswith("⟦") and out.endswith("⟧")
    assert "Bob" in out  # the value is not transformed
    assert "<b>" in out and "</b>" in out and "<i>" in out and "&amp;" in out
    assert "Hello" not in out and "vote" not in out
    assert re.sub(r"[^a-z]", "", out.lower()) != "hellobobvotewin"
    assert pseudo_leaks(out) == []
    assert t.ngettext("{n} law", "{n} laws", 3).startswith("⟦3 ")
    assert t.pgettext("ctx", "Yes").startswith("⟦")


def test_pseudo_leaks_finds_untranslated_parts() -> None:
    t = translator(PSEUDO)
    assert pseudo_leaks(f"🗳 {t._('Vote')}\n\n{t._('Done')}") == []
    nested = t._("{a} and {b}", a=t._("one"), b=t._("two"))
    assert pseudo_leaks(nested) == []
    assert pseudo_leaks(f"Bob: {t._('voted')}") == ["Bob: "]
    assert pseudo_leaks("plain English") == ["plain English"]


def test_pseudo_locale_covers_the_rules() -> None:
    t = translator(PSEUDO)
    for key in rules_text.SECTIONS:
        assert pseudo_leaks(rules_text.render_section(t, key)) == []
    assert pseudo_leaks(rules_text.rules_intro(t)) == []


# ---------------------------------------------------------------- rules texts


def utf16_len(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


@pytest.mark.parametrize("lang", LANGUAGES)
def test_rules_sections_fit_one_telegram_message(lang: str) -> None:
    t = translator(lang)
    for key in rules_text.SECTIONS:
        text = rules_text.render_section(t, key)
        assert utf16_len(text) <= TELEGRAM_LIMIT, (lang, key, utf16_len(text))
        assert set(re.findall(r"</?(\w+)", text)) <= {"b", "i", "code"}, (lang, key)


@pytest.mark.parametrize("lang", [lang for lang in LANGUAGES if lang != DEFAULT])
def test_rules_sections_are_translated(lang: str) -> None:
    t, en = translator(lang), translator(DEFAULT)
    assert rules_text.rules_intro(t) != rules_text.rules_intro(en)
    for key in rules_text.SECTIONS:
        assert rules_text.section_title(t, key) != rules_text.section_title(en, key), key
        assert rules_text.section_text(t, key) != rules_text.section_text(en, key), key


def test_rules_sections_in_order() -> None:
    assert rules_text.SECTIONS == (
        "overview",
        "setup",
        "election",
        "legislative",
        "powers",
        "veto",
        "winning",
    )
    en = translator("en")
    assert rules_text.section_title(en, "powers") == "Presidential Powers"
    assert rules_text.render_section(en, "veto").startswith("<b>Veto Power</b>\n\n")


def test_compiled_catalogs_are_readable_by_other_users(tmp_path: Path) -> None:
    """A container may run as another user than the one who compiled the catalogs."""
    from shbot.i18n import _write_atomically

    target = tmp_path / "shbot.mo"
    _write_atomically(target, b"data", 0)
    assert target.stat().st_mode & 0o044 == 0o044


def test_translators_follow_a_new_locales_override_without_clearing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The catalog folder is cached per value of $SHBOT_LOCALES, so changing it still counts."""
    monkeypatch.delenv(i18n.LOCALES_ENV, raising=False)
    assert translator("fr")._("Overview") == "Présentation"
    target = tmp_path / "locales"
    shutil.copytree(ROOT / "locales", target, ignore=shutil.ignore_patterns("*.mo"))
    fr_po = po(target, "fr")
    text = fr_po.read_text(encoding="utf-8")
    fr_po.write_text(text.replace('msgstr "Présentation"', 'msgstr "Aperçu"'), encoding="utf-8")
    monkeypatch.setenv(i18n.LOCALES_ENV, str(target))
    assert translator("fr-CA")._("Overview") == "Aperçu"
    assert i18n.locales_dir() == target
    monkeypatch.delenv(i18n.LOCALES_ENV)
    assert translator("fr")._("Overview") == "Présentation"
