"""No user-visible text bypasses the catalogs: whole games in the pseudo-locale.

The group and every player are put into the pseudo-locale (``shbot.i18n.PSEUDO``), which
wraps every translated message in ⟦…⟧ and accents its letters. Users cannot choose it
(``/lang qps`` is refused, as any unknown code), so the test writes it into the stored
group and user settings, exactly where ``/lang`` would have put a real language: the
production language resolution runs unchanged.

Then everything the bot sent (texts, edits, button labels, callback toasts and alerts) must
be made only of pseudo-locale output, apart from what is not language: user names and the
chat title, ``/commands``, numbers and the names of the languages in the language picker.
Two independent checks: :func:`shbot.i18n.pseudo_leaks` finds text outside every ⟦…⟧, and
no unaccented letter that the pseudo-locale would have accented may remain anywhere (that
also catches raw English passed *into* a translated message as a placeholder value).
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Sequence

import pytest

from shbot.bot import app as bot_app
from shbot.bot import callbacks as cb
from shbot.engine import Phase
from shbot.i18n import LANGUAGE_NAMES, PSEUDO, pseudo_leaks, translator
from shbot.storage import Store
from tests.botplay import (
    Bot,
    Plan,
    Turn,
    check_calls_valid,
    find_seed,
    open_game,
    play,
    running_bot,
)
from tests.fake_telegram import FakeBotAPI, FakeChat
from tests.harness import FakeUser, make_user, make_users, refused
from tests.langcheck import bot_texts, strip_raw

# The letters the pseudo-locale replaces (shbot.i18n._ACCENTS): none may survive.
_UNACCENTED = re.compile(r"[abcdeghiklnorstuyzABCDEGHIKLNORSTUYZ]+")
# Language codes are shown as typed: "en (English), ja (日本語), fr (Français)".
CODES = [f"{code} ({name})" for code, name in LANGUAGE_NAMES.items()]


@pytest.fixture
async def bot(store: Store) -> AsyncIterator[Bot]:
    """The bot as ``run_polling`` starts it: ``post_init`` learns its username (so the
    deep-link buttons exist) and sets the localized menus."""
    async with running_bot(store) as running:
        await running.app.post_init(running.app)
        yield running


def untranslated(text: str, raw: Sequence[str]) -> list[str]:
    """The parts of a bot text that did not come out of the pseudo-locale."""
    rest = strip_raw(text, [*raw, *CODES])
    leaks = [part for part in pseudo_leaks(rest) if any(c.isalpha() for c in part)]
    return leaks + _UNACCENTED.findall(rest)


def check_all_pseudo(fake: FakeBotAPI, raw: Sequence[str]) -> int:
    """Every text the bot sent is pseudo-locale output; returns how many were checked."""
    texts = bot_texts(fake)
    bad = [(s.where, s.text, leaks) for s in texts if (leaks := untranslated(s.text, raw))]
    assert not bad, "texts that bypass the catalogs:\n" + "\n".join(
        f"  {where}: {leaks} in {text[:300]!r}" for where, text, leaks in bad[:20]
    )
    return len(texts)


async def into_pseudo(bot: Bot, group: FakeChat, users: Sequence[FakeUser]) -> None:
    """Store the pseudo-locale as the group's and the users' chosen language."""
    await bot.store.update_group(group.id, {"lang": PSEUDO})
    for user in users:
        await bot.store.update_user(user.id, {"lang": PSEUDO})


class Detours:
    """Before some moves, do what players also do: commands, wrong and stale presses."""

    def __init__(self, bot: Bot, group: FakeChat, users: Sequence[FakeUser]) -> None:
        self.bot, self.group, self.users = bot, group, list(users)
        self.done: set[str] = set()
        self.first_round_press: tuple[int, str] | None = None

    def other(self, user: FakeUser) -> FakeUser:
        return next(u for u in self.users if u.id != user.id)

    async def __call__(self, turn: Turn) -> None:
        bot, h, group = self.bot, self.bot.h, self.group
        phase = turn.phase
        if phase is Phase.NOMINATE and "nominate" not in self.done:
            self.done.add("nominate")
            other = self.other(turn.user)
            await h.command(other, group, "/board")
            await h.command(other, group, "/history")
            await h.command(other, group, "/help")
            await h.command(other, group, "/newgame")  # a game is already open
            await h.command(other, group, "/join")  # it has already started
            await h.command(other, group, "/lang")  # not an admin, mid-game
            await h.command(other, other, "/rules")
            rules = h.last(other)
            await h.press(other, rules, data=cb.free_data(cb.RULES, "powers"))
            await h.command(other, other, "/help")
            await h.command(other, other, "/newgame")  # works in a group only
            await h.command(other, other, "/frobnicate")
            board = bot.fake.message(group.id, turn.table.shown["board"])
            await h.press(turn.user, board, data=cb.game_data(turn.table.gid, 0, cb.MY_ROLE))
            data = cb.game_data(turn.table.gid, turn.table.step, *turn.options[0])
            await h.press_raw(other, group.id, turn.message.message_id, data)  # not their turn
            self.first_round_press = (turn.message.message_id, data)
            await bot.settle()
        elif phase in (Phase.PRESIDENT_DISCARD,) and "private" not in self.done:
            self.done.add("private")
            other = self.other(turn.user)
            own = h.private_messages(other)[0]
            data = cb.game_data(turn.table.gid, turn.table.step, *turn.options[0])
            await h.press_raw(other, other.id, own.message_id, data)  # not their turn
            assert self.first_round_press is not None
            await h.press_raw(turn.user, group.id, *self.first_round_press)  # stale button
            await bot.settle()


async def lobby_detours(bot: Bot, group: FakeChat, users: Sequence[FakeUser]) -> FakeUser:
    """Lobby refusals and the cancel dialogue after the game; returns the unready user."""
    h = bot.h
    host, a, b, c = users[:4]
    await h.command(a, group, "/join")  # no open game
    await h.command(a, group, "/cancelgame")  # nothing to cancel
    await h.command(a, group, "/board")  # nothing to show
    await h.command(host, group, "/newgame")
    await bot.settle()
    lobby = h.last(group)
    table = await bot.table(group)
    assert table is not None
    join, leave, start, yes, no = (
        cb.game_data(table.gid, 0, op)
        for op in (cb.JOIN, cb.LEAVE, cb.START, cb.CANCEL_YES, cb.CANCEL_NO)
    )
    await h.press(a, lobby, data=join)
    await h.press(a, lobby, data=join)  # already in
    await h.press(b, lobby, data=leave)  # not in
    await h.press(a, lobby, data=leave)
    await h.command(host, group, "/startgame")  # too few players (ngettext); no Start button
    stranger = make_user("Stranger", language_code="en")
    await into_pseudo(bot, group, [stranger])
    for user in (a, b, c):
        await h.press(user, lobby, data=join)
    await h.press(stranger, lobby, data=join)  # no private chat yet: answered with a link
    await bot.settle()
    await h.press(host, lobby, data=start)  # waiting for the stranger
    await h.press(a, lobby, data=start)  # not the host
    await h.command(a, group, "/cancelgame")  # not the host
    await h.command(host, group, "/cancelgame")
    await bot.settle()
    await h.press(host, h.last(group), data=no)
    await h.command(host, group, "/cancelgame")
    await bot.settle()
    await h.press(host, h.last(group), data=yes)
    await h.command(host, group, "/lang qps")  # users cannot pick the pseudo-locale
    await h.command(stranger, stranger, "/start")
    await h.command(stranger, stranger, "/lang")
    await bot.settle()
    return stranger


PLANS = {
    # Policy Peek, Execution (Hitler executed): the 5-6 player powers.
    5: (["F", "L", "x", "F", "F", "F"], ["H"], 3),
    # Investigate Loyalty and Special Election, five Liberal policies.
    7: (["L", "F", "F", "L", "F", "L", "L", "L"], [], 2),
    # Everything else: two investigations, special election, two executions, chaos, an
    # accepted and a refused veto.
    10: (["F", "L", "F", "F", "F", "x", "x", "cL", "L", "F", "V", "RL", "L"], [], 9),
}


@pytest.mark.parametrize("players", sorted(PLANS))
async def test_every_text_of_a_game_goes_through_the_catalogs(bot: Bot, players: int) -> None:
    tokens, targets, hitler = PLANS[players]
    users = make_users(players)
    group = bot.h.group(creator=users[0], members=users[1:])
    await into_pseudo(bot, group, users)
    seed = find_seed(players, hitler=hitler, first_president=0, start=1)
    await open_game(bot, users, group=group, seed=seed)
    detours = Detours(bot, group, users)
    played = await play(bot, group, users, Plan(tokens, targets), before=detours)
    assert played.game.is_over and detours.done == {"nominate", "private"}
    await bot.h.command(users[1], group, "/history")  # the finished game
    stranger = await lobby_detours(bot, group, users)
    assert (await bot.store.get_group(group.id))["lang"] == PSEUDO, "/lang qps changed it"
    await bot.settle()
    raw = [u.full_name for u in [*users, stranger]] + [group.title or ""]
    checked = check_all_pseudo(bot.fake, raw)
    assert checked > 50 * players // 5
    alerts = [a for a in bot.fake.answers if refused(a)]
    assert len(alerts) >= 6, "the detours should have produced refusal alerts"
    check_calls_valid(bot.fake)
    bot.h.assert_no_errors()


def test_menus_and_descriptions_go_through_the_catalogs() -> None:
    t = translator(PSEUDO)
    texts = [bot_app.description(t), bot_app.short_description(t)]
    texts += [c.description for c in [*bot_app.group_commands(t), *bot_app.private_commands(t)]]
    for text in texts:
        assert untranslated(text, []) == [], text


def test_the_check_catches_raw_text() -> None:
    t = translator(PSEUDO)
    ok = t._("{president} nominated {chancellor}.", president="⁨<b>Ann</b>⁩", chancellor="Bo")
    assert untranslated(ok, ["Bo"]) == []
    assert untranslated(f"1. ⁨Ann⁩ {t._('Liberal')}", []) == []
    assert untranslated(f"Round 3 {t._('Liberal')}", []) != []
    assert untranslated(t._("{x} was enacted", x="Liberal policy"), []) != []
    assert untranslated("/newgame", []) == []
