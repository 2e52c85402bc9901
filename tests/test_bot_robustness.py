"""What the bot must survive and say clearly: every keyboard's callback data, awkward names,
players who block the bot, 429s, the informational commands, and one slow group next to
another (handlers never wait on a group's backlog).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import pytest

from shbot import rules_text
from shbot.bot import callbacks as cb
from shbot.devtools.fake_records import GROUP_LIMITED_METHODS
from shbot.engine import Phase
from shbot.storage import Store
from tests.botplay import (
    Bot,
    RandomPlay,
    check_calls_valid,
    check_finished,
    check_group_keeps_secrets,
    find_seed,
    markup_buttons,
    next_turn,
    open_game,
    play,
    play_planned,
    press_move,
    running_bot,
)
from tests.fake_telegram import FakeChat
from tests.harness import FakeUser, awkward_users, make_user, make_users
from tests.test_bot_games import SCENARIOS

LOBBY_OPS = frozenset({cb.JOIN, cb.LEAVE, cb.START, cb.MY_ROLE, cb.CANCEL_YES, cb.CANCEL_NO}) | {
    cb.ADD_BOT,
    cb.REMOVE_BOT,
    cb.TAKE_BACK,
}
# Buttons of step 0 that stay after the end: "What I know" in private, Rematch on the end card.
LOBBY_OPS |= {cb.MYLOG, cb.REMATCH}


@contextlib.asynccontextmanager
async def started_bot(store: Store, **kwargs: Any) -> AsyncIterator[Bot]:
    async with running_bot(store, **kwargs) as running:
        await running.app.post_init(running.app)  # as run_polling does: username, menus
        yield running


@pytest.fixture
async def bot(store: Store) -> AsyncIterator[Bot]:
    async with started_bot(store) as running:
        yield running


# ------------------------------------------------------------------------------ callback data


def check_keyboards(bot: Bot, gid_of_chat: dict[int, str], final_step: dict[str, int]) -> int:
    """Every keyboard the bot sent or edited in: data <= 64 bytes, parsable, naming the game
    of its chat and the step it belongs to (one step per keyboard, never going back)."""
    last_step: dict[int, int] = {}
    count = 0
    for call in bot.fake.calls:
        buttons = [b for b in markup_buttons(call.params) if "callback_data" in b]
        steps = set()
        for button in buttons:
            data = button["callback_data"]
            count += 1
            assert len(data.encode()) <= 64, f"callback data over 64 bytes: {data!r}"
            press = cb.parse(data)
            assert press is not None, f"unparsable callback data {data!r}"
            if isinstance(press, cb.FreePress):
                assert press.op in cb.FREE_OPS
                continue
            assert isinstance(call.chat_id, int)
            assert press.game_id == gid_of_chat[call.chat_id], f"{data!r} names another game"
            if press.op in LOBBY_OPS:
                assert press.step == 0, f"{data!r}: lobby and board buttons have step 0"
            else:
                assert 1 <= press.step <= final_step[press.game_id], data
                steps.add(press.step)
        assert len(steps) <= 1, f"one keyboard, several steps: {buttons}"
        if steps and isinstance(call.chat_id, int):
            step = steps.pop()
            assert step >= last_step.get(call.chat_id, 0), f"step went back: {buttons}"
            last_step[call.chat_id] = step
    return count


@pytest.mark.parametrize("name", list(SCENARIOS))
async def test_every_keyboard_names_its_game_and_step(bot: Bot, name: str) -> None:
    scenario = SCENARIOS[name]
    users = make_users(scenario.players)
    played = await play_planned(
        bot, users, scenario.tokens, targets=scenario.targets, hitler=scenario.hitler
    )
    gid = played.table.gid
    chats = {played.group.id: gid, **{u.id: gid for u in users}}
    count = check_keyboards(bot, chats, {gid: played.table.step})
    assert count > 20 * scenario.players // 5
    bot.h.assert_no_errors()


async def test_keyboards_outside_games_are_short_and_valid(bot: Bot) -> None:
    h = bot.h
    host, other = make_users(2)
    group = h.group(creator=host, members=[other])
    await h.command(host, group, "/newgame")
    await h.command(host, group, "/cancelgame")
    await h.command(host, group, "/rules")
    await h.command(host, group, "/lang")
    await h.command(other, other, "/lang")
    await h.command(other, other, "/rules")
    await bot.settle()
    record = await bot.record(group)
    assert record is not None
    count = check_keyboards(bot, {group.id: record.data["gid"]}, {})
    assert count >= 3 + 2 + 2 * len(rules_text.SECTIONS) + 2 * 3


# ------------------------------------------------------------------------------ names


async def test_awkward_names_render_escaped_everywhere(bot: Bot) -> None:
    """HTML in names, RTL overrides, emoji, 64-character names: every text stays valid
    HTML (the fake refuses what Telegram would) and shows the name as typed."""
    h = bot.h
    users = [*awkward_users(), make_user("Plain")]
    group = await open_game(bot, users, seed=find_seed(5, start=400))
    shown = {
        "<b>&amp; </i><script>",  # the HTML user, shown literally
        "evil שלום",  # bidi controls removed
        "👩‍👩‍👧‍👦 Fam 🇯🇵",
        "W" * 31 + "…",  # cut to 32 characters
        "Plain",
    }
    table = await bot.table(group)
    assert table is not None and table.game is not None
    lobby = bot.fake.message(group.id, table.shown["lobby"])
    board = bot.fake.message(group.id, table.shown["board"])
    for text in (lobby.plain_text, board.plain_text):
        for name in shown:
            assert f"\u2068{name}\u2069" in text, f"{name!r} not shown in {text!r}"
    for seat, user in enumerate(users):
        query = await h.press(user, board, text="🂠 My role")
        assert h.answer(query).show_alert, f"no role alert for seat {seat}"
    played = await play(bot, group, users, RandomPlay(5, fascist=True))
    await check_finished(bot, played)
    check_group_keeps_secrets(bot.fake, group.id)
    check_calls_valid(bot.fake)
    over = h.last(group).plain_text
    for name in shown:
        assert name in over, f"{name!r} missing from the game over"
    for call in bot.fake.calls:
        texts = [str(call.params.get("text", ""))]
        texts += [str(b.get("text", "")) for b in markup_buttons(call.params)]
        for text in texts:
            assert "\u202e" not in text and "\u200f" not in text, f"bidi control in {text!r}"
        for button in markup_buttons(call.params):
            assert len(button["text"]) <= 26, f"button label too long: {button['text']!r}"
    h.assert_no_errors()


# ------------------------------------------------------------------------------ blocked


async def test_a_player_who_blocks_the_bot_gets_the_prompt_after_unblocking(bot: Bot) -> None:
    h = bot.h
    users = make_users(5)
    by_id = {u.id: u for u in users}
    group = await open_game(bot, users, seed=find_seed(5, first_president=0))
    president = users[0]
    turn = await next_turn(bot, group, by_id)
    assert turn is not None
    await press_move(bot, turn, cb.NOMINATE, "1")
    h.block(president)  # before the hand is dealt to them
    for _ in users:
        turn = await next_turn(bot, group, by_id)
        assert turn is not None and turn.phase is Phase.VOTE
        await press_move(bot, turn, cb.VOTE, "1")
    await bot.settle()
    # The hand could not be delivered: the group is told, with a button to the private chat.
    warning = h.last(group)
    assert warning.plain_text.startswith("⚠️ I cannot write to \u2068Player1\u2069 in private.")
    assert len([m for m in bot.fake.messages(group.id) if m.text.startswith("⚠️")]) == 1
    assert warning.buttons()[0]["url"].startswith(f"https://t.me/{bot.fake.bot_username}?start=")
    table = await bot.table(group)
    assert table is not None and table.game is not None
    assert table.game.phase is Phase.PRESIDENT_DISCARD, "the game waits, it is not lost"
    assert not any(
        "callback_data" in b and not b["callback_data"].endswith(f":0:{cb.MYLOG}")
        for m in h.private_messages(president)
        for b in m.buttons()
    ), "the hand never reached the blocked President"
    # Unblocked: /start in private sends the pending prompt again, and it works.
    await h.command(president, president, "/start")
    await bot.settle()
    prompt = h.last(president)
    assert prompt.plain_text.startswith("🎩 You are President. You drew:")
    turn = await next_turn(bot, group, by_id)
    assert turn is not None and turn.message.message_id == prompt.message_id
    await press_move(bot, turn, cb.DISCARD, turn.args(cb.DISCARD)[0])
    table = await bot.table(group)
    assert table is not None and table.game is not None
    assert table.game.phase is Phase.CHANCELLOR_ENACT
    h.assert_no_errors()


@pytest.mark.looptime
async def test_a_429_delays_a_message_but_never_loses_it(store: Store) -> None:
    async with started_bot(store, limiter=True) as bot:
        users = make_users(5)
        group = bot.h.group(creator=users[0], members=users[1:])
        bot.fake.fail_next("sendMessage", chat_id=group.id, retry_after=7, times=2)
        bot.fake.fail_next("sendMessage", chat_id=users[2].id, retry_after=3)
        await open_game(bot, users, group=group, seed=find_seed(5, start=9))
        await bot.settle()
        refused = bot.fake.calls_to("sendMessage", group.id, ok=False)
        assert [c.status for c in refused] == [429, 429]
        sent = bot.fake.calls_to("sendMessage", group.id)
        first_ok = next(c for c in sent if c.params["text"] == refused[0].params["text"])
        assert first_ok.time - refused[0].time >= 14, "retried after retry_after, twice"
        table = await bot.table(group)
        assert table is not None
        assert {"lobby", "board", "round:1"} <= set(table.shown), "every group message arrived"
        role = [m for m in bot.h.private_messages(users[2]) if m.text.startswith("🤫")]
        assert len(role) == 1, "the private role message arrived after its 429"
        check_calls_valid(bot.fake, allowed_failures=3)
        bot.h.assert_no_errors()


# ------------------------------------------------------------------------------ commands


async def test_informational_commands_answer_clearly(bot: Bot) -> None:
    h = bot.h
    user, other = make_user("Ann"), make_user("Bob")
    group = h.group(creator=user, members=[other])
    await h.command(user, user, "/start")
    welcome = h.last(user)
    assert "Secret Hitler" in welcome.plain_text and "/newgame" in welcome.plain_text
    assert welcome.buttons()[0]["url"] == (f"https://t.me/{bot.fake.bot_username}?startgroup=true")
    for chat in (user, group):
        await h.command(user, chat, "/help")
        text = h.last(chat).plain_text
        for command in ("/newgame", "/join", "/startgame", "/board", "/history", "/rules"):
            assert command in text, f"/help misses {command}"
    await h.command(user, user, "/frobnicate")
    assert h.last(user).plain_text == "I don't know that command. /help lists what I understand."
    before = len(bot.fake.messages(group.id))
    await h.command(user, group, "/frobnicate")  # probably for another bot: no answer
    assert len(bot.fake.messages(group.id)) == before
    await h.command(user, group, "/frobnicate", mention_bot=True)
    assert h.last(group).plain_text.startswith("I don't know that command.")
    await h.command(user, group, "/history")
    assert h.last(group).plain_text == "No game is running. /newgame opens one."
    await h.command(user, user, "/newgame")
    assert h.last(user).plain_text == "This command works in a group chat."
    h.assert_no_errors()


@pytest.mark.parametrize("where", ["group", "private"])
async def test_rules_sections_by_buttons(bot: Bot, where: str) -> None:
    h = bot.h
    user = make_user("Reader")
    chat: FakeChat | FakeUser = h.group(creator=user) if where == "group" else user
    await h.command(user, chat, "/rules")
    menu = h.last(chat)
    assert menu.plain_text.startswith("Secret Hitler: the rules")
    seen = set()
    for key in rules_text.SECTIONS:
        data = cb.free_data(cb.RULES, key)
        query = await h.press(user, menu, data=data)
        await bot.settle()
        assert not h.answer(query).show_alert
        menu = h.fake.message(menu.chat_id, menu.message_id)
        assert len(menu.plain_text) <= 4096 and len(menu.plain_text) > 200
        assert menu.plain_text not in seen, f"section {key} shows the same text"
        seen.add(menu.plain_text)
        assert len(menu.buttons()) == len(rules_text.SECTIONS), "the menu stays under it"
    h.assert_no_errors()


async def test_history_during_and_after_a_game(bot: Bot) -> None:
    h = bot.h
    users = make_users(5)
    group = await open_game(bot, users, seed=find_seed(5, first_president=0))
    await h.command(users[2], group, "/history")
    assert h.last(group).plain_text == "History so far\nNothing has happened yet."
    by_id = {u.id: u for u in users}
    turn = await next_turn(bot, group, by_id)
    assert turn is not None
    await press_move(bot, turn, cb.NOMINATE, "1")
    for _ in users:
        turn = await next_turn(bot, group, by_id)
        assert turn is not None
        await press_move(bot, turn, cb.VOTE, "0")
    await h.command(users[2], group, "/history")
    text = h.last(group).plain_text
    assert "R1: \u2068Player1\u2069 → \u2068Player2\u2069 · Ja! 0 / Nein! 5 · rejected" in text
    played = await play(bot, group, users, RandomPlay(3))
    await h.command(users[2], group, "/history")
    assert h.last(group).text == bot.fake.message(group.id, h.last(group).message_id).text
    assert h.last(group).plain_text.startswith("History of the last game"), "its log"
    assert "🔁" not in str(h.last(group).buttons()), "not the end card again"
    assert played.game.is_over
    h.assert_no_errors()


# ------------------------------------------------------------------------------ no waiting


def slow_chat(bot: Bot, chat_id: int, seconds: float) -> Callable[[], None]:
    """Every call to ``chat_id`` takes ``seconds`` (virtual) from now on; returns undo."""
    fake = bot.fake
    original: Callable[..., Awaitable[tuple[int, bytes]]] = fake.do_request

    async def do_request(url: str, method: str, request_data: Any = None, **kw: Any) -> Any:
        params = request_data.parameters if request_data is not None else {}
        if str(params.get("chat_id")) == str(chat_id):
            await asyncio.sleep(seconds)
        return await original(url, method, request_data, **kw)

    fake.do_request = do_request  # type: ignore[method-assign]
    return lambda: setattr(fake, "do_request", original)


@pytest.mark.looptime
async def test_a_backed_up_group_does_not_delay_another_groups_answers(store: Store) -> None:
    async with started_bot(store) as bot:
        loop = asyncio.get_running_loop()
        users_a, users_b = make_users(5), make_users(5)
        group_a = await open_game(bot, users_a, seed=find_seed(5, first_president=0))
        group_b = await open_game(bot, users_b, seed=find_seed(5, first_president=0, start=50))
        undo = slow_chat(bot, group_a.id, 30.0)
        # Group A's outbox fills up: several boards and a nomination to narrate.
        for user in users_a[:4]:
            await bot.h.command(user, group_a, "/board", wait=False)
        turn_a = await next_turn(bot, group_a, {u.id: u for u in users_a})
        assert turn_a is not None
        started = loop.time()
        await press_move(bot, turn_a, cb.NOMINATE, "1", settle=False)
        assert loop.time() - started < 1, "a press in the slow group is answered at once"
        # Meanwhile group B plays a whole election without waiting for group A.
        by_b = {u.id: u for u in users_b}
        turn = await next_turn(bot, group_b, by_b)
        assert turn is not None
        started, answered = loop.time(), len(bot.fake.answers)
        await press_move(bot, turn, cb.NOMINATE, "1", settle=False)
        for _ in users_b:
            await asyncio.sleep(0.1)  # let B's own (fast) edits through
            turn = await next_turn(bot, group_b, by_b)
            assert turn is not None and turn.phase is Phase.VOTE
            await press_move(bot, turn, cb.VOTE, "1", settle=False)
        answers = bot.fake.answers[answered:]
        assert len(answers) == 6 and all(a.time - started < 5 for a in answers), answers
        assert loop.time() - started < 5, "group B was held up by group A"
        pending_a = bot.fake.group_sends(group_a.id)
        undo()
        await bot.settle()
        assert bot.fake.group_sends(group_a.id) > pending_a, "A's backlog was pending"
        bot.h.assert_no_errors()


@pytest.mark.looptime
async def test_a_reply_waiting_on_the_rate_limit_does_not_hold_up_presses(store: Store) -> None:
    """A command's refusal waits for the group's rate limit (20 calls a minute); presses in
    the same group are answered meanwhile (the refusal is sent outside the game's lock)."""
    async with started_bot(store, limiter=True) as bot:
        loop = asyncio.get_running_loop()
        users = make_users(5)
        group = await open_game(bot, users, seed=find_seed(5, first_president=0))
        # Fill the group's rate-limit window: 20 messages in a minute (a membership check,
        # getChatMember, is no message and counts for no group's window).
        for i in range(20):
            if bot.fake.max_calls_in_window(group.id, 60, methods=GROUP_LIMITED_METHODS) >= 20:
                break
            await bot.h.command(users[i % 4], group, "/board")
        assert bot.fake.max_calls_in_window(group.id, 60, methods=GROUP_LIMITED_METHODS) == 20
        joins = [
            asyncio.create_task(bot.h.command(make_user(f"Late{i}"), group, "/join"))
            for i in range(2)
        ]
        await asyncio.sleep(0.01)
        turn = await next_turn(bot, group, {u.id: u for u in users})
        assert turn is not None
        started = loop.time()
        await press_move(bot, turn, cb.NOMINATE, "1", settle=False)
        assert loop.time() - started < 1, "the press waited for the /join replies"
        await asyncio.gather(*joins)
        assert loop.time() - started > 5, "the replies did wait for the rate limit"
        await bot.settle()
        refusals = [m for m in bot.fake.messages(group.id) if "already started" in m.text]
        assert len(refusals) == 2
        bot.h.assert_no_errors()
