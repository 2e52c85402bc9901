"""Photos in the fake Bot API: ``sendPhoto`` and ``editMessageMedia`` as Telegram answers them.

A photo arrives as a multipart upload (PTB's ``InputFile``: the part named ``photo``, or the
part an ``InputMediaPhoto`` names with ``attach://``), or as the ``file_id`` of a photo the
fake already holds. The answer is a Message with a ``photo`` array of PhotoSize (smaller
copies, then the original) and the caption; every accepted image is recorded
(:class:`SentPhoto`) so a test can read the caption and decode the bytes. Error answers are
Telegram's own descriptions (from tdlib's sources where noted).
"""

from __future__ import annotations

import hashlib
import io
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .fake_errors import NOT_MODIFIED, JSONDict, _bad

if TYPE_CHECKING:
    from .fake_records import StoredMessage
    from .fake_telegram import FakeBotAPI


MAX_CAPTION_UTF16 = 1024
CAPTION_TOO_LONG = "Bad Request: message caption is too long"
NO_MEDIA = "Bad Request: there is no media in the message to edit"  # tdlib
NO_TEXT = "Bad Request: there is no text in the message to edit"
NO_PHOTO = "Bad Request: there is no photo in the request"
WRONG_FILE = "Bad Request: wrong file identifier/HTTP URL specified"
IMAGE_FAILED = "Bad Request: IMAGE_PROCESS_FAILED"
MEDIA_INVALID = "Bad Request: can't parse InputMedia: media not found"  # approximate
THUMB_SIDES = (90, 320, 800)  # Telegram's smaller copies ("s", "m", "x") of a larger photo


@dataclass(frozen=True)
class SentPhoto:
    """One image Telegram accepted: sent, or put into a message by an edit."""

    chat_id: int
    message_id: int
    method: str
    caption: str  # as users see it (HTML decoded)
    data: bytes
    width: int
    height: int
    time: float


def uploads(request_data: Any) -> dict[str, bytes]:
    """The files of a multipart request, by part name (empty for a plain form)."""
    if request_data is None or not getattr(request_data, "contains_files", False):
        return {}
    out = {}
    for name, part in request_data.multipart_data.items():
        content = part[1] if isinstance(part, tuple) else part
        out[name] = content if isinstance(content, bytes) else content.read()
    return out


def send_photo(fake: FakeBotAPI, params: JSONDict, stored: type[StoredMessage]) -> JSONDict:
    chat = fake._writable_chat(params)
    data = _photo_bytes(fake, params.get("photo"), "photo")
    caption, plain, parse_mode = fake._caption(params)
    markup = fake._markup(params)
    message = stored(
        chat=chat,
        message_id=fake._next_message_id(chat.id),
        text=caption,
        plain_text=plain,
        parse_mode=parse_mode,
        reply_markup=markup,
        date=int(time.time()),
        sender=fake._bot_user(),
        from_bot=True,
    )
    _attach(fake, message, data, "sendPhoto")
    fake.store.setdefault(chat.id, []).append(message)
    return message.to_dict()


def edit_message_media(fake: FakeBotAPI, params: JSONDict) -> JSONDict:
    media = params.get("media")
    if not isinstance(media, dict) or media.get("type") != "photo":
        raise _bad(MEDIA_INVALID)
    message = fake._editable(params)
    if message.photo is None:
        raise _bad(NO_MEDIA)
    data = _photo_bytes(fake, media.get("media"), None)
    caption, plain, parse_mode = fake._caption(media)
    markup = fake._markup(params)
    if (data, caption, parse_mode, markup) == (
        message.image,
        message.text,
        message.parse_mode,
        message.reply_markup,
    ):
        raise _bad(NOT_MODIFIED)
    message.history.append(message.text)
    message.text, message.plain_text, message.parse_mode = caption, plain, parse_mode
    message.reply_markup = markup  # omitting reply_markup removes the keyboard
    _attach(fake, message, data, "editMessageMedia")
    return fake._touch(message)


def photo_dict(message: StoredMessage) -> JSONDict:
    """The Message fields of a photo message: ``photo`` and ``caption`` instead of ``text``."""
    data: JSONDict = {"photo": message.photo}
    if message.plain_text:
        data["caption"] = message.plain_text
    return data


# ------------------------------------------------------------------------------ helpers


def _photo_bytes(fake: FakeBotAPI, value: object, part: str | None) -> bytes:
    """The uploaded image: the multipart part (``part``, or the ``attach://`` name), or the
    image of a ``file_id`` the fake issued."""
    files = fake.uploads
    if isinstance(value, str) and value.startswith("attach://"):
        part = value[len("attach://") :]
        value = None
    if value is None:
        if part is None or part not in files:
            raise _bad(NO_PHOTO)
        return files[part]
    if isinstance(value, str):
        data = fake.file_ids.get(value)
        if data is None:
            raise _bad(WRONG_FILE)
        return data
    raise _bad(NO_PHOTO)


def _attach(fake: FakeBotAPI, message: StoredMessage, data: bytes, method: str) -> None:
    width, height = _size(data)
    unique = hashlib.sha1(data).hexdigest()[:16]
    sizes = []
    for side in THUMB_SIDES:
        if max(width, height) > side:
            scale = side / max(width, height)
            w, h = max(1, round(width * scale)), max(1, round(height * scale))
            sizes.append(
                _size_dict(f"{unique}-{side}", w, h, max(1, len(data) * w * h // (width * height)))
            )
    sizes.append(_size_dict(unique, width, height, len(data)))
    for entry in sizes:
        fake.file_ids[entry["file_id"]] = data
    message.photo, message.image = sizes, data
    message.images.append(data)
    fake.photos.append(
        SentPhoto(
            message.chat.id,
            message.message_id,
            method,
            message.plain_text,
            data,
            width,
            height,
            fake.now(),
        )
    )


def _size_dict(file_id: str, width: int, height: int, size: int) -> JSONDict:
    return {
        "file_id": f"AgAC{file_id}",
        "file_unique_id": f"AQAD{file_id[:12]}",
        "width": width,
        "height": height,
        "file_size": size,
    }


def _size(data: bytes) -> tuple[int, int]:
    """Width and height, or Telegram's refusal of a file that is not an image."""
    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(io.BytesIO(data)) as image:
            return image.size
    except (UnidentifiedImageError, OSError):
        raise _bad(IMAGE_FAILED) from None
