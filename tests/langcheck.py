"""Which language is a text in? Judged against the catalogs, not against a dictionary.

A text is *in language L* when every word it contains could have come from L's catalog:
each Latin-script word occurs in some translation of ``locales/L/LC_MESSAGES/shbot.po``
(English: the msgids), and, for English and French, no Japanese character appears; a
Japanese text must contain Japanese characters. A message that fell back to English
because its ja/fr entry is missing or fuzzy therefore fails (``nominated`` is in no
Japanese or French translation), and so does a French text sent to an English chat.

What is not language (user names, chat titles, ``/commands``, HTML markup, the names of the
languages in the language picker) is removed before judging; callers pass the raw strings
they put into the game (user names, titles) as ``raw``.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from pathlib import Path

from babel.messages.pofile import read_po

from shbot.bot.model import FSI, PDI
from shbot.i18n import DOMAIN, LANGUAGE_NAMES, LANGUAGES, locales_dir
from tests.fake_telegram import FakeBotAPI

# Hiragana, katakana (full and half width), CJK ideographs and the Japanese marks.
_JAPANESE = re.compile(r"[\u3040-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uff66-\uff9f々〆]")
_WORD = re.compile(r"[^\W\d_]+")
_PLACEHOLDER = re.compile(r"\{[^{}]*\}")
_MARKUP = re.compile(r"<[^<>]*>|&#?\w+;")
_COMMAND = re.compile(r"/[A-Za-z0-9_]+(?:@\w+)?")
_ISOLATED = re.compile(f"{FSI}[^{PDI}]*{PDI}")  # a name as the bot shows it


def latin_words(text: str) -> set[str]:
    """The lower-cased words of ``text`` that are not Japanese."""
    return {w.lower() for w in _WORD.findall(_JAPANESE.sub(" ", text))}


def has_japanese(text: str) -> bool:
    return _JAPANESE.search(text) is not None


@functools.cache
def _vocabulary(lang: str, directory: Path) -> frozenset[str]:
    with (directory / lang / "LC_MESSAGES" / f"{DOMAIN}.po").open("rb") as f:
        catalog = read_po(f)
    words: set[str] = set()
    for message in catalog:
        if not message.id or message.fuzzy:  # fuzzy entries are not used (English shows)
            continue
        strings = message.string if isinstance(message.string, list | tuple) else [message.string]
        for string in strings:
            if string:
                words |= latin_words(_PLACEHOLDER.sub(" ", _MARKUP.sub(" ", string)))
    return frozenset(words)


def vocabulary(lang: str) -> frozenset[str]:
    """Every Latin-script word of the translations of ``lang``'s catalog (lower case)."""
    return _vocabulary(lang, locales_dir())


def strip_raw(text: str, raw: Iterable[str] = ()) -> str:
    """``text`` without what is not language: names, titles, commands, markup, language names."""
    text = _ISOLATED.sub(" ", text)
    for part in sorted({*raw, *LANGUAGE_NAMES.values()}, key=len, reverse=True):
        if part:
            text = text.replace(part, " ")
    return _MARKUP.sub(" ", _COMMAND.sub(" ", text))


def language_problems(text: str, lang: str, raw: Iterable[str] = ()) -> list[str]:
    """Why ``text`` is not (entirely) in ``lang``; empty when it is."""
    rest = strip_raw(text, raw)
    problems = []
    foreign = sorted(latin_words(rest) - vocabulary(lang))
    if foreign:
        problems.append(f"words from no {lang} translation: {foreign}")
    if lang == "ja":
        if _WORD.search(rest) and not has_japanese(rest):
            problems.append("no Japanese")
    elif has_japanese(rest):
        problems.append("Japanese characters")
    else:
        # Long enough to tell: at least one word only this language's catalog uses.
        words = latin_words(rest)
        others = set().union(*(vocabulary(o) for o in LANGUAGES if o not in (lang, "ja")))
        if len(words) >= 4 and not words - others:
            problems.append(f"no word that only {lang} uses among {sorted(words)}")
    return problems


def assert_language(text: str, lang: str, raw: Iterable[str] = (), where: str = "") -> None:
    problems = language_problems(text, lang, raw)
    assert not problems, f"not {lang} {where}: {problems} in {text!r}"


def bot_texts(fake: FakeBotAPI) -> list[tuple[str, str]]:
    """Everything users could read that the bot sent, as (where, text): message texts and
    edits, inline button labels, callback query toasts and alerts. Failed calls count too."""
    out: list[tuple[str, str]] = []
    for call in fake.calls:
        method = call.method.lower()
        where = f"{call.method} to {call.chat_id}"
        if method in ("sendmessage", "editmessagetext") and isinstance(
            call.params.get("text"), str
        ):
            out.append((where, call.params["text"]))
        if method in ("sendmessage", "editmessagetext", "editmessagereplymarkup"):
            markup = call.params.get("reply_markup") or {}
            for row in markup.get("inline_keyboard", []):
                out += [(f"{where} (button)", str(b.get("text", ""))) for b in row]
        if method == "answercallbackquery" and call.params.get("text"):
            out.append((f"answer to {call.params.get('callback_query_id')}", call.params["text"]))
    return out
