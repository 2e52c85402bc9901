"""The catalogs stay clean and speak the printed game's words (../shared/GLOSSARY.md,
docs/translating.md): no stale comments from fuzzy matching, the glossary's terms in the
/rules texts and the role message's cheat sheet, and none of the words reviews removed."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog

from shbot import rules_text
from shbot.i18n import LANGUAGES
from tests.test_catalogs import ids, load, messages, po_path, strings

TRANSLATED = [lang for lang in LANGUAGES if lang != "en"]

#: English term of a msgid -> the glossary's word in each language (a regular expression).
GLOSSARY: dict[str, dict[str, str]] = {
    "Election Tracker": {"ja": "選挙トラック", "fr": "marqueur de suivi des élections"},
    "Fascist track": {"ja": "ファシスト党ボード", "fr": "(?i:plateau fasciste)"},
    "draw pile": {"ja": "山札", "fr": "pioche"},
    "discard pile": {"ja": "捨て札", "fr": "défausse"},
    "term-limited": {"ja": "任期満了", "fr": "inéligib"},
    "Chancellor": {"ja": "首相", "fr": "(?i:chancel)"},
    "President": {"ja": "大統領", "fr": "(?i:présiden)"},
    "Veto": {"ja": "拒否権", "fr": "veto"},
    "Investigate Loyalty": {"ja": "忠誠の調査", "fr": "(?i:enquête)"},
    "Policy Peek": {"ja": "法案の確認", "fr": "(?i:inspection)"},
    "Special Election": {"ja": "特別選挙", "fr": "(?i:élection spéciale)"},
    "Execution": {"ja": "処刑", "fr": "(?i:exécution)"},
    "confirmed not Hitler": {"ja": "ヒトラーではないと確定", "fr": "non-Hitler"},
    "chaos": {"ja": "混乱状態", "fr": "chaos"},
    "claim": {"ja": "申告", "fr": "annon"},
    "Legislative Session": {"ja": "立法", "fr": "(?i:législation)"},
}
#: One word for one thing on every surface (chat, picture caption, Mini App, /rules, buttons):
#: (the word kept, then the words that named the same thing before; reviews ja-4 and fr-4).
ONE_WORD: dict[str, list[tuple[str, ...]]] = {
    "ja": [
        ("申告", "主張"),  # a claim
        ("コンピューター", "CPU"),  # a computer player
        ("捨てる", "破棄"),  # discard
        ("処刑", "死亡"),  # an executed (dead) player
        ("募集中のゲーム", "ロビー"),  # the lobby
        ("除外", "数えない"),  # a missing vote that is not counted
        ("UTC", "UTC時間"),
    ],
    "fr": [
        ("législation", "(?i:session législative)"),  # the Legislative Session
        ("inéligible", "(?i:chancellerie interdite)"),  # term-limited
        ("annonce", r"(?i)\baffirm"),  # a claim
    ],
}
#: Words a review replaced: they must not come back (a new message, a fuzzy match).
RETIRED: dict[str, list[str]] = {
    "ja": [
        "(?<!選挙)トラック", "タイル", "個別チャット", "私との", "立法会議", "協定世界時",
        "行うことができる", *(word for pair in ONE_WORD["ja"] for word in pair[1:]),
    ],
    "fr": [
        r"\bpiste\b", r"\btuiles?\b", "conversation privée", r"\bnomm", r"\bnomination",
        r"avoir tiré", r"a tiré \{hand\}", r"vous seul\b", r"\(Président\)", r"\(Chancelier\)",
        "allégeance", "\u202f", "[“”]", *(word for pair in ONE_WORD["fr"] for word in pair[1:]),
    ],
}  # fmt: skip
#: The msgids of /rules and of the cheat sheet (shbot/bot/render/rolecard.py).
CHEAT_SHEET = (
    "📋 <b>Cheat sheet</b> · {players} players",
    "Liberals: {liberals} · Fascists: {fascists} + Hitler",
    "Fascist track: {track}",
)
RULES = tuple(m for key in rules_text.SECTIONS for m in rules_text.section_messages(key))


@pytest.mark.parametrize("lang", LANGUAGES)
def test_no_stale_comments_from_fuzzy_matching(lang: str) -> None:
    """``#|`` (a fuzzy entry's previous msgid) and ``# | msgid`` (the same, turned into a
    comment by a round trip through Babel) mislead the next translator."""
    text = po_path(lang).read_text(encoding="utf-8")
    stale = [line for line in text.splitlines() if re.match(r"#\s?\|", line)]
    assert not stale, f"{lang}: {len(stale)} stale comment lines, e.g. {stale[:3]}"


def glossary_problems(catalog: Catalog, lang: str, msgids: tuple[str, ...]) -> list[str]:
    wanted = set(msgids)
    bad = []
    for m in messages(catalog):
        if ids(m)[0] not in wanted:
            continue
        for english, words in GLOSSARY.items():
            if english.lower() not in ids(m)[0].lower():
                continue
            for string in strings(m):
                if not re.search(words[lang], string):
                    bad.append(f"{ids(m)[0][:50]!r}: {english!r} is not {words[lang]!r}")
    return bad


@pytest.mark.parametrize("lang", TRANSLATED)
def test_rules_and_cheat_sheet_use_the_glossary(lang: str) -> None:
    catalog = load(po_path(lang))
    found = {ids(m)[0] for m in messages(catalog)}
    assert set(RULES) | set(CHEAT_SHEET) <= found, "the msgids moved: update this test"
    bad = glossary_problems(catalog, lang, RULES + CHEAT_SHEET)
    assert not bad, f"{lang}:\n" + "\n".join(bad)


@pytest.mark.parametrize("lang", TRANSLATED)
def test_no_retired_word_comes_back(lang: str) -> None:
    bad = []
    for m in messages(load(po_path(lang))):
        for string in strings(m):
            for word in RETIRED[lang]:
                if re.search(word, string):
                    bad.append(f"{ids(m)[0][:50]!r}: {word!r} in {string[:80]!r}")
    assert not bad, f"{lang}:\n" + "\n".join(bad)


def test_the_glossary_check_finds_a_wrong_term() -> None:
    catalog = Catalog(locale="fr")
    catalog.add("Fascist track: {track}", "Piste fasciste : {track}")
    assert glossary_problems(catalog, "fr", CHEAT_SHEET)
    catalog = Catalog(locale="fr")
    catalog.add("Fascist track: {track}", "Plateau fasciste : {track}")
    assert not glossary_problems(catalog, "fr", CHEAT_SHEET)


def test_the_update_drops_what_fuzzy_matching_left_on_fixed_entries() -> None:
    from shbot.i18n.__main__ import _scrub

    catalog = Catalog(locale="fr")
    fixed = catalog.add("Fascist track: {track}", "Plateau fasciste : {track}")
    fixed.user_comments = ['| msgid "Election tracker: {tracker}/3."', "kept"]
    pending = catalog.add("Seats", "Places", flags=["fuzzy"])
    pending.user_comments = ['| msgid "Seat"']
    assert _scrub(catalog) is True
    assert fixed.user_comments == ["kept"]
    assert pending.user_comments == ['| msgid "Seat"'], "a fuzzy entry keeps its hint"
    assert _scrub(catalog) is False


#: English words of any msgid -> the word the translation must use (every surface, not only
#: /rules): a new message cannot bring back a second name for the same thing.
EVERYWHERE: dict[str, dict[str, str]] = {
    r"\bclaim": {"ja": "申告", "fr": "(?i:annon)"},
    r"(?i)term-limited": {"ja": "任期満了", "fr": "(?i:inéligib)"},
    r"\bsession\b": {"ja": "立法", "fr": "(?i:législation)"},
    r"\b(?i:discard)(?! pile)": {"ja": "捨て", "fr": "(?i:défauss)"},
    r"\bdead\b": {"ja": "処刑", "fr": "(?i:mort)"},
}


@pytest.mark.parametrize("lang", TRANSLATED)
def test_one_word_for_one_thing_everywhere(lang: str) -> None:
    bad = []
    for m in messages(load(po_path(lang))):
        for english, words in EVERYWHERE.items():
            if not re.search(english, re.sub(r"\{\w+\}", "", ids(m)[0])):  # words, not {claim}
                continue
            for string in strings(m):
                if not re.search(words[lang], string):
                    bad.append(f"{ids(m)[0][:50]!r}: {english!r} is not {words[lang]!r}")
    assert not bad, f"{lang}:\n" + "\n".join(bad)


def test_each_pair_keeps_one_word() -> None:
    """The words retired for each pair are really gone, and the word kept is in use."""
    for lang, pairs in ONE_WORD.items():
        text = "\n".join(s for m in messages(load(po_path(lang))) for s in strings(m))
        for kept, *retired in pairs:
            assert re.search(kept, text), f"{lang}: {kept!r} is used nowhere"
            for word in retired:
                assert not re.search(word, text), f"{lang}: {word!r} is back"


def test_glued_text_is_joined_as_each_language_writes_it() -> None:
    """The recap's sentences and the items of a line are joined by the catalog's joiners:
    no space after 。 in Japanese (review ja-4 D1)."""
    from shbot.bot.render.common import on_one_line, sentences
    from shbot.i18n import translator

    ja, en = translator("ja"), translator("en")
    assert sentences(ja, ["📜 A。", "💀 B。", "C。"]) == "📜 A。💀 B。C。"
    assert sentences(en, ["📜 A.", "B."]) == "📜 A. B."
    assert sentences(en, []) == ""
    assert on_one_line(ja, ["a", "b"]) == "a · b"


#: Joins of user-visible parts with a literal separator. Allowed: icons side by side (the
#: cheat sheet's track), a name's spaces squeezed, the points of an SVG path.
LITERAL_JOIN = re.compile(r"""(?<![\w.])(["'])(?!\\n)[^"'\n]+\1\s*\.join\(""")
NOT_TEXT = ('" ".join(track)', '" ".join(text.split())', "for x, y in _points(xy)")


def test_render_code_joins_no_text_with_a_literal() -> None:
    root = Path(__file__).resolve().parent.parent / "shbot"
    files = [*(root / "bot" / "render").glob("*.py"), root / "bot" / "delivery" / "media.py"]
    files += [*(root / "table").glob("*.py"), *(root / "webapp").glob("*.py")]
    bad = []
    for path in files:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if LITERAL_JOIN.search(line) and not any(ok in line for ok in NOT_TEXT):
                bad.append(f"{path.relative_to(root)}:{number}: {line.strip()}")
    assert not bad, "join through the catalog (render.common.on_one_line, series):\n" + "\n".join(
        bad
    )
