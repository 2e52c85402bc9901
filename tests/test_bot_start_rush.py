"""Three groups start their games at the same moment, under Telegram's real limits.

The bot runs with PTB's rate limiter and the outbox's pacer on, on a virtual clock
(looptime), over the fake Bot API. Three lobbies are filled (English, 5 players; Japanese, 7;
French, 9 with names that break unescaped HTML), then the three hosts press Start at the
same instant while other people press Start and Join again during the start, as impatient
players do. What players must feel:

* every press is answered, none later than 1 s after it was made (the fake stamps each
  answer with the loop's clock), at the start and through the whole games;
* Round 1 (the message with the nomination buttons) reaches each group within 2 s of Start;
* the bot stays within Telegram's limits: at most 20 calls shown in a group in any 60 s
  and at most 30 calls to chats in any second (callback answers are counted apart);
* once the games are played to their end, every message shows its last state: no button
  of the finished game is left anywhere, the board and the last round message show the
  final table, the lobby shows that the game started.
"""

from __future__ import annotations

import asyncio
import random
import re
from collections.abc import Awaitable
from dataclasses import replace

import pytest

from shbot.bot import callbacks as cb
from shbot.bot import render as r
from shbot.devtools.fake_telegram import GROUP_LIMITED_METHODS
from shbot.i18n import Translator, translator
from shbot.storage import Store
from tests.botplay import (
    Bot,
    Hook,
    Played,
    RandomPlay,
    Turn,
    board_shown,
    button_data,
    check_calls_valid,
    check_finished,
    check_game,
    group_calls,
    lobby_message,
    markup_buttons,
    play,
    running_bot,
    secret_hand_strings,
    split_at_game_over,
    stale_buttons,
)
from tests.fake_telegram import FakeChat, StoredMessage
from tests.harness import FakeUser, awkward_users, html_user, make_user, make_users

#: A press is answered within this many seconds (Telegram shows a spinner until then and
#: drops the answer as "query is too old" after about 15 s).
ANSWER_WITHIN = 1.0
#: Round 1 appears in the group within this many seconds of the Start press.
ROUND_ONE_WITHIN = 2.0
#: The instants after Start (seconds) at which the extra presses are made.
EXTRA_PRESSES_AT = (0.0, 0.05, 0.2, 0.5, 1.0, 2.0, 4.0)
#: How long a person takes between two presses (seconds, uniformly drawn): a human pace.
THINK = (0.5, 3.0)


def french_players() -> list[FakeUser]:
    """Nine French-speaking players, six of them with names hostile to HTML, bidi or UTF-16
    (the host among them: the group speaks like its first host). Not ten: a full table of
    ten starts by itself (issue 24), and this test presses Start."""
    hostile = [html_user(), *awkward_users(), html_user()]
    return [replace(u, language_code="fr") for u in hostile] + make_users(3, "fr")


async def fill_lobby(bot: Bot, users: list[FakeUser], rng: random.Random) -> FakeChat:
    """At a human pace: everybody opens the private chat, users[0] sends /newgame, the
    others press Join."""
    h = bot.h
    group = h.group(creator=users[0], members=users[1:])
    for user in users:
        await h.command(user, user, "/start", wait=False)
        await asyncio.sleep(rng.uniform(*THINK))
    await h.command(users[0], group, "/newgame")
    lobby = lobby_message(bot, group)
    join = button_data(lobby, cb.JOIN)
    for user in users[1:]:
        await asyncio.sleep(rng.uniform(*THINK))
        await h.press(user, lobby, data=join)
    return group


def thinking(seed: int) -> Hook:
    """A player's pause before each move."""
    rng = random.Random(seed)

    async def think(turn: Turn) -> None:
        await asyncio.sleep(rng.uniform(*THINK))

    return think


def check_last_states(bot: Bot, played: Played, t: Translator) -> None:
    """No live button of the finished game on any chat's newest message, and none but an
    unanswered claim prompt's on an older one (``stale_buttons``); board, last round and
    lobby messages show their final state."""
    group, users, table = played.group, played.users, played.table
    for chat_id in [group.id, *(u.id for u in users)]:
        live = stale_buttons(bot.fake, chat_id, table.gid)
        assert not live, f"buttons left in {chat_id}: {[(m.text, b) for m, b in live]}"
    game = table.game
    assert game is not None and game.is_over
    board = bot.fake.message(group.id, table.shown["board"])
    assert board.text == board_shown(t, table, board), "the board does not show the final table"
    last_round = bot.fake.message(group.id, table.shown[f"round:{game.round}"])
    assert last_round.text == r.round_text(t, table), "the last round message is stale"
    final_events = [r.event_line(t, kind, data, table.names()) for kind, data in table.round_log]
    shown = [line for line in final_events if line]
    assert shown and shown[-1] in last_round.text, "the round message lacks the last event"
    lobby = lobby_message_any(bot, group, table.gid)
    assert lobby.buttons() == [], "the lobby keeps its buttons"
    assert lobby.text == r.lobby_text(t, table, closed=r.lobby_closed_text(t, "started")), (
        "the lobby does not say the game started"
    )


#: Where a party's name is part of a public word: Japanese calls a Liberal policy
#: リベラル党法案 ("Liberal party bill"), which is no secret.
PUBLIC_PARTY_WORDS = {"ja": re.compile("(リベラル党|ファシスト党)(法案|の勝利)")}  # public words


def check_secrets(bot: Bot, played: Played, t: Translator) -> None:
    """botplay's secrecy check in any language: nothing in the group before the game-over
    message names a party or shows a hand (policy names aside)."""
    before, _ = split_at_game_over(group_calls(bot.fake, played.group.id), t)
    forbidden = [t._("Liberal party"), t._("Fascist party"), *secret_hand_strings(t)]
    public = PUBLIC_PARTY_WORDS.get(t.locale)
    for call in before:
        shown = [str(call.params.get("text", ""))]
        shown += [str(b.get("text", "")) for b in markup_buttons(call.params)]
        for text in shown:
            text = public.sub("", text) if public else text
            for secret in forbidden:
                assert secret not in text, f"{secret!r} shown in the group: {text!r}"


def lobby_message_any(bot: Bot, group: FakeChat, gid: str) -> StoredMessage:
    """The group's lobby message of game ``gid`` (found by its first version's buttons)."""
    for call in bot.fake.calls_to("sendMessage", group.id):
        for button in markup_buttons(call.params):
            data = button.get("callback_data", "")
            if data.startswith(f"{gid}:0:j"):
                return bot.fake.message(group.id, int(call.result["message_id"]))
    raise LookupError(f"no lobby message of game {gid} in {group.id}")


@pytest.mark.looptime
async def test_three_groups_start_at_once_and_nobody_waits(store: Store) -> None:
    async with running_bot(store, limiter=True) as bot:
        loop = asyncio.get_running_loop()
        pressed: dict[str, float] = {}
        register = bot.fake.register_callback_query

        def stamp(query_id: str, user_id: int) -> None:
            pressed[query_id] = loop.time()
            register(query_id, user_id)

        bot.fake.register_callback_query = stamp  # type: ignore[method-assign]

        tables = {"en": make_users(5), "ja": make_users(7, "ja"), "fr": french_players()}
        filled = await asyncio.gather(
            *(fill_lobby(bot, users, random.Random(i)) for i, users in enumerate(tables.values()))
        )
        groups = dict(zip(tables, filled, strict=True))
        await bot.settle()
        await asyncio.sleep(2.0)  # the hosts look at the full lobbies
        lobbies = {lang: lobby_message(bot, g) for lang, g in groups.items()}
        bot.fix_seed(20240607)

        # ---- the rush: three Starts at the same instant, more presses while they start
        start_at = loop.time()
        presses: list[Awaitable[str]] = []
        outsiders = {lang: make_user("Late", language_code=lang) for lang in tables}
        for lang, users in tables.items():
            group, lobby = groups[lang], lobbies[lang]
            start, join = button_data(lobby, cb.START), button_data(lobby, cb.JOIN)
            presses.append(bot.h.press_raw(users[0], group.id, lobby.message_id, start))
            extra = [
                (users[1], start),  # not the host: refused (or "already started")
                (users[0], start),  # the host again
                (users[2], join),  # already in
                (outsiders[lang], join),  # too late
            ]
            for i, at in enumerate(EXTRA_PRESSES_AT):
                user, data = extra[i % len(extra)]
                presses.append(later(at, bot.h.press_raw(user, group.id, lobby.message_id, data)))
        rush = await asyncio.gather(*presses)
        await bot.settle()

        for lang, group in groups.items():
            table = await bot.table(group)
            assert table is not None and table.game is not None, f"the {lang} game did not start"
            round_one = first_round_message_time(bot, group, start_at)
            assert round_one - start_at <= ROUND_ONE_WITHIN, (
                f"Round 1 reached the {lang} group {round_one - start_at:.1f} s after Start"
            )
        late = [(q, answer_delay(bot, q, pressed)) for q in rush]
        assert all(d <= ANSWER_WITHIN for _, d in late), f"slow answers at the start: {late}"

        # ---- the games, played to their end (all three at once)
        seats = {lang: users for lang, users in tables.items()}
        played: list[Played] = await asyncio.gather(
            *(
                play(bot, groups[lang], seats[lang], RandomPlay(seed=i + 1), before=thinking(i))
                for i, lang in enumerate(tables)
            )
        )
        await bot.settle()

        # ---- what everybody saw
        assert not bot.fake.callback_queries, "presses never answered"
        delays = {a.query_id: answer_delay(bot, a.query_id, pressed) for a in bot.fake.answers}
        assert len(delays) == len(pressed), "every press is answered once"
        slowest = max(delays.values())
        assert slowest <= ANSWER_WITHIN, f"a press waited {slowest:.2f} s for its answer"
        for lang, group in groups.items():
            window = bot.fake.max_calls_in_window(group.id, 60, methods=GROUP_LIMITED_METHODS)
            assert window <= 20, f"{window} calls in 60 s in the {lang} group"
        overall = bot.fake.max_calls_overall(1.0)
        assert overall <= 30, f"{overall} calls to chats in one second"
        assert not [c for c in bot.fake.calls if c.status == 429]
        for lang, result in zip(tables, played, strict=True):
            t: Translator = translator(lang)
            if lang == "en":
                await check_game(bot, result, t)  # private entitlements are checked in English
            else:
                await check_finished(bot, result, t)
                check_secrets(bot, result, t)
            check_last_states(bot, result, t)
        check_calls_valid(bot.fake)
        bot.h.assert_no_errors()


async def later(delay: float, press: Awaitable[str]) -> str:
    await asyncio.sleep(delay)
    return await press


def answer_delay(bot: Bot, query_id: str, pressed: dict[str, float]) -> float:
    return bot.fake.answer_for(query_id).time - pressed[query_id]


def first_round_message_time(bot: Bot, group: FakeChat, since: float) -> float:
    """When the first message with nomination buttons reached the group after ``since``."""
    for call in bot.fake.calls_to("sendMessage", group.id):
        if call.time < since:
            continue
        for button in markup_buttons(call.params):
            press = cb.parse(button.get("callback_data"))
            if isinstance(press, cb.GamePress) and press.op == cb.NOMINATE:
                return call.time
    raise AssertionError(f"no Round 1 message in {group.id}")
