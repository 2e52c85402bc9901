"""Bot API methods about messages, as the fake Bot API answers them: send, edit, delete,
answer a button press.

Each checks what Telegram checks (HTML parse mode, length in UTF-16 code units, callback data
size, who may edit or delete what) and refuses with Telegram's error descriptions. Photos
(sendPhoto, editMessageMedia) are in :mod:`.fake_media`, which uses the checks here. A mixin of
:class:`~.fake_telegram.FakeBotAPI`.
"""

from __future__ import annotations

import time

from . import fake_media
from .fake_chat_methods import ChatMethods
from .fake_errors import NOT_MODIFIED, _bad
from .fake_html import HtmlError, html_to_plain, utf16_len
from .fake_records import (
    ALERT_TOO_LONG,
    CANT_DELETE,
    CANT_EDIT,
    DELETE_NOT_FOUND,
    EDIT_NOT_FOUND,
    MAX_CALLBACK_ANSWER_CHARS,
    MAX_TEXT_UTF16,
    PARSE_ERROR,
    QUERY_INVALID,
    TEXT_EMPTY,
    TEXT_TOO_LONG,
    CallbackAnswer,
    JSONDict,
    StoredMessage,
    checked_markup,
)


class MessageMethods(ChatMethods):
    """Handlers of the Bot API methods about messages (see the module docstring)."""

    def _render(self, params: JSONDict) -> tuple[str, str, str | None, JSONDict | None]:
        text = params.get("text")
        if not isinstance(text, str):
            raise _bad(TEXT_EMPTY)
        parse_mode = params.get("parse_mode")
        plain = text
        if isinstance(parse_mode, str) and parse_mode.lower() == "html":
            try:
                plain = html_to_plain(text)
            except HtmlError as exc:
                raise _bad(PARSE_ERROR + str(exc)) from None
        if not plain.strip():
            raise _bad(TEXT_EMPTY)
        if utf16_len(plain) > MAX_TEXT_UTF16:
            raise _bad(TEXT_TOO_LONG)
        markup = self._markup(params)
        return text, plain, parse_mode, markup

    _markup = staticmethod(checked_markup)

    def _send_message(self, params: JSONDict) -> JSONDict:
        chat = self._writable_chat(params)
        text, plain, parse_mode, markup = self._render(params)
        message = StoredMessage(
            chat=chat,
            message_id=self._next_message_id(chat.id),
            text=text,
            plain_text=plain,
            parse_mode=parse_mode,
            reply_markup=markup,
            date=int(time.time()),
            sender=self._bot_user(),
            from_bot=True,
        )
        self.store.setdefault(chat.id, []).append(message)
        return message.to_dict()

    def _editable(self, params: JSONDict) -> StoredMessage:
        if "inline_message_id" in params:
            raise _bad("Bad Request: inline messages are not supported by FakeBotAPI")
        chat = self._writable_chat(params)
        try:
            message = self.message(chat.id, int(params.get("message_id", 0)))
        except KeyError:
            raise _bad(EDIT_NOT_FOUND) from None
        if message.deleted:
            raise _bad(EDIT_NOT_FOUND)
        if not message.from_bot:
            raise _bad(CANT_EDIT)
        return message

    def _edit_message_text(self, params: JSONDict) -> JSONDict:
        message = self._editable(params)
        if message.photo is not None:
            raise _bad(fake_media.NO_TEXT)
        text, plain, parse_mode, markup = self._render(params)
        if (text, parse_mode, markup) == (message.text, message.parse_mode, message.reply_markup):
            raise _bad(NOT_MODIFIED)
        message.history.append(message.text)
        message.text, message.plain_text, message.parse_mode = text, plain, parse_mode
        message.reply_markup = markup  # omitting reply_markup removes the keyboard
        return self._touch(message)

    def _edit_message_reply_markup(self, params: JSONDict) -> JSONDict:
        message = self._editable(params)
        markup = self._markup(params)
        if markup == message.reply_markup:
            raise _bad(NOT_MODIFIED)
        message.reply_markup = markup
        return self._touch(message)

    @staticmethod
    def _touch(message: StoredMessage) -> JSONDict:
        message.edit_count += 1
        message.edit_date = int(time.time())
        return message.to_dict()

    def _delete_message(self, params: JSONDict) -> bool:
        chat = self._chat(params)
        try:
            message = self.message(chat.id, int(params.get("message_id", 0)))
        except KeyError:
            raise _bad(DELETE_NOT_FOUND) from None
        if message.deleted:
            raise _bad(DELETE_NOT_FOUND)
        if not message.from_bot and chat.type != "private" and chat.bot_status != "administrator":
            raise _bad(CANT_DELETE)
        message.deleted = True
        return True

    def _delete_messages(self, params: JSONDict) -> bool:
        chat = self._chat(params)
        for message_id in params.get("message_ids", []):
            try:
                message = self.message(chat.id, int(message_id))
            except KeyError:
                continue  # deleteMessages skips what it cannot delete
            if message.from_bot or chat.type == "private" or chat.bot_status == "administrator":
                message.deleted = True
        return True

    def _caption(self, params: JSONDict) -> tuple[str, str, str | None]:
        """A photo's caption: (as sent, as shown, parse mode), refused as Telegram does."""
        caption = params.get("caption") or ""
        if not isinstance(caption, str):
            caption = str(caption)
        parse_mode = params.get("parse_mode")
        plain = caption
        if isinstance(parse_mode, str) and parse_mode.lower() == "html":
            try:
                plain = html_to_plain(caption)
            except HtmlError as exc:
                raise _bad(PARSE_ERROR + str(exc)) from None
        if utf16_len(plain) > fake_media.MAX_CAPTION_UTF16:
            raise _bad(fake_media.CAPTION_TOO_LONG)
        return caption, plain, parse_mode if caption else None

    def _answer_callback_query(self, params: JSONDict) -> bool:
        query_id = str(params.get("callback_query_id", ""))
        if query_id not in self.callback_queries:
            raise _bad(QUERY_INVALID)
        text = params.get("text")
        if text is not None and len(text) > MAX_CALLBACK_ANSWER_CHARS:
            raise _bad(ALERT_TOO_LONG)
        user_id = self.callback_queries.pop(query_id)
        self.answers.append(
            CallbackAnswer(
                query_id=query_id,
                user_id=user_id,
                text=text,
                show_alert=bool(params.get("show_alert", False)),
                url=params.get("url"),
                time=self.now(),
            )
        )
        return True
