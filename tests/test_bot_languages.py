"""English, Japanese and French through the real bot: who reads which language, and when.

The language of every text is judged against the catalogs (tests/langcheck.py): a text is
in Japanese when it has Japanese characters and every Latin word in it occurs in some
Japanese translation, and likewise for English and French. A message whose ja or fr entry
is missing falls back to English and fails these tests, as does any text rendered with
the wrong chat's translator.
"""

from __future__ import annotations

import asyncio
import itertools
import json
from collections.abc import AsyncIterator, Sequence

import pytest

from shbot import rules_text
from shbot.bot import app as bot_app
from shbot.bot import callbacks as cb
from shbot.bot import render as r
from shbot.bot.delivery import media
from shbot.bot.handlers import common, help_text
from shbot.engine import Phase
from shbot.i18n import (
    LANGUAGE_NAMES,
    LANGUAGES,
    Translator,
    language_changed_text,
    language_prompt_text,
    translator,
)
from shbot.storage import Store
from tests.botplay import (
    Bot,
    Plan,
    Played,
    Turn,
    check_calls_valid,
    check_finished,
    find_seed,
    open_game,
    play,
    play_planned,
    running_bot,
)
from tests.fake_telegram import FakeBotAPI, FakeChat
from tests.harness import FakeUser, make_user
from tests.langcheck import (
    assert_language,
    bot_texts,
    has_japanese,
    language_problems,
    latin_words,
)

EN, JA, FR = (translator(code) for code in LANGUAGES)
# Telegram app languages and what they mean for us (language_code of the User object).
TELEGRAM = {"en": "en-GB", "ja": "ja", "fr": "fr-CA"}


@pytest.fixture
async def bot(store: Store) -> AsyncIterator[Bot]:
    """The bot as ``run_polling`` starts it: ``post_init`` learns its username (so the
    deep-link buttons exist) and sets the localized menus."""
    async with running_bot(store) as running:
        await running.app.post_init(running.app)
        yield running


def user(name: str, code: str | None) -> FakeUser:
    return make_user(name, username=name.lower(), language_code=code)


def check_chat_languages(
    fake: FakeBotAPI,
    chats: dict[int, str],
    raw: Sequence[str],
    calls: slice = slice(None),
    answers: slice = slice(None),
) -> int:
    """Every text shown in each chat of ``chats`` (and every callback answer to each user
    of ``chats``) is in that chat's language; returns how many texts were checked."""
    bad, checked = [], 0
    for s in bot_texts(fake, calls, answers):
        owner = s.chat_id if s.chat_id is not None else s.user_id
        if owner not in chats:
            continue
        checked += 1
        problems = language_problems(s.text, chats[owner], raw)
        if problems:
            bad.append(f"{s.where} (want {chats[owner]}): {problems} in {s.text[:200]!r}")
    assert not bad, f"{len(bad)} texts in the wrong language:\n" + "\n".join(bad[:15])
    return checked


async def check_end(bot: Bot, played: Played, t: Translator) -> None:
    """What every finished game satisfies (tests/botplay.py), for any group language.

    ``check_game``'s secrecy check is left out: it looks for the party names as substrings,
    and in Japanese リベラル党 (Liberal party) begins リベラル党法案 (Liberal policy)."""
    await check_finished(bot, played, t)
    check_calls_valid(bot.fake)
    bot.h.assert_no_errors()


# ------------------------------------------------------------------------ a game per language

# Two investigations, special election, two executions, chaos, an accepted and a refused
# veto, five Liberal policies: the game with the most kinds of text.
LONG_GAME = (["F", "L", "F", "F", "F", "x", "x", "cL", "L", "F", "V", "RL", "L"], 9)


def mixed_table(group_lang: str) -> tuple[list[FakeUser], dict[int, str], dict[int, str]]:
    """Ten players of mixed languages; the first creates the lobby in ``group_lang``.

    Returns the users, their expected languages and the /lang some send in private first."""
    specs: list[tuple[str, str | None, str | None, str]] = [
        ("Host", TELEGRAM[group_lang], None, group_lang),
        ("Aiko", "ja-JP", None, "ja"),
        ("Bastien", "fr-FR", None, "fr"),
        ("Carol", "en-US", None, "en"),
        ("Dieter", "de", None, "en"),  # not one of ours: English
        ("Eve", None, None, "en"),  # no language code at all
        ("Fumiko", "pt-BR", "ja", "ja"),  # chose Japanese in private
        ("Gaston", "ja", "fr", "fr"),  # chose French over a Japanese app
        ("Hélène", "fr-CA", None, "fr"),
        ("Ivan", "EN", "en", "en"),
    ]
    users, expected, chosen = [], {}, {}
    for name, code, choice, want in specs:
        u = user(name, code)
        users.append(u)
        expected[u.id] = want
        if choice:
            chosen[u.id] = choice
    return users, expected, chosen


@pytest.mark.parametrize("group_lang", LANGUAGES)
async def test_full_game_each_chat_in_its_language(bot: Bot, group_lang: str) -> None:
    users, expected, chosen = mixed_table(group_lang)
    group = bot.h.group(creator=users[0], members=users[1:])
    for u in users:
        if u.id in chosen:
            await bot.h.command(u, u, f"/lang {chosen[u.id]}")
            assert bot.h.last(u).text == language_changed_text(chosen[u.id])
    tokens, hitler = LONG_GAME
    played = await play_planned(bot, users, tokens, hitler=hitler, group=group)
    assert (await bot.store.get_group(group.id))["lang"] == group_lang, "the host's language"
    await check_end(bot, played, translator(group_lang))
    raw = [u.full_name for u in users] + [group.title or ""]
    chats = {group.id: group_lang, **expected}
    checked = check_chat_languages(bot.fake, chats, raw)
    assert checked > 300
    # Each player's secret role came exactly as rendered in their language.
    for seat, u in enumerate(played.users):
        texts = [m.history[0] if m.history else m.text for m in bot.fake.messages(u.id)]
        view = played.game.private_view(seat)
        want = r.role_text(translator(expected[u.id]), played.table, seat, view)
        assert want in texts, f"{u.full_name} did not get the role text in {expected[u.id]}"


# ------------------------------------------------------------------------------ /lang


async def test_lang_in_a_group_anyone_without_a_game_admins_only_during_one(bot: Bot) -> None:
    h = bot.h
    host, admin, member, *others = [user(f"P{i}", "en") for i in range(6)]
    group = h.group(creator=host, admins=[admin], members=[member, *others])
    await h.command(member, group, "/lang fr")  # no game: anyone
    assert h.last(group).text == language_changed_text("fr")
    assert (await bot.store.get_group(group.id))["lang"] == "fr"
    await h.command(host, group, "/newgame")
    await bot.settle()
    await h.command(member, group, "/lang ja")  # a lobby is not a running game
    await bot.settle()
    assert (await bot.store.get_group(group.id))["lang"] == "ja"
    table = await bot.table(group)
    assert table is not None
    lobby = bot.fake.message(group.id, table.shown["lobby"])
    assert lobby.text == r.lobby_text(JA, table), "the lobby is re-rendered in Japanese"
    await h.command(host, group, "/cancelgame")
    await bot.settle()
    await h.press(host, h.last(group), data=cb.game_data(table.gid, 0, cb.CANCEL_YES))
    await bot.settle()

    await open_game(bot, [host, admin, member, *others[:2]], group=group)
    refused = JA._("Only a group admin can change the language during a game.")
    for command in ("/lang en", "/lang"):
        await h.command(member, group, command)
        assert h.last(group).text == refused
    await h.command(admin, group, "/lang")
    picker = h.last(group)
    assert picker.text == language_prompt_text(JA)
    query = await h.press(member, picker, text="English")
    assert h.refused(query), "a member may not switch a running game"
    assert (await bot.store.get_group(group.id))["lang"] == "ja"
    await h.command(admin, group, "/lang fr")
    await bot.settle()
    assert h.last(group).text == language_changed_text("fr")
    assert (await bot.store.get_group(group.id))["lang"] == "fr"
    bot.h.assert_no_errors()


async def test_lang_alone_shows_each_language_in_itself(bot: Bot) -> None:
    h = bot.h
    alice = user("Alice", "ja")
    group = h.group(creator=alice)
    for chat, scope, t in ((group, "g", JA), (alice, "u", JA)):  # the group never chose
        await h.command(alice, chat, "/lang")
        picker = h.last(chat)
        assert picker.text == language_prompt_text(t)
        labels = [b["text"] for b in picker.buttons()]
        assert labels == ["English", "日本語", "Français"]
        data = [b["callback_data"] for b in picker.buttons()]
        assert data == [cb.free_data(cb.LANG, f"{scope}{code}") for code in LANGUAGES]
    # Pressing a button switches and says so in the new language.
    await h.press(alice, h.last(alice), text="Français")
    await bot.settle()
    assert h.last(alice).text == language_changed_text("fr")
    assert (await bot.store.get_user(alice.id))["lang"] == "fr"
    await h.press(alice, bot.fake.messages(group.id)[-1], text="日本語")
    await bot.settle()
    assert h.last(group).text == language_changed_text("ja")
    assert (await bot.store.get_group(group.id))["lang"] == "ja"
    h.assert_no_errors()


@pytest.mark.parametrize("where", ["group", "private"])
async def test_unknown_code_lists_the_codes_and_changes_nothing(bot: Bot, where: str) -> None:
    h = bot.h
    alice = user("Alice", "fr")
    group = h.group(creator=alice)
    chat: FakeChat | FakeUser = group if where == "group" else alice
    await h.command(alice, chat, "/lang fr")
    before = (await bot.store.get_group(group.id), await bot.store.get_user(alice.id))
    for code in ("xx", "qps", "english"):
        await h.command(alice, chat, f"/lang {code}")
        answer = h.last(chat).text
        assert answer.startswith(FR._("Unknown language. Available: {codes}.", codes="")[:12])
        for code_, name in LANGUAGE_NAMES.items():
            assert f"{code_} ({name})" in answer
    after = (await bot.store.get_group(group.id), await bot.store.get_user(alice.id))
    assert settings_only(after) == settings_only(before)
    h.assert_no_errors()


def settings_only(stored: tuple[dict[str, object], dict[str, object]]) -> tuple[object, object]:
    """The settings, without the group's reply times (the pacer's record of its own sends)."""
    group, user_settings = stored
    return {k: v for k, v in group.items() if k != "reply_calls"}, user_settings


async def test_lang_in_private_sets_only_the_users_language(bot: Bot) -> None:
    h = bot.h
    alice = user("Alice", "en")
    group = h.group(creator=alice)
    await h.command(alice, alice, "/lang ja")
    assert h.last(alice).text == language_changed_text("ja")
    await h.command(alice, alice, "/help")
    assert h.last(alice).text == help_text(JA)
    await h.command(alice, group, "/help")
    assert h.last(group).text == help_text(JA), "the group did not choose: hers"
    assert "lang" not in await bot.store.get_group(group.id)
    h.assert_no_errors()


@pytest.mark.parametrize(
    ("code", "lang"),
    [
        *[("fr-CA", "fr"), ("fr", "fr"), ("ja", "ja"), ("ja-JP", "ja"), ("en-US", "en")],
        *[("de", "en"), ("pt-BR", "en"), ("zz", "en"), (None, "en")],
    ],
)
async def test_telegram_language_is_the_default(bot: Bot, code: str | None, lang: str) -> None:
    alice = user("Alice", code)
    await bot.h.command(alice, alice, "/help")
    assert bot.h.last(alice).text == help_text(translator(lang))
    await bot.h.command(alice, alice, "/start")
    assert_language(bot.h.last(alice).text, lang, where=f"/start for {code}")


async def test_a_group_that_never_chose_speaks_like_its_first_host(bot: Bot) -> None:
    h = bot.h
    host, later = user("Host", "fr-CA"), user("Later", "ja")
    group = h.group(creator=later, members=[host])
    await h.command(later, group, "/help")
    assert h.last(group).text == help_text(JA), "no lobby yet: the sender's language"
    await h.command(host, group, "/newgame")
    await bot.settle()
    table = await bot.table(group)
    assert table is not None
    assert h.last(group).text == r.lobby_text(FR, table)
    assert (await bot.store.get_group(group.id))["lang"] == "fr"
    # Chosen once: the next host does not change it.
    await h.command(host, group, "/cancelgame")
    await bot.settle()
    await h.press(host, h.last(group), data=cb.game_data(table.gid, 0, cb.CANCEL_YES))
    await h.command(later, group, "/newgame")
    await bot.settle()
    assert (await bot.store.get_group(group.id))["lang"] == "fr"
    assert_language(h.last(group).text, "fr", [host.full_name, later.full_name])
    h.assert_no_errors()


# A new group's first commands, each answered in the sender's language until one is set.
FIRST_COMMANDS = (
    "/help", "/rules", "/lang", "/stats", "/nextgame", "/board", "/history", "/ping",
    "/join", "/leave", "/startgame", "/mylog", "/practice", "/settings", "/cancelgame",
)  # fmt: skip


@pytest.mark.parametrize(
    ("code", "lang"), [("fr-FR", "fr"), ("ja-JP", "ja"), ("en-US", "en"), ("de-DE", "en")]
)
async def test_a_new_group_answers_each_sender_in_their_language(
    bot: Bot, code: str, lang: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(common, "INFO_BURST", 100)  # all of them from one sender, at once
    h = bot.h
    sender, admin = user("Sender", code), user("Admin", "en")
    group = h.group(creator=admin, members=[sender])
    t = translator(lang)
    for command in FIRST_COMMANDS:
        before = len(bot.fake.messages(group.id))
        await h.command(sender, group, command)
        await bot.settle()
        replies = bot.fake.messages(group.id)[before:]
        assert replies, f"{command} got no answer in the group"
        for message in replies:
            assert_language(message.text, lang, [group.title or ""], where=command)
            for button in message.buttons():
                assert_language(button["text"], lang, where=f"{command} button")
    assert h.last(group).text != "", "the loop ran"
    await h.command(sender, group, "/help")
    assert h.last(group).text == help_text(t)
    await h.command(sender, group, "/rules")
    rules = h.last(group)
    assert rules.text.startswith(rules_text.rules_intro(t))
    await h.press(sender, rules, data=rules.buttons()[1]["callback_data"])  # a section
    await bot.settle()
    assert bot.fake.message(group.id, rules.message_id).text == rules_text.render_section(
        t, rules_text.SECTIONS[1]
    )
    assert "lang" not in await bot.store.get_group(group.id), "nothing was chosen for them"
    h.assert_no_errors()


async def test_a_new_group_answers_two_senders_each_in_theirs_until_an_admin_chooses(
    bot: Bot,
) -> None:
    h = bot.h
    aiko, bastien, admin = user("Aiko", "ja"), user("Bastien", "fr-FR"), user("Admin", "en")
    group = h.group(creator=admin, admins=[admin], members=[aiko, bastien])
    for sender, t in ((aiko, JA), (bastien, FR), (admin, EN), (aiko, JA)):
        await h.command(sender, group, "/help")
        assert h.last(group).text == help_text(t), sender.full_name
    await h.command(bastien, bastien, "/lang ja")  # his own choice counts, as in private
    await h.command(bastien, group, "/help")
    assert h.last(group).text == help_text(JA)
    await h.command(admin, group, "/lang fr")
    await bot.settle()
    assert (await bot.store.get_group(group.id))["lang"] == "fr"
    for sender in (aiko, bastien, admin):
        await h.command(sender, group, "/help")
        assert h.last(group).text == help_text(FR), "chosen: one language for all"
    await h.command(aiko, group, "/newgame")  # the chosen language, not the host's
    await bot.settle()
    table = await bot.table(group)
    assert table is not None
    assert h.last(group).text == r.lobby_text(FR, table)
    h.assert_no_errors()


# ------------------------------------------------------------------------------ mid-game


async def test_a_change_mid_game_applies_from_the_next_message(bot: Bot) -> None:
    h = bot.h
    users = [user(f"P{i}", "en") for i in range(5)]
    admin, member = users[0], users[2]
    group = h.group(creator=admin, members=users[1:])
    switched: dict[str, int] = {}

    async def switch(turn: Turn) -> None:
        if switched or turn.game.round < 2 or turn.phase is not Phase.NOMINATE:
            return
        await h.command(member, group, "/lang ja")  # refused: not an admin
        assert h.last(group).text == EN._(
            "Only a group admin can change the language during a game."
        )
        await h.command(admin, group, "/lang")
        picker = h.last(group)
        query = await h.press(member, picker, text="日本語")
        assert h.refused(query)
        assert (await bot.store.get_group(group.id))["lang"] == "en"
        await bot.settle()
        switched["call"] = len(bot.fake.calls)
        await h.press(admin, picker, text="日本語")
        await bot.settle()
        table = await bot.table(group)
        assert table is not None and table.game is not None
        # The board has scrolled away: it is not edited for the language alone (the
        # group's budget), but its next edit (at the latest, the end) is in Japanese.
        switched["board"] = table.shown["board"]
        current = bot.fake.message(group.id, table.shown[f"round:{table.game.round}"])
        assert current.text == r.round_text(JA, table)
        assert bot.fake.message(group.id, picker.message_id).text == language_changed_text("ja")

    seed = find_seed(5, hitler=3, first_president=0)
    await open_game(bot, users, group=group, seed=seed)
    played = await play(
        bot, group, users, Plan(["F", "L", "x", "F", "F", "F"], ["H"]), before=switch
    )
    assert switched, "the game ended before round 2"
    await check_end(bot, played, JA)
    final = played.table
    board = bot.fake.message(group.id, switched["board"])
    shown = media.board_caption if board.photo is not None else r.board_text
    assert board.text == shown(JA, final), "the board's last edit is in the new language"
    raw = [u.full_name for u in users] + [group.title or ""]
    cut = switched["call"]
    assert check_chat_languages(bot.fake, {group.id: "ja"}, raw, calls=slice(cut, None)) > 20
    assert check_chat_languages(bot.fake, {group.id: "en"}, raw, calls=slice(cut)) > 20
    # Private chats stay in each player's own language.
    check_chat_languages(bot.fake, {u.id: "en" for u in users}, raw)


# ------------------------------------------------------------------------------ two groups


async def test_two_groups_in_different_languages_playing_at_once_never_mix(bot: Bot) -> None:
    h = bot.h
    ja_players = [user(f"J{i}", code) for i, code in enumerate(["ja", "en", "fr", "en", "fr"])]
    fr_players = [
        user(f"F{i}", code) for i, code in enumerate(["fr", "ja", "en", "ja", "en", "ja", "en"])
    ]
    ja_group = h.group(creator=ja_players[0], members=ja_players[1:], title="グループ")
    fr_group = h.group(creator=fr_players[0], members=fr_players[1:], title="Groupe")
    await open_game(bot, ja_players, group=ja_group, seed=find_seed(5, hitler=3, first_president=0))
    await open_game(bot, fr_players, group=fr_group, seed=find_seed(7, hitler=2, first_president=0))
    first = len(bot.fake.calls)
    played_ja, played_fr = await asyncio.gather(
        play(bot, ja_group, ja_players, Plan(["F", "L", "x", "F", "F", "F"], ["H"]), fast=True),
        play(bot, fr_group, fr_players, Plan(["L", "F", "F", "L", "F", "L", "L", "L"]), fast=True),
    )
    # The two games really were interleaved, message by message.
    order = [c.chat_id for c in bot.fake.calls[first:] if c.chat_id in (ja_group.id, fr_group.id)]
    switches = sum(1 for a, b in itertools.pairwise(order) if a != b)
    assert switches >= 10, f"the games ran one after the other ({switches} switches)"
    await check_end(bot, played_ja, JA)
    await check_end(bot, played_fr, FR)
    chats = {ja_group.id: "ja", fr_group.id: "fr"}
    for u in [*ja_players, *fr_players]:
        chats[u.id] = u.language_code or "en"
    raw = [u.full_name for u in [*ja_players, *fr_players]] + ["グループ", "Groupe"]
    assert check_chat_languages(bot.fake, chats, raw) > 200


# ------------------------------------------------------------------------------ menus


async def test_command_menus_and_descriptions_in_every_language(bot: Bot) -> None:
    fake = bot.fake
    scopes = {
        "all_group_chats": bot_app.group_commands,
        "all_private_chats": bot_app.private_commands,
    }
    names: dict[str, list[str]] = {}
    for scope, commands in scopes.items():
        key = json.dumps({"type": scope}, sort_keys=True)
        for lang in LANGUAGES:
            code = "" if lang == "en" else lang  # English is also every other language's menu
            menu = fake.commands.get((key, code))
            assert menu is not None, f"no {scope} menu for {lang!r}"
            want = [c.to_dict() for c in commands(translator(lang))]
            assert menu == want
            names.setdefault(scope, [c["command"] for c in menu])
            assert [c["command"] for c in menu] == names[scope], "same commands in every language"
            for c in menu:
                assert 1 <= len(c["description"]) <= 256
                assert_language(c["description"], lang, where=f"{scope} /{c['command']}")
    assert "newgame" in names["all_group_chats"] and "start" in names["all_private_chats"]
    for lang in LANGUAGES:
        code = "" if lang == "en" else lang
        t = translator(lang)
        description = fake.descriptions[("description", code)]
        short = fake.descriptions[("short_description", code)]
        assert description == bot_app.description(t) and len(description) <= 512
        assert short == bot_app.short_description(t) and len(short) <= 120
        assert_language(description, lang, where="description")
        assert_language(short, lang, where="short description")


# ------------------------------------------------------------------------------ the checker


def catalog_texts(lang: str) -> list[str]:
    """Every message of the template in ``lang``, placeholders left empty."""
    from babel.messages.pofile import read_po

    from shbot.i18n import DOMAIN, locales_dir, placeholders

    with (locales_dir() / f"{DOMAIN}.pot").open("rb") as f:
        template = read_po(f)
    t, out = translator(lang), []
    for m in template:
        if not m.id:
            continue
        if isinstance(m.id, str):
            blanks = dict.fromkeys(placeholders(m.id), "")
            out.append(t.pgettext(m.context, m.id, **blanks) if m.context else t._(m.id, **blanks))
        else:
            blanks = dict.fromkeys(placeholders(m.id[1]) - {"n"}, "")
            out += [t.ngettext(m.id[0], m.id[1], n, **blanks) for n in (1, 2)]
    return out


def test_the_checker_recognizes_every_catalog_message() -> None:
    """Each message is recognized in its own language and, unless it is too short to tell
    (a name, punctuation, "Refuse"), in no other: so the bot tests above can fail."""
    for lang in LANGUAGES:
        for text in catalog_texts(lang):
            assert_language(text, lang, where="(its own catalog)")
            for other in LANGUAGES:
                if other != lang and not language_problems(text, other):
                    words = latin_words(text)
                    assert len(words) < 4 and not has_japanese(text), (lang, other, text)
