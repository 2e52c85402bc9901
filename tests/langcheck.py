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
from dataclasses import dataclass
from pathlib import Path

from babel.messages.pofile import read_po

from shbot.i18n import DOMAIN, LANGUAGE_NAMES, LANGUAGES, locales_dir
from shbot.table.model import FSI, PDI
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
                words |= latin_words(strip_raw(_PLACEHOLDER.sub(" ", string)))
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


@dataclass(frozen=True)
class Shown:
    """One text a user could read: in ``chat_id`` (a message or a button label) or as a
    callback answer to ``user_id``."""

    where: str
    text: str
    chat_id: int | None = None
    user_id: int | None = None


def bot_texts(
    fake: FakeBotAPI, calls: slice = slice(None), answers: slice = slice(None)
) -> list[Shown]:
    """Everything the bot showed: message texts and edits, inline button labels (failed
    calls included), callback query toasts and alerts (as Telegram accepted them); only
    the ``calls`` and ``answers`` slices of ``fake.calls`` and ``fake.answers``."""
    out: list[Shown] = []
    for call in fake.calls[calls]:
        method = call.method.lower()
        if method not in (
            "sendmessage",
            "editmessagetext",
            "editmessagereplymarkup",
            "sendphoto",  # the board picture's caption
            "editmessagemedia",
        ):
            continue
        chat_id = call.chat_id if isinstance(call.chat_id, int) else None
        where = f"{call.method} to {call.chat_id}"
        media = call.params.get("media")
        text = media.get("caption") if isinstance(media, dict) else None
        text = text or call.params.get("text") or call.params.get("caption")
        if isinstance(text, str):
            out.append(Shown(where, text, chat_id=chat_id))
        markup = call.params.get("reply_markup") or {}
        for row in markup.get("inline_keyboard", []):
            out += [Shown(f"{where} (button)", str(b.get("text", "")), chat_id) for b in row]
    for answer in fake.answers[answers]:
        if answer.text:
            out.append(Shown(f"answer to {answer.user_id}", answer.text, user_id=answer.user_id))
    return out
