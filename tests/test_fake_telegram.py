"""The fake Bot API and the harness behave like Telegram for a tiny throwaway bot.

These tests pin down the test infrastructure itself, so that game tests built on it can trust
"the message arrived", "the user got an alert" and "at most N calls per minute".
"""

from __future__ import annotations

import asyncio
import html
import importlib.util
from collections.abc import Callable
from typing import Any

import pytest
from telegram import InlineKeyboardButton, InlineKeyboardMarkup, Message, Update
from telegram.error import BadRequest, Forbidden, RetryAfter
from telegram.ext import (
    AIORateLimiter,
    Application,
    CallbackQueryHandler,
    CommandHandler,
    ContextTypes,
)

from tests.fake_telegram import FakeBotAPI, html_to_plain
from tests.harness import Harness, awkward_users, make_user, make_users

HAVE_LOOPTIME = importlib.util.find_spec("looptime") is not None
# Virtual time makes rate-limiter waits instant; without looptime the short ones run for real.
virtual_time: Callable[[Any], Any] = pytest.mark.looptime if HAVE_LOOPTIME else (lambda f: f)
needs_looptime = pytest.mark.skipif(not HAVE_LOOPTIME, reason="needs looptime (virtual time)")

AnyApp = Application[Any, Any, Any, Any, Any, Any]


async def ping(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Reply with a one-button keyboard."""
    assert update.effective_message is not None
    keyboard = InlineKeyboardMarkup([[InlineKeyboardButton("Press me", callback_data="pressed")]])
    await update.effective_message.reply_text(
        "<b>pong</b>", parse_mode="HTML", reply_markup=keyboard
    )


async def pressed(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Answer the press with an alert and replace the keyboard message."""
    query = update.callback_query
    assert query is not None and query.from_user is not None
    await query.answer(f"hello {query.from_user.first_name}", show_alert=True)
    await query.edit_message_text("done")


async def same_edit(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Edit the pressed message to exactly what it already shows: Telegram refuses."""
    query = update.callback_query
    assert query is not None and isinstance(query.message, Message)
    await query.answer()
    markup = query.message.reply_markup
    await query.edit_message_text("<b>pong</b>", parse_mode="HTML", reply_markup=markup)


async def whisper(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Send the caller a private message (fails until they have started the bot)."""
    assert update.effective_user is not None
    await context.bot.send_message(update.effective_user.id, "psst")


def build_app(fake: FakeBotAPI, **builder_args: Any) -> AnyApp:
    """The throwaway bot: /ping with a button, /whisper to private chat."""
    builder = fake.application_builder()
    if "rate_limiter" in builder_args:
        builder = builder.rate_limiter(builder_args["rate_limiter"])
    app = builder.build()
    app.add_handler(CommandHandler("ping", ping))
    app.add_handler(CommandHandler("whisper", whisper))
    app.add_handler(CallbackQueryHandler(pressed, pattern="^pressed$"))
    app.add_handler(CallbackQueryHandler(same_edit, pattern="^same$"))
    return app


async def test_ping_reply_lands_in_store_and_press_edits() -> None:
    fake = FakeBotAPI()
    alice = make_user("Alice")
    async with Harness(build_app(fake), fake) as h:
        group = h.group(title="Table")
        await h.command(alice, group, "/ping")
        reply = h.last(group)
        assert reply.text == "<b>pong</b>" and reply.plain_text == "pong"
        assert reply.parse_mode == "HTML"
        assert reply.button(text="Press me")["callback_data"] == "pressed"

        query_id = await h.press(alice, reply, text="Press me")
        assert h.answer(query_id).show_alert is True
        assert h.alerts_for(alice) == ["hello Alice"]
        edited = fake.message(group.id, reply.message_id)
        assert (edited.plain_text, edited.edit_count, edited.reply_markup) == ("done", 1, None)
        assert edited.history == ["<b>pong</b>"]

        # The command also works addressed to the bot by name, and in private.
        await h.command(alice, group, "/ping", mention_bot=True)
        await h.command(alice, alice.id, "/start hello")
        await h.command(alice, alice.id, "/ping")
        assert [m.plain_text for m in h.private_messages(alice)] == ["pong"]
        h.assert_no_errors()


async def test_message_ids_interleave_and_user_messages_are_kept() -> None:
    fake = FakeBotAPI()
    bob = make_user("Bob")
    async with Harness(build_app(fake), fake) as h:
        group = h.group()
        said = await h.text(bob, group, "hi all")
        cmd = await h.command(bob, group, "/ping")
        assert [said.message_id, cmd.message_id, h.last(group).message_id] == [1, 2, 3]
        assert cmd.entities == [{"type": "bot_command", "offset": 0, "length": 5}]
        assert [m.text for m in fake.messages(group.id, from_bot=False)] == ["hi all", "/ping"]
        # A non-admin bot may delete its own messages but not the users'.
        with pytest.raises(BadRequest, match="can't be deleted"):
            await h.app.bot.delete_message(group.id, said.message_id)
        assert await h.app.bot.delete_message(group.id, 3)
        assert fake.message(group.id, 3).deleted
        with pytest.raises(LookupError):
            h.last(group)


async def test_a_message_held_before_keeps_its_id_and_buttons() -> None:
    """A message Telegram held before the fake existed (sent by an older bot, see
    tests/test_bot_upgrade.py): its id is kept, later ones follow it, it can be pressed
    and edited like any other."""
    fake = FakeBotAPI()
    alice = make_user("Alice")
    async with Harness(build_app(fake), fake) as h:
        group = h.group()
        keyboard = {"inline_keyboard": [[{"text": "Press me", "callback_data": "pressed"}]]}
        old = fake.add_message(
            group.id, 7, "<b>old</b>", parse_mode="HTML", reply_markup=keyboard, history=["x"]
        )
        assert (old.plain_text, old.from_bot, old.sender["id"]) == ("old", True, fake.bot_id)
        with pytest.raises(ValueError, match="not newer"):
            fake.add_message(group.id, 7, "again")
        await h.press(alice, old, text="Press me")
        edited = fake.message(group.id, 7)
        assert (edited.plain_text, edited.history, edited.buttons()) == (
            "done",
            ["x", "<b>old</b>"],
            [],
        )
        await h.command(alice, group, "/ping")
        assert [m.message_id for m in fake.messages(group.id, from_bot=None)] == [7, 8, 9]
        h.assert_no_errors()


async def test_send_to_user_who_never_started_is_forbidden() -> None:
    fake = FakeBotAPI()
    carol = make_user("Carol")
    async with Harness(build_app(fake), fake) as h:
        group = h.group()
        await h.command(carol, group, "/whisper")
        assert len(h.errors) == 1 and isinstance(h.errors[0], Forbidden)
        assert "bot can't initiate conversation with a user" in str(h.errors[0])
        failed = fake.failed_calls
        assert [(c.method, c.chat_id, c.status) for c in failed] == [("sendMessage", carol.id, 403)]
        assert h.private_messages(carol) == []

        # After /start in private, the same command reaches her; after blocking, 403 again.
        await h.command(carol, carol.id, "/start")
        assert carol.id in fake.started
        await h.command(carol, group, "/whisper")
        assert [m.text for m in h.private_messages(carol)] == ["psst"]
        h.block(carol)
        await h.command(carol, group, "/whisper")
        assert "blocked" in str(h.errors[-1])
        assert fake.private_sends(carol.id) == 1


@virtual_time
async def test_rate_limiter_retries_injected_429_once() -> None:
    fake = FakeBotAPI()
    dave = make_user("Dave")
    app = build_app(fake, rate_limiter=AIORateLimiter(max_retries=2))
    async with Harness(app, fake) as h:
        group = h.group()
        fake.fail_next("sendMessage", chat_id=group.id, retry_after=1)
        start = asyncio.get_running_loop().time()
        await h.command(dave, group, "/ping")
        elapsed = asyncio.get_running_loop().time() - start
        sends = fake.calls_to("sendMessage", ok=None)
        assert [c.status for c in sends] == [429, 200]
        assert elapsed >= 1.1  # retry_after + PTB's 0.1 s margin
        assert len(fake.messages(group.id)) == 1
        h.assert_no_errors()

        # Without retries left the handler sees RetryAfter, and nothing is stored.
        fake.fail_next(retry_after=1, times=3)
        await h.command(dave, group, "/ping")
        assert isinstance(h.errors[-1], RetryAfter)
        assert len(fake.messages(group.id)) == 1


async def test_unchanged_edit_and_bad_queries_give_bad_request() -> None:
    fake = FakeBotAPI()
    erin = make_user("Erin")
    async with Harness(build_app(fake), fake) as h:
        group = h.group()
        await h.command(erin, group, "/ping")
        await h.press_raw(erin, group.id, h.last(group).message_id, "same")
        assert isinstance(h.errors[-1], BadRequest)
        assert "Message is not modified" in str(h.errors[-1])
        with pytest.raises(BadRequest, match="Message to edit not found"):
            await h.app.bot.edit_message_text("x", chat_id=group.id, message_id=999)
        with pytest.raises(BadRequest, match="Query is too old"):
            await h.app.bot.answer_callback_query("never-sent")
        # A forged press on a message the fake never held arrives as an InaccessibleMessage.
        await h.press_raw(erin, group.id, 12345, "pressed")
        with pytest.raises(BadRequest, match=r"(?i)method foobar is not implemented"):
            await h.app.bot.do_api_request("fooBar")
        assert [c.method for c in fake.unknown_calls] == ["fooBar"]


async def test_html_is_validated_like_telegram() -> None:
    fake = FakeBotAPI()
    async with Harness(build_app(fake), fake) as h:
        group = h.group()
        naughty, *others = awkward_users()
        with pytest.raises(BadRequest, match="parse entities"):
            await h.app.bot.send_message(group.id, f"<b>{naughty.full_name}</b>", "HTML")
        assert fake.failed_calls[-1].status == 400
        for user in [naughty, *others]:
            sent = await h.app.bot.send_message(
                group.id, f"<b>{html.escape(user.full_name)}</b>", "HTML"
            )
            assert sent.text == user.full_name == h.last(group).plain_text
    assert html_to_plain("a &nbsp; &#60; &lt;<i>x</i>") == "a &nbsp; < <x"
    with pytest.raises(ValueError, match='Unsupported start tag "br"'):
        html_to_plain("a<br>b")
    with pytest.raises(ValueError, match="Unmatched end tag"):
        html_to_plain("<b>a</i>")


async def test_counters_and_window_with_injected_clock() -> None:
    now = [0.0]
    fake = FakeBotAPI(clock=lambda: now[0])
    players = make_users(2)
    async with Harness(build_app(fake), fake) as h:
        group = h.group()
        for user in players:
            h.open_private(user)
        bot = h.app.bot
        for t in (0, 10, 20, 59.5, 60, 61, 130):  # 5 calls in [0, 60], 4 in [1, 61]
            now[0] = t
            await bot.send_message(group.id, f"at {t}")
        await bot.edit_message_text("edited", chat_id=group.id, message_id=1)
        await bot.send_message(players[0].id, "secret role")
        await bot.send_message(players[1].id, "secret role")
        await bot.edit_message_text("edited", chat_id=players[1].id, message_id=1)
        fake.fail_next("sendMessage", chat_id=group.id)
        with pytest.raises(RetryAfter):
            await bot.send_message(group.id, "refused")
        await h.command(players[0], group, "/ping")
        await h.press(players[0], h.last(group), data="pressed")

        assert fake.group_sends() == 8 and fake.group_sends(group.id) == 8
        assert fake.group_edits() == 2  # one by hand, one by the press
        assert fake.private_sends() == 2 and fake.private_sends(players[0].id) == 1
        assert fake.private_edits() == 1
        assert fake.callback_answers() == 1
        # Group calls: sends at 0, 10, 20, 59.5, 60, 61, then 4 at t=130 (2 sends, 2 edits);
        # the 429 is not counted. Windows are closed: [0, 61] holds 6.
        assert fake.max_calls_in_window(group.id, 60) == 5
        assert fake.max_calls_in_window(group.id, 61) == 6
        assert fake.max_calls_in_window(group.id, 0.5) == 4
        assert fake.max_calls_in_window(group.id, 1000) == 10
        assert fake.max_calls_in_window(group.id, 1000, methods=["sendMessage"]) == 8
        assert fake.max_calls_in_window(players[0].id) == 1


async def test_jobqueue_runs_under_harness() -> None:
    fake = FakeBotAPI()
    async with Harness(build_app(fake), fake) as h:
        group = h.group()
        assert h.app.job_queue is not None

        async def remind(context: ContextTypes.DEFAULT_TYPE) -> None:
            await context.bot.send_message(group.id, "time is up")

        h.app.job_queue.run_once(remind, when=0.05)
        await asyncio.sleep(0.3)
        assert h.last(group).text == "time is up"


@needs_looptime
@virtual_time
async def test_jobqueue_follows_virtual_time() -> None:
    fake = FakeBotAPI()
    async with Harness(build_app(fake), fake) as h:
        group = h.group()
        assert h.app.job_queue is not None

        async def tick(context: ContextTypes.DEFAULT_TYPE) -> None:
            await context.bot.send_message(group.id, "tick")

        h.app.job_queue.run_once(tick, when=90)
        h.app.job_queue.run_repeating(tick, interval=30, first=30)
        await asyncio.sleep(29)
        assert fake.messages(group.id) == []
        await asyncio.sleep(62)  # t=91: repeats at 30, 60, 90 and the one-off at 90
        assert fake.group_sends(group.id) == 4


@needs_looptime
@virtual_time
async def test_group_limiter_scope() -> None:
    """Which calls AIORateLimiter throttles per group: anything with a negative chat_id."""
    fake = FakeBotAPI()
    limiter = AIORateLimiter(group_max_rate=1, group_time_period=60)
    frank = make_user("Frank")
    async with Harness(build_app(fake, rate_limiter=limiter), fake) as h:
        group = h.group(members=[frank])
        h.open_private(frank)
        bot, loop = h.app.bot, asyncio.get_running_loop()
        await h.command(frank, group, "/ping")  # the reply fills the group's bucket
        query_id = await h.press_raw(frank, group.id, 999, "nothing-handles-this")
        start = loop.time()
        await bot.answer_callback_query(query_id)  # no chat_id: never throttled
        await bot.send_message(frank.id, "private")  # chat_id > 0: only the overall limiter
        assert loop.time() - start < 0.1
        await bot.get_chat_member(group.id, frank.id)  # a read, but it waits for the bucket
        assert loop.time() - start >= 59
        assert fake.count("getChatMember", group.id) == 1


@needs_looptime
@virtual_time
@pytest.mark.parametrize(
    ("rate", "period", "worst"),
    [
        (10, 63, 19),  # capacity 10 + 60 s * 10/63 per s = 19.5
        (10, 60, 20),  # capacity 10 + 10 leaked: exactly at Telegram's limit
        (20, 60, 40),  # PTB's default: a burst of 20 then 20 more within the minute
    ],
)
async def test_group_limiter_worst_case_window(rate: int, period: int, worst: int) -> None:
    fake = FakeBotAPI()
    limiter = AIORateLimiter(group_max_rate=rate, group_time_period=period)
    async with Harness(build_app(fake, rate_limiter=limiter), fake) as h:
        group = h.group()
        await asyncio.gather(*(h.app.bot.send_message(group.id, str(i)) for i in range(60)))
        assert fake.group_sends(group.id) == 60
        assert fake.max_calls_in_window(group.id, 60) == worst
