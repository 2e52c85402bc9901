"""Names, escaping and the small pieces every screen uses.

Names are escaped and wrapped in a Unicode isolate so HTML or right-to-left marks in a name
cannot change the rest of the message.
"""

from __future__ import annotations

from collections.abc import Sequence

from babel.lists import format_list
from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from shbot.engine import FASCIST, HITLER, LIBERAL
from shbot.i18n import LANGUAGE_NAMES, LANGUAGES, Translator, esc
from shbot.table.model import FSI, PDI

from .. import callbacks as cb

MAX_TEXT = 4096
MAX_BUTTON_NAME = 24
POLICY_ICON = {LIBERAL: "🔵", FASCIST: "🔴"}
POWER_ICON = {"investigate": "🔍", "special_election": "🗳", "peek": "👁", "execution": "💀"}


def name(names: Sequence[str], seat: int | None) -> str:
    """A player's name for HTML text: escaped, isolated, bold."""
    if seat is None or seat < 0:
        return "—"
    return f"{FSI}<b>{esc(names[seat])}</b>{PDI}"


def light_name(names: Sequence[str], seat: int) -> str:
    """A name in a list on one line: escaped and isolated like every name, not bold."""
    return f"{FSI}{esc(names[seat])}{PDI}"


def isolated(raw: str) -> str:
    """A user-controlled name for HTML text, escaped and isolated against bidi reordering."""
    return f"{FSI}{esc(raw)}{PDI}"


def button_name(names: Sequence[str], seat: int) -> str:
    raw = names[seat]
    if len(raw) > MAX_BUTTON_NAME:
        raw = raw[: MAX_BUTTON_NAME - 1] + "…"
    return f"{FSI}{raw}{PDI}"


def name_list(t: Translator, names: Sequence[str], seats: Sequence[int]) -> str:
    if not seats:
        return t._("nobody")
    return t._(", ").join(name(names, s) for s in seats)


def series(t: Translator, items: Sequence[str]) -> str:
    """Items inside a sentence, as the reader's language writes a list ("A, B and C",
    « A, B et C », 「A、B、C」: CLDR); the pseudo-locale keeps the translated separator."""
    if t.locale not in LANGUAGES:
        return t._(", ").join(items)
    return format_list(list(items), locale=t.locale)


def on_one_line(t: Translator, parts: Sequence[str]) -> str:
    """Items side by side on one line ("🔍 Investigate Loyalty · 👁 Policy Peek"), with the
    reader's language's separator."""
    # Translators: the separator between items side by side on one line, as in "🔍 Investigate
    # Loyalty · 👁 Policy Peek" or "🗳 2/5: ☑️ Léa · ⏳ Marc" (spaces included).
    return t.pgettext("separator", " · ").join(parts)


def sentences(t: Translator, lines: list[str]) -> str:
    """Sentences in a row on one line (the recap), joined as the reader's language does:
    Japanese puts no space after 。."""
    text = lines[0] if lines else ""
    for line in lines[1:]:
        # Translators: two sentences in a row in the recap line: "📜 A Fascist policy was
        # enacted. 💀 Léa executed Marc." Japanese: no space after 。.
        text = t.pgettext("sentences in a row", "{sentence} {next}", sentence=text, next=line)
    return text


def name_series(t: Translator, names: Sequence[str], seats: Sequence[int]) -> str:
    """Players named inside a sentence ("Léa and Marc did not vote")."""
    if not seats:
        return t._("nobody")
    return series(t, [name(names, s) for s in seats])


def plain_name(names: Sequence[str], seat: object) -> str:
    """A name for plain text (alerts): no HTML, isolated against bidi reordering."""
    if not isinstance(seat, int) or not 0 <= seat < len(names):
        return "?"
    return f"{FSI}{names[seat]}{PDI}"


def policy(t: Translator, p: str) -> str:
    return t._("🔵 Liberal policy") if p == LIBERAL else t._("🔴 Fascist policy")


def policy_short(t: Translator, p: str) -> str:
    return t._("🔵 Liberal") if p == LIBERAL else t._("🔴 Fascist")


def party_short(t: Translator, p: str) -> str:
    """A player's party, where a claim or a result names it: its own words, since other
    languages do not label a party as they label a policy (French: loi libérale, parti
    libéral)."""
    return t.pgettext("party", "🔵 Liberal") if p == LIBERAL else t.pgettext("party", "🔴 Fascist")


def role_name(t: Translator, role: str) -> str:
    if role == LIBERAL:
        return t._("Liberal")
    if role == HITLER:
        return t._("Hitler")
    return t._("Fascist")


def party_name(t: Translator, party: str) -> str:
    return t._("Liberal party") if party == LIBERAL else t._("Fascist party")


def power_name(t: Translator, power: str) -> str:
    return {
        "investigate": t._("Investigate Loyalty"),
        "special_election": t._("Special Election"),
        "peek": t._("Policy Peek"),
        "execution": t._("Execution"),
    }[power]


def fit(text: str) -> str:
    """Telegram refuses texts over 4,096 characters; cut at a line break, never mid-tag."""
    if len(text) <= MAX_TEXT:
        return text
    cut = text.rfind("\n", 0, MAX_TEXT - 2)
    return text[: cut if cut > 0 else MAX_TEXT - 2] + "\n…"


def markup(rows: list[list[InlineKeyboardButton]]) -> InlineKeyboardMarkup | None:
    rows = [r for r in rows if r]
    return InlineKeyboardMarkup(rows) if rows else None


def chunk(buttons: list[InlineKeyboardButton], size: int) -> list[list[InlineKeyboardButton]]:
    return [buttons[i : i + size] for i in range(0, len(buttons), size)]


def language_keyboard(scope: str) -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup(
        [
            [
                InlineKeyboardButton(
                    LANGUAGE_NAMES[code], callback_data=cb.free_data(cb.LANG, f"{scope}{code}")
                )
                for code in LANGUAGES
            ]
        ]
    )
