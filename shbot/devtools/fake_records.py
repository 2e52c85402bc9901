"""What the fake Bot API keeps, and the words and numbers Telegram answers with.

The records of Telegram's side (chats, messages), of the fake's log (calls, callback answers),
the Bot API's error descriptions and limits, and :class:`FakeState`: the fields
:class:`~.fake_telegram.FakeBotAPI` keeps them in, declared once for its mixins. A module of
their own, so every part of the fake imports them without an import cycle.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from . import fake_media
from .fake_errors import JSONDict, _bad

# Descriptions exactly as Telegram sends them (PTB strips "Bad Request: " and capitalizes).
NOT_STARTED = "Forbidden: bot can't initiate conversation with a user"
BLOCKED = "Forbidden: bot was blocked by the user"
KICKED = "Forbidden: bot was kicked from the supergroup chat"
KICKED_GROUP = "Forbidden: bot was kicked from the group chat"
NOT_MEMBER = "Forbidden: bot is not a member of the supergroup chat"
NOT_MEMBER_GROUP = "Forbidden: bot is not a member of the group chat"
# A call naming a group that became a supergroup; parameters carry migrate_to_chat_id.
MIGRATED = "Bad Request: group chat was upgraded to a supergroup chat"
CHAT_NOT_FOUND = "Bad Request: chat not found"
USER_NOT_FOUND = "Bad Request: user not found"
EDIT_NOT_FOUND = "Bad Request: message to edit not found"
CANT_EDIT = "Bad Request: message can't be edited"
DELETE_NOT_FOUND = "Bad Request: message to delete not found"
CANT_DELETE = "Bad Request: message can't be deleted"
PIN_NOT_FOUND = "Bad Request: message to pin not found"
PIN_RIGHTS = "Bad Request: not enough rights to manage pinned messages in the chat"
TEXT_EMPTY = "Bad Request: message text is empty"
TEXT_TOO_LONG = "Bad Request: message is too long"
BUTTON_DATA_INVALID = "Bad Request: BUTTON_DATA_INVALID"
QUERY_INVALID = "Bad Request: query is too old and response timeout expired or query ID is invalid"
NO_ADMINS_IN_PRIVATE = "Bad Request: there are no administrators in the private chat"
ALERT_TOO_LONG = "Bad Request: MESSAGE_TOO_LONG"  # approximate
PARSE_ERROR = "Bad Request: can't parse entities: "

MAX_TEXT_UTF16 = 4096
MAX_CALLBACK_DATA_BYTES = 64
MAX_CALLBACK_ANSWER_CHARS = 200

SEND_METHODS = frozenset({"sendmessage", "sendphoto"})
EDIT_METHODS = frozenset({"editmessagetext", "editmessagereplymarkup", "editmessagemedia"})

# Telegram's flood limits, as ``FakeBotAPI(strict_limits=True)`` enforces them: at most 20
# calls a minute that show in one group (messages, edits, deletions, pins) and 30 calls to
# chats a second for the whole bot ("30 messages per second"; as for PTB's limiter, calls
# without a chat, such as answerCallbackQuery, are not counted); a call over either is
# refused with 429 and ``retry_after``.
GROUP_LIMIT, GROUP_PERIOD = 20, 60.0
OVERALL_LIMIT, OVERALL_PERIOD = 30, 1.0
GROUP_LIMITED_METHODS = frozenset(
    {
        *SEND_METHODS,
        *EDIT_METHODS,
        "deletemessage",
        "deletemessages",
        "pinchatmessage",
        "unpinchatmessage",
        "unpinallchatmessages",
    }
)
TOO_MANY_REQUESTS = "Too Many Requests: retry after {}"


@dataclass
class FakeChat:
    """A chat the fake knows; ``admins`` maps user id to "creator" or "administrator"."""

    id: int
    type: str
    title: str | None = None
    username: str | None = None
    user: JSONDict | None = None  # the other party of a private chat
    admins: dict[int, str] = field(default_factory=dict)
    members: set[int] = field(default_factory=set)
    banned: set[int] = field(default_factory=set)  # getChatMember says "kicked"
    bot_status: str = "member"  # "member", "administrator", "kicked", "left"
    migrated_to: int | None = None  # the supergroup this group became (calls are refused)

    def to_dict(self) -> JSONDict:
        """The Chat object as Telegram embeds it in messages."""
        data: JSONDict = {"id": self.id, "type": self.type}
        if self.type == "private" and self.user is not None:
            for key in ("first_name", "last_name", "username"):
                if self.user.get(key) is not None:
                    data[key] = self.user[key]
        else:
            data["title"] = self.title
        if self.username:
            data["username"] = self.username
        return data


@dataclass
class StoredMessage:
    """One message in a chat as Telegram holds it; ``text`` is what the sender sent (raw HTML).

    ``plain_text`` is what users see. ``history`` lists earlier raw texts, oldest first. A
    photo message keeps its caption there, its PhotoSize list in ``photo``, its image in
    ``image`` and every image it showed in ``images`` (see :mod:`.fake_media`).
    """

    chat: FakeChat
    message_id: int
    text: str
    plain_text: str
    parse_mode: str | None
    reply_markup: JSONDict | None
    date: int
    sender: JSONDict
    from_bot: bool
    entities: list[JSONDict] = field(default_factory=list)
    deleted: bool = False
    edit_count: int = 0
    edit_date: int | None = None
    pinned: bool = False
    history: list[str] = field(default_factory=list)
    photo: list[JSONDict] | None = None
    image: bytes | None = None
    images: list[bytes] = field(default_factory=list)

    @property
    def chat_id(self) -> int:
        return self.chat.id

    def buttons(self) -> list[JSONDict]:
        """All inline buttons, row by row."""
        if not self.reply_markup:
            return []
        rows = self.reply_markup.get("inline_keyboard", [])
        return [button for row in rows for button in row]

    def button(self, *, text: str | None = None, data: str | None = None) -> JSONDict:
        """The single button with this text or callback_data; LookupError lists what exists."""
        if (text is None) == (data is None):
            raise ValueError("give exactly one of text= or data=")
        found = [
            b
            for b in self.buttons()
            if (text is not None and b.get("text") == text)
            or (data is not None and b.get("callback_data") == data)
        ]
        if len(found) != 1:
            have = [(b.get("text"), b.get("callback_data")) for b in self.buttons()]
            raise LookupError(
                f"{len(found)} buttons match text={text!r} data={data!r} in message "
                f"{self.message_id} of chat {self.chat_id}; buttons: {have}"
            )
        return found[0]

    def to_dict(self) -> JSONDict:
        """The Message object as the Bot API returns it."""
        data: JSONDict = {
            "message_id": self.message_id,
            "from": self.sender,
            "chat": self.chat.to_dict(),
            "date": self.date,
        }
        if self.photo is not None:
            data.update(fake_media.photo_dict(self))
        else:
            data["text"] = self.plain_text
        if self.entities:
            data["entities"] = self.entities
        if self.reply_markup:
            data["reply_markup"] = self.reply_markup
        if self.edit_date is not None:
            data["edit_date"] = self.edit_date
        return data


@dataclass(frozen=True)
class Call:
    """One request the bot made; ``status`` is the HTTP status (200 when ok)."""

    method: str
    params: JSONDict
    chat_id: int | str | None
    status: int
    description: str | None
    time: float
    result: Any = None

    @property
    def ok(self) -> bool:
        return self.status == 200

    def shown_text(self) -> str:
        """What the call shows as text: the message's text, or a photo's caption."""
        media = self.params.get("media")
        if isinstance(media, dict):
            return str(media.get("caption", ""))
        return str(self.params.get("text", self.params.get("caption", "")))

    def buttons(self) -> list[JSONDict]:
        """The inline keyboard's buttons the call sends, row after row."""
        markup = self.params.get("reply_markup") or {}
        return [b for row in markup.get("inline_keyboard", []) for b in row]


@dataclass(frozen=True)
class CallbackAnswer:
    """An answerCallbackQuery the bot made for the query of ``user_id``."""

    query_id: str
    user_id: int | None
    text: str | None
    show_alert: bool
    url: str | None
    time: float


def _normalize_chat_id(value: object) -> int | str | None:
    """Chat ids arrive as int or str; Telegram treats "-100123" and -100123 alike."""
    if value is None:
        return None
    if isinstance(value, int):
        return value
    text = str(value)
    try:
        return int(text)
    except ValueError:
        return text


def _member_dict(user: JSONDict, status: str) -> JSONDict:
    """A ChatMember object with the fields PTB requires for each status."""
    if status == "creator":
        return {"status": "creator", "user": user, "is_anonymous": False}
    if status == "administrator":
        return {
            "status": "administrator",
            "user": user,
            "can_be_edited": False,
            "is_anonymous": False,
            "can_manage_chat": True,
            "can_delete_messages": True,
            "can_manage_video_chats": True,
            "can_restrict_members": True,
            "can_promote_members": False,
            "can_change_info": True,
            "can_invite_users": True,
            "can_post_stories": False,
            "can_edit_stories": False,
            "can_delete_stories": False,
            "can_pin_messages": True,
            "can_manage_topics": False,
        }
    if status == "kicked":
        return {"status": "kicked", "user": user, "until_date": 0}
    return {"status": status, "user": user}


class FakeState:
    """The state of :class:`~.fake_telegram.FakeBotAPI`, declared for its mixins (which read
    and change it); ``FakeBotAPI.__init__`` sets every field."""

    bot_id: int
    bot_username: str
    bot_first_name: str
    users: dict[int, JSONDict]
    started: set[int]
    blocked: set[int]
    chats: dict[int, FakeChat]
    store: dict[int, list[StoredMessage]]
    calls: list[Call]
    answers: list[CallbackAnswer]
    callback_queries: dict[str, int]
    commands: dict[tuple[str, str], list[JSONDict]]
    descriptions: dict[tuple[str, str], str]
    _next_ids: dict[int, itertools.count[int]]

    if TYPE_CHECKING:

        def now(self) -> float:
            """Timestamp for the call log (see ``FakeBotAPI.now``)."""


def checked_markup(params: JSONDict) -> JSONDict | None:
    """The inline keyboard of a send or edit, refused as Telegram refuses bad callback data."""
    markup = params.get("reply_markup")
    if not markup:
        return None
    for row in markup.get("inline_keyboard", []):
        for button in row:
            data = button.get("callback_data")
            if data is not None and not (0 < len(data.encode("utf-8")) <= MAX_CALLBACK_DATA_BYTES):
                raise _bad(BUTTON_DATA_INVALID)
    return dict(markup)
