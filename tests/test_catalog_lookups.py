"""Every message the running bot looks up is in every catalog, translated.

tests/test_catalogs.py compares the catalogs with what babel extracts from the code; that
cannot see a message whose text reaches the translator through a variable without an
``N_`` mark (it would silently show in English). Here the translator itself records every
msgid it is asked for while whole games are played (with the detours of
tests/test_bot_pseudo_locale.py: commands, refusals, stale presses, the lobby and cancel
dialogues), and while /rules, /help, the menus and the language picker are rendered; each
recorded message must be in the en, ja and fr catalogs, not fuzzy, not empty.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import pytest
from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po

from shbot import rules_text
from shbot.bot import app as bot_app
from shbot.bot.handlers import help_text
from shbot.i18n import (
    DOMAIN,
    LANGUAGES,
    PSEUDO,
    Translator,
    language_prompt_text,
    locales_dir,
    translator,
)
from shbot.storage import Store
from tests.botplay import Bot, Plan, find_seed, open_game, play, running_bot
from tests.harness import make_users
from tests.test_bot_pseudo_locale import PLANS, Detours, into_pseudo, lobby_detours

Key = tuple[str, str | None]  # (msgid, or the singular of a plural; context)


@pytest.fixture
def lookups(monkeypatch: pytest.MonkeyPatch) -> Iterator[set[Key]]:
    """Every (msgid, context) any translator is asked for while the test runs."""
    seen: set[Key] = set()

    def recording(name: str, context_first: bool) -> Callable[..., str]:
        original = getattr(Translator, name)

        def lookup(self: Translator, *args: Any, **kwargs: Any) -> str:
            seen.add((args[1], args[0]) if context_first else (args[0], None))
            return str(original(self, *args, **kwargs))

        return lookup

    for name, context_first in (
        ("gettext", False),
        ("ngettext", False),
        ("pgettext", True),
        ("npgettext", True),
    ):
        monkeypatch.setattr(Translator, name, recording(name, context_first))
    monkeypatch.setattr(Translator, "_", Translator.gettext)
    yield seen


@pytest.fixture
async def bot(store: Store) -> AsyncIterator[Bot]:
    async with running_bot(store) as running:
        await running.app.post_init(running.app)
        yield running


def catalogs() -> dict[str, Catalog]:
    out = {}
    for lang in LANGUAGES:
        with (locales_dir() / lang / "LC_MESSAGES" / f"{DOMAIN}.po").open("rb") as f:
            out[lang] = read_po(f)
    return out


def not_translated(seen: set[Key]) -> list[str]:
    """The looked-up messages some catalog lacks, or has fuzzy or empty."""
    bad = []
    for lang, catalog in catalogs().items():
        for msgid, context in sorted(seen, key=repr):
            entry = catalog.get(msgid, context=context)
            strings = entry.string if entry is not None else ""
            forms = list(strings) if isinstance(strings, list | tuple) else [strings]
            if entry is None or entry.fuzzy or not all(forms):
                bad.append(f"{lang}: {msgid[:70]!r} (context {context!r})")
    return bad


def render_the_rest() -> None:
    """/rules, /help, the menus, descriptions and the language picker, in every language."""
    for lang in (*LANGUAGES, PSEUDO):
        t = translator(lang)
        rules_text.rules_intro(t)
        for key in rules_text.SECTIONS:
            rules_text.render_section(t, key)
        help_text(t)
        bot_app.description(t)
        bot_app.short_description(t)
        bot_app.group_commands(t)
        bot_app.private_commands(t)
        language_prompt_text(t)


async def test_every_message_looked_up_in_games_is_in_every_catalog(
    bot: Bot, lookups: set[Key]
) -> None:
    for players in sorted(PLANS):
        tokens, targets, hitler = PLANS[players]
        users = make_users(players)
        group = bot.h.group(creator=users[0], members=users[1:])
        await into_pseudo(bot, group, users)
        seed = find_seed(players, hitler=hitler, first_president=0, start=1)
        await open_game(bot, users, group=group, seed=seed)
        played = await play(
            bot, group, users, Plan(tokens, targets), before=Detours(bot, group, users)
        )
        assert played.game.is_over
        await bot.h.command(users[1], group, "/history")
        await lobby_detours(bot, group, users)
        await bot.settle()
    render_the_rest()
    assert len(lookups) > 150, f"too few messages looked up to mean anything: {len(lookups)}"
    bad = not_translated(lookups)
    assert not bad, "looked up by the bot, not translated:\n" + "\n".join(bad)
    bot.h.assert_no_errors()


def test_the_recorder_sees_messages_the_extraction_cannot(lookups: set[Key]) -> None:
    """A message built at run time is recorded, and reported when no catalog has it."""
    t = translator("ja")
    built = "".join(["Not a ", "catalog message"])
    assert t._(built) == built
    t.pgettext("ballot button", "Ja!")
    t.ngettext("{n} vote", "{n} votes", 2)
    assert {(built, None), ("Ja!", "ballot button"), ("{n} vote", None)} <= lookups
    assert not_translated({(built, None)}) == [
        f"{lang}: 'Not a catalog message' (context None)" for lang in LANGUAGES
    ]
