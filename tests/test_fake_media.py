"""The fake Bot API answers sendPhoto and editMessageMedia as Telegram does: a multipart
upload, a Message with a ``photo`` array and the caption, Telegram's refusals, and the
failure controls (429, 403, crash_at, strict limits) work for these methods too. Over
HTTP (:mod:`shbot.devtools.http_api`) as well as in process."""

from __future__ import annotations

import io

import pytest
from PIL import Image
from telegram import Bot, InputMediaPhoto
from telegram.error import BadRequest, Forbidden, RetryAfter

from shbot.devtools.fake_telegram import Crashed, FakeBotAPI
from tests.harness import make_user
from tests.http_bot_api import served


def png(colour: str = "red", size: tuple[int, int] = (400, 200)) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, colour).save(out, "PNG")
    return out.getvalue()


def in_process(fake: FakeBotAPI) -> Bot:
    return Bot(fake.token, request=fake, get_updates_request=fake)


async def check_photo_roundtrip(bot: Bot, fake: FakeBotAPI, chat_id: int) -> None:
    first, second = png("red"), png("blue", (800, 460))
    sent = await bot.send_photo(chat_id, first, caption="<b>Board</b> 1", parse_mode="HTML")
    assert sent.text is None and sent.caption == "Board 1"
    assert [p.width for p in sent.photo] == [90, 320, 400]
    assert sent.photo[-1].file_size == len(first)
    stored = fake.message(chat_id, sent.message_id)
    assert stored.image == first and stored.plain_text == "Board 1"

    media = InputMediaPhoto(second, caption="<i>Board</i> 2", parse_mode="HTML")
    edited = await bot.edit_message_media(media, chat_id=chat_id, message_id=sent.message_id)
    assert isinstance(edited, type(sent)) and edited.caption == "Board 2"
    assert (edited.photo[-1].width, edited.photo[-1].height) == (800, 460)
    assert stored.images == [first, second] and stored.edit_count == 1
    assert [(p.method, p.caption, p.data) for p in fake.photos] == [
        ("sendPhoto", "Board 1", first),
        ("editMessageMedia", "Board 2", second),
    ]
    # The same image and caption again: "message is not modified", as Telegram answers.
    same = InputMediaPhoto(second, caption="<i>Board</i> 2", parse_mode="HTML")
    with pytest.raises(BadRequest, match="not modified"):
        await bot.edit_message_media(same, chat_id=chat_id, message_id=sent.message_id)
    # Sending again by file_id needs no upload.
    again = await bot.send_photo(chat_id, edited.photo[-1].file_id)
    assert fake.message(chat_id, again.message_id).image == second


async def test_send_and_edit_photo_in_process() -> None:
    fake = FakeBotAPI()
    fake.add_chat(-100)
    async with in_process(fake) as bot:
        await check_photo_roundtrip(bot, fake, -100)
        assert fake.group_sends(-100) == 2 and fake.group_edits(-100) == 1


async def test_send_and_edit_photo_over_http() -> None:
    fake = FakeBotAPI()
    fake.add_chat(-100)
    async with served(fake) as url, Bot(fake.token, base_url=f"{url}/bot") as bot:
        await check_photo_roundtrip(bot, fake, -100)


async def test_telegram_refusals() -> None:
    fake = FakeBotAPI()
    fake.add_chat(-100)
    async with in_process(fake) as bot:
        text = await bot.send_message(-100, "a text")
        with pytest.raises(BadRequest, match="no media in the message to edit"):
            await bot.edit_message_media(
                InputMediaPhoto(png()), chat_id=-100, message_id=text.message_id
            )
        with pytest.raises(BadRequest, match="Message to edit not found"):
            await bot.edit_message_media(InputMediaPhoto(png()), chat_id=-100, message_id=999)
        photo = await bot.send_photo(-100, png(), caption="x")
        with pytest.raises(BadRequest, match="no text in the message to edit"):
            await bot.edit_message_text("y", chat_id=-100, message_id=photo.message_id)
        with pytest.raises(BadRequest, match="caption is too long"):
            await bot.send_photo(-100, png(), caption="x" * 1025)
        with pytest.raises(BadRequest, match=r"(?i)image_process_failed"):
            await bot.send_photo(-100, b"not an image at all")
        with pytest.raises(BadRequest, match="Wrong file identifier"):
            await bot.send_photo(-100, "AgACunknown")
        assert len(fake.photos) == 1  # only the one accepted


async def test_failure_controls_cover_photos() -> None:
    fake = FakeBotAPI()
    fake.add_chat(-100)
    alice = make_user("Alice")
    async with in_process(fake) as bot:
        fake.fail_next("sendPhoto", retry_after=3)
        with pytest.raises(RetryAfter):
            await bot.send_photo(-100, png())
        fake.private_chat(alice.to_dict())
        with pytest.raises(Forbidden):  # she never started the bot
            await bot.send_photo(alice.id, png())
        sent = await bot.send_photo(-100, png())
        fake.crash_at(1)
        with pytest.raises(Crashed):
            await bot.edit_message_media(
                InputMediaPhoto(png("green")), chat_id=-100, message_id=sent.message_id
            )
        assert fake.message(-100, sent.message_id).edit_count == 1  # Telegram got it
        fake.revive()


async def test_strict_limits_count_photos() -> None:
    fake = FakeBotAPI(strict_limits=True, clock=lambda: 0.0)
    fake.add_chat(-100)
    async with in_process(fake) as bot:
        sent = await bot.send_photo(-100, png())
        for i in range(19):
            media = InputMediaPhoto(png("blue" if i % 2 else "green"), caption=str(i))
            await bot.edit_message_media(media, chat_id=-100, message_id=sent.message_id)
        with pytest.raises(RetryAfter):
            await bot.send_photo(-100, png())
