"""Every rule a player must know has its sentence in /rules, in every language.

The rule numbers come from the repository's copies of the rules (``docs/RULES-SPEC.md``,
R1–R11, and ``docs/RULES-TABLE.md``, T1–T2); :data:`SENTENCES` maps each of them to the
/rules sentences that state it: a section and words of the English msgid, plus the terms
and numbers its Japanese and French translations must carry. A rule added to a spec
without a sentence here fails, and so does a sentence that left its message, or a
translation that is missing, fuzzy, still English, or lost the rule's numbers or terms.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import pytest
from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po

from shbot import rules_text
from shbot.i18n import DEFAULT, DOMAIN, LANGUAGES, locales_dir, translator
from tests.rules_spec import SPEC, TABLE, read_rules

_JAPANESE = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")


@dataclass(frozen=True)
class Sentence:
    """Where a rule is stated: ``anchor`` is words of one of the section's English messages;
    ``ja`` and ``fr`` are glossary terms its translation must use."""

    section: str
    anchor: str
    ja: tuple[str, ...] = ()
    fr: tuple[str, ...] = ()

    def terms(self, lang: str) -> tuple[str, ...]:
        return {"ja": self.ja, "fr": self.fr}.get(lang, ())


def S(section: str, anchor: str, ja: tuple[str, ...] = (), fr: tuple[str, ...] = ()) -> Sentence:
    return Sentence(section, anchor, ja, fr)


_TRACKER = {"ja": ("選挙トラック",), "fr": ("marqueur de suivi des élections",)}

#: Rule number → the /rules sentences that state it (at least one each).
SENTENCES: dict[str, tuple[Sentence, ...]] = {
    "R1": (S("setup", "A game needs 5 to 10 players"),),
    "R1.1": (S("setup", "A game needs 5 to 10 players"),),
    "R1.2": (
        S("setup", "• 5 players: 3 Liberals, 1 Fascist and Hitler"),
        S("setup", "• 10 players: 6 Liberals, 3 Fascists and Hitler"),
    ),
    "R1.3": (
        S("setup", "Fascist for the Fascists <i>and for Hitler</i>", ("所属政党",), ("Parti",)),
    ),
    "R1.4": (
        S("setup", "The bot deals the secret roles at random", ("秘密役割",), ("rôles secrets",)),
        S("setup", "The seating order is the order in which players joined"),
        S("setup", "The first Presidential Candidate is picked at random", ("大統領候補",)),
    ),
    "R1.5": (S("setup", "6 Liberal and 11 Fascist", ("山札",), ("pioche",)),),
    "R2": (S("setup", "Each player learns their own role"),),
    "R2.1": (S("setup", "Each player learns their own role"),),
    "R2.2": (S("setup", "learn who the other Fascists are and who Hitler is"),),
    "R2.3": (S("setup", "with 5 or 6 players, Hitler learns who the Fascist is"),),
    "R2.4": (S("setup", "with 7 to 10 players, Hitler learns nothing about anyone"),),
    "R2.5": (S("setup", "the Liberals learn nothing about anyone"),),
    "R3": (
        S("overview", "Every round the table elects a government"),
        S("winning", "The game ends the moment one of these happens"),
    ),
    "R4": (S("election", "<b>3. Vote</b>", ("政府",), ("gouvernement",)),),
    "R4.1": (S("election", "the presidency moves on, in seat order, to the next living player"),),
    "R4.2": (
        S("election", "are term-limited and", ("任期満了",), ("inéligible",)),
        S("election", "when 5 or fewer players are alive, only the last elected Chancellor"),
    ),
    "R4.3": (S("election", "Votes stay hidden until everyone has voted"),),
    "R4.4": (S("election", "A tie or more Nein! votes", ("不信任",), ("rejeté",)),),
    "R4.5": (
        S("election", "The Election Tracker moves up one step and the presidency", **_TRACKER),
    ),
    "R4.6": (
        S("election", "electing Hitler as Chancellor wins the game for the Fascists"),
        S("election", "confirmed not Hitler", ("ヒトラーではない",), ("non-Hitler",)),
    ),
    "R4.7": (S("election", "goes back to 0 only when a policy is enacted, not when", **_TRACKER),),
    "R5": (S("legislative", "Once a government is elected, it passes one law"),),
    "R5.1": (S("legislative", "draws the top 3 policies of the draw pile", ("大統領",)),),
    "R5.2": (S("legislative", "The <b>Chancellor</b> sees those 2 policies", ("首相",)),),
    "R5.3": (S("legislative", "Discarded policies are never shown during the game"),),
    "R5.4": (S("legislative", "If fewer than 3 tiles are left in the draw pile", ("捨て札",)),),
    "R5.5": (S("legislative", "Enacting a policy sets the Election Tracker back", **_TRACKER),),
    "R5.6": (S("legislative", "the President must use it before the next round"),),
    "R6": (S("election", "When the Election Tracker reaches 3", ("混乱状態",), ("chaos",)),),
    "R6.1": (S("election", "the top policy of the draw pile is enacted at once"),),
    "R6.2": (
        S("election", "any power it would give is ignored"),
        S("powers", "A policy enacted through chaos gives no power", ("混乱状態",), ("chaos",)),
    ),
    "R6.3": (S("election", "all term limits are forgotten", ("任期満了",)),),
    "R6.4": (S("legislative", "the same check follows chaos and a veto", ("混乱状態",)),),
    "R6.5": (
        S("election", "A chaos policy counts like any other towards winning"),
        S("winning", "Policies enacted through chaos count as well", ("混乱状態",), ("chaos",)),
    ),
    "R7": (S("veto", "every new government holds the veto power", ("拒否権",), ("veto",)),),
    "R7.1": (S("veto", "Once 5 Fascist policies are enacted", ("拒否権",), ("veto",)),),
    "R7.2": (S("veto", "the Chancellor may propose a veto instead of", ("拒否権",), ("veto",)),),
    "R7.3": (S("veto", "both policies are discarded and nothing is enacted", **_TRACKER),),
    "R7.4": (S("veto", "cannot be proposed again in the same session"),),
    "R7.5": (S("legislative", "the same check follows chaos and a veto", ("拒否権",), ("veto",)),),
    "R8": (S("election", "the presidency moves on, in seat order"),),
    "R8.1": (S("election", "the presidency moves on, in seat order, to the next living player"),),
    "R8.2": (S("powers", "from the President who called the special election", ("特別選挙",)),),
    "R9": (S("powers", "<b>9–10 players</b>", ("忠誠の調査", "特別選挙", "法案の確認", "処刑")),),
    "R9.1": (S("powers", "A power must be used right away, once"),),
    "R9.2": (S("powers", "<b>Investigate Loyalty</b>: the President chooses", ("忠誠の調査",)),),
    "R9.3": (S("powers", "<b>Special Election</b>: the President chooses", ("特別選挙",)),),
    "R9.4": (S("powers", "<b>Policy Peek</b>: the President privately sees", ("法案の確認",)),),
    "R9.5": (
        S("powers", "<b>Execution</b>: the President chooses", ("処刑",), ("exécut",)),
        S("powers", "The dead no longer vote"),
    ),
    "R10": (S("winning", "At the end, the bot reveals every player's role"),),
    "R10.1": (S("winning", "• 5 Liberal policies are enacted"),),
    "R10.2": (S("winning", "• Hitler is executed", ("処刑",), ("exécuté",)),),
    "R10.3": (S("winning", "• 6 Fascist policies are enacted"),),
    "R10.4": (S("winning", "Hitler is elected Chancellor when 3 or more", ("首相",)),),
    "R11": (
        S("overview", "sent to you there, never to the group"),
        S("overview", "Anyone may claim anything"),
        S("powers", "Everyone sees who was investigated, only the President sees the answer"),
    ),
    "T1": (S("legislative", "<b>Silence during the session</b>"),),
    "T1.1": (S("legislative", "the President and the Chancellor must not communicate", ("立法",)),),
    "T1.2": (S("powers", "An executed player is out of the game and must stay silent", ("処刑",)),),
    "T2": (S("setup", "<b>Rebalanced variant</b>", (), ("rééquilibrée",)),),
    "T2.1": (S("setup", "• 6 players: the game starts with one Fascist policy", ("特権",)),),
    "T2.2": (S("setup", "• 7 players: one Fascist policy is taken out of the game"),),
    "T2.3": (S("setup", "• 9 players: two Fascist policies are taken out of the game"),),
    "T2.4": (S("setup", "With 5, 8 or 10 players the option changes nothing"),),
}


def catalog(lang: str) -> Catalog:
    with (locales_dir() / lang / "LC_MESSAGES" / f"{DOMAIN}.po").open("rb") as f:
        return read_po(f)


def message_of(sentence: Sentence) -> str:
    """The one English message of the sentence's section that contains its anchor."""
    found = [m for m in rules_text.section_messages(sentence.section) if sentence.anchor in m]
    assert len(found) == 1, (
        f"{sentence.anchor!r} is in {len(found)} messages of /rules {sentence.section!r}"
    )
    return found[0]


def numbers(text: str) -> set[str]:
    return set(re.findall(r"\d+", text))


def test_the_specs_parse_into_their_rules() -> None:
    spec, table = read_rules(SPEC), read_rules(TABLE)
    assert len(spec) > 50 and {"R1.1", "R4.7", "R9.5", "R10.4", "R11"} <= set(spec)
    assert table == ["T1", "T1.1", "T1.2", "T2", "T2.1", "T2.2", "T2.3", "T2.4"]


def test_every_rule_has_a_sentence() -> None:
    """The map names exactly the rules of RULES-SPEC and RULES-TABLE, each with a sentence."""
    rules = read_rules(SPEC) + read_rules(TABLE)
    missing = [r for r in rules if not SENTENCES.get(r)]
    unknown = sorted(set(SENTENCES) - set(rules))
    assert not missing, f"rules without a /rules sentence in SENTENCES: {missing}"
    assert not unknown, f"SENTENCES names rules that are in no spec: {unknown}"


def test_each_sentence_is_in_its_section() -> None:
    for rule, sentences in SENTENCES.items():
        for sentence in sentences:
            assert sentence.section in rules_text.SECTIONS, rule
            assert message_of(sentence), rule


@pytest.mark.parametrize("lang", LANGUAGES)
def test_each_sentence_is_translated(lang: str) -> None:
    """In each catalog, the message of every rule's sentence is translated (not fuzzy, not
    empty, not the English), keeps the sentence's numbers, uses the rule's glossary terms,
    and is what /rules shows in that language."""
    entries = catalog(lang)
    t = translator(lang)
    bad: list[str] = []
    for rule, sentences in SENTENCES.items():
        for sentence in sentences:
            msgid = message_of(sentence)
            entry = entries.get(msgid)
            where = f"{rule} ({sentence.anchor!r})"
            if entry is None or entry.fuzzy or not entry.string:
                bad.append(f"{where}: no translation (missing, fuzzy or empty)")
                continue
            text = str(entry.string)
            if lang == DEFAULT:
                if text != msgid:
                    bad.append(f"{where}: the English catalog differs from the msgid")
                continue
            if text == msgid:
                bad.append(f"{where}: still the English text")
            if lang == "ja" and not _JAPANESE.search(text):
                bad.append(f"{where}: no Japanese")
            lost = numbers(sentence.anchor) - numbers(text)
            if lost:
                bad.append(f"{where}: the numbers {sorted(lost)} are missing")
            absent = [term for term in sentence.terms(lang) if term.lower() not in text.lower()]
            if absent:
                bad.append(f"{where}: the terms {absent} are missing")
            if text not in rules_text.section_text(t, sentence.section):
                bad.append(f"{where}: /rules {sentence.section!r} does not show the translation")
    assert not bad, f"{lang}:\n" + "\n".join(bad)


def test_the_check_catches_a_missing_rule_and_a_lost_sentence() -> None:
    """The map's checks fail on what they must: a rule not in the map, an anchor that is in
    no message, and the numbers lost in translation."""
    rules = [*read_rules(SPEC), "T9.1"]
    assert [r for r in rules if not SENTENCES.get(r)] == ["T9.1"]
    with pytest.raises(AssertionError, match="is in 0 messages"):
        message_of(S("veto", "a sentence that /rules does not have"))
    assert numbers("• 9 players: 15 policies (6 Liberal, 9 Fascist)") - numbers(
        "• 9人：法案は16枚"
    ) == {"6", "15"}
