"""An in-process fake of the Telegram Bot API, plugged into PTB as its HTTP backend.

Telegram is unreachable from tests, and mocking ``Bot`` methods would skip the very code we
need to trust (``ExtBot``, ``AIORateLimiter``, error mapping, ``de_json``). So the fake sits
where the HTTP client would: ``BaseRequest.do_request`` gets the endpoint URL and the encoded
parameters and answers with the same JSON shapes and HTTP status codes Telegram uses. Error
descriptions are copied from real Bot API answers where known; the few marked "approximate"
are our best guess.

The fake is also the test's window on "what the users saw": it keeps every message per chat
(text, markup, edits, deletions), every callback answer, and a timestamped log of every call.

It lives in the package (not under ``tests/``) so the benchmarks can use it from an installed
``shbot``; ``tests/fake_telegram.py`` re-exports it. :mod:`shbot.devtools.http_api` serves it
over HTTP for bot processes started separately.
"""

from __future__ import annotations

import asyncio
import functools
import itertools
import json
import math
import re
import time
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass, field
from typing import Any

import orjson
from telegram.ext import ApplicationBuilder
from telegram.request import BaseRequest, RequestData

from . import fake_media
from .fake_errors import NOT_MODIFIED, ApiError, _bad
from .fake_media import SentPhoto

JSONDict = dict[str, Any]

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


class Crashed(BaseException):
    """The bot's process died during a Bot API call (see :meth:`FakeBotAPI.crash_at`).

    A ``BaseException``, like the signal that kills a process: no ``except Exception`` of the
    bot or of PTB catches it, so the code of the dying process stops right there; the test
    discards the Application and starts a new one on the same store and the same fake."""


# --------------------------------------------------------------------------------------------
# HTML parse mode, as Telegram's server (tdlib's parse_html) understands it.
# Validating it here is what makes "a player named <b>&amp;" tests meaningful.

HTML_TAGS = frozenset(
    {
        "a",
        "b",
        "strong",
        "i",
        "em",
        "u",
        "ins",
        "s",
        "strike",
        "del",
        "span",
        "tg-spoiler",
        "tg-emoji",
        "tg-time",  # a date_time entity (Bot API 9.5): <tg-time unix="…" format="T">…</tg-time>
        "code",
        "pre",
        "blockquote",
    }
)
_NAMED_ENTITIES = {"lt": "<", "gt": ">", "amp": "&", "quot": '"'}
_ENTITY_RE = re.compile(r"&(#[xX][0-9a-fA-F]+|#[0-9]+|[a-zA-Z]+);")
_SPECIAL_RE = re.compile(r"[<&]")


class HtmlError(ValueError):
    """Text that Telegram would refuse with "can't parse entities"."""


@functools.lru_cache(maxsize=4096)  # a pure function of the text; the benches send many alike
def html_to_plain(text: str) -> str:
    """Return what a user sees for an HTML-mode text, or raise HtmlError like Telegram would.

    Only the four named entities Telegram knows are decoded; unknown ones stay literal, as on
    Telegram. Any "<" that does not start a supported tag is an error.
    """

    def offset(pos: int) -> int:
        return len(text[:pos].encode("utf-8"))

    out: list[str] = []
    stack: list[str] = []
    i, n = 0, len(text)
    while i < n:
        char = text[i]
        if char == "&":
            match = _ENTITY_RE.match(text, i)
            decoded = _decode_entity(match.group(1)) if match else None
            if match and decoded is not None:
                out.append(decoded)
                i = match.end()
            else:
                out.append("&")
                i += 1
            continue
        if char != "<":  # plain text, up to the next tag or entity
            special = _SPECIAL_RE.search(text, i)
            end = special.start() if special else n
            out.append(text[i:end])
            i = end
            continue
        begin = i
        i += 1
        if i >= n or text[i] != "/":
            j = i
            while j < n and not text[j].isspace() and text[j] != ">":
                j += 1
            if j >= n:
                raise HtmlError(f"Unclosed start tag at byte offset {offset(begin)}")
            name = text[i:j].lower()
            if name not in HTML_TAGS:
                raise HtmlError(f'Unsupported start tag "{name}" at byte offset {offset(begin)}')
            while j < n and text[j] != ">":
                if text[j] in "\"'":
                    close = text.find(text[j], j + 1)
                    if close < 0:
                        break
                    j = close
                j += 1
            if j >= n:
                raise HtmlError(f"Unclosed start tag at byte offset {offset(begin)}")
            stack.append(name)
            i = j + 1
            continue
        if not stack:
            raise HtmlError(f"Unexpected end tag at byte offset {offset(begin)}")
        j = i + 1
        while j < n and not text[j].isspace() and text[j] != ">":
            j += 1
        name = text[i + 1 : j].lower()
        if name and name != stack[-1]:
            raise HtmlError(
                f"Unmatched end tag at byte offset {offset(begin)}, "
                f'expected "</{stack[-1]}>", found "</{name}>"'
            )
        while j < n and text[j].isspace():
            j += 1
        if j >= n or text[j] != ">":
            raise HtmlError(f"Unclosed end tag at byte offset {offset(begin)}")
        stack.pop()
        i = j + 1
    if stack:
        raise HtmlError(f"Can't find end tag corresponding to start tag {stack[-1]}")
    return "".join(out)


def _decode_entity(body: str) -> str | None:
    if body[0] != "#":
        return _NAMED_ENTITIES.get(body)
    code = int(body[2:], 16) if body[1] in "xX" else int(body[1:])
    if code == 0 or code > 0x10FFFF or 0xD800 <= code <= 0xDFFF:
        return None
    return chr(code)


def utf16_len(text: str) -> int:
    """Length in UTF-16 code units: the unit of Telegram's limits and entity offsets."""
    return len(text.encode("utf-16-le")) // 2


# --------------------------------------------------------------------------------------------
# State


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


@dataclass(frozen=True)
class CallbackAnswer:
    """An answerCallbackQuery the bot made for the query of ``user_id``."""

    query_id: str
    user_id: int | None
    text: str | None
    show_alert: bool
    url: str | None
    time: float


@dataclass
class _Failure:
    method: str | None
    chat_id: int | str | None
    status: int
    description: str
    parameters: JSONDict | None
    remaining: int


class FakeBotAPI(BaseRequest):
    """A ``BaseRequest`` that answers Bot API calls from memory; see the module docstring.

    ``clock`` stamps calls; by default it is the running loop's time, so virtual-time loops
    (looptime) and rate-limiter waits agree. ``latency`` is slept on every call so other tasks
    can interleave as they would over the network. ``strict_limits`` answers 429 as Telegram
    does when a group gets more than 20 calls in 60 s or the bot makes more than 30 calls to
    chats in one second (closed windows, on ``clock``; calls refused with 429 do not count).
    """

    def __init__(
        self,
        *,
        bot_id: int = 7_000_000_001,
        bot_username: str = "shbot_test_bot",
        bot_first_name: str = "SH Test Bot",
        clock: Callable[[], float] | None = None,
        latency: float = 0.0,
        strict_limits: bool = False,
    ) -> None:
        self.bot_id = bot_id
        self.bot_username = bot_username
        self.bot_first_name = bot_first_name
        self.latency = latency
        self.strict_limits = strict_limits
        self._clock = clock
        self.users: dict[int, JSONDict] = {}
        self.started: set[int] = set()
        self.blocked: set[int] = set()
        self.chats: dict[int, FakeChat] = {}
        self.store: dict[int, list[StoredMessage]] = {}
        self.calls: list[Call] = []
        self.unknown_calls: list[Call] = []
        self.answers: list[CallbackAnswer] = []
        self.callback_queries: dict[str, int] = {}  # query id -> user id, until answered
        self.commands: dict[tuple[str, str], list[JSONDict]] = {}
        self.descriptions: dict[tuple[str, str], str] = {}
        self.photos: list[SentPhoto] = []  # every image Telegram accepted, in order
        self.file_ids: dict[str, bytes] = {}  # file_id -> image, for sending one again
        self.uploads: dict[str, bytes] = {}  # the files of the call being answered
        self._failures: list[_Failure] = []
        # Called with (method, params) before each call is answered: a test makes the world
        # change at an exact moment (a store that dies while a message is on its way).
        self.before_call: Callable[[str, JSONDict], None] | None = None
        self._crash_in: int | None = None  # calls left before the process dies
        self._crash_delivered = True
        self.crashed = False  # the process died (every call raises Crashed until revive)
        self.crash_call: Call | None = None  # the call during which it died
        self._next_ids: dict[int, itertools.count[int]] = {}
        self._handlers: dict[str, Callable[[JSONDict], Any]] = {
            "getme": self._get_me,
            "sendmessage": self._send_message,
            "sendphoto": lambda p: fake_media.send_photo(self, p, StoredMessage),
            "editmessagemedia": lambda p: fake_media.edit_message_media(self, p),
            "editmessagetext": self._edit_message_text,
            "editmessagereplymarkup": self._edit_message_reply_markup,
            "deletemessage": self._delete_message,
            "deletemessages": self._delete_messages,
            "answercallbackquery": self._answer_callback_query,
            "setmycommands": self._set_my_commands,
            "deletemycommands": self._delete_my_commands,
            "getmycommands": self._get_my_commands,
            "setmydescription": lambda p: self._set_text("description", p),
            "getmydescription": lambda p: self._get_text("description", p),
            "setmyshortdescription": lambda p: self._set_text("short_description", p),
            "getmyshortdescription": lambda p: self._get_text("short_description", p),
            "setmyname": lambda p: self._set_text("name", p),
            "getmyname": lambda p: self._get_text("name", p),
            "getchat": self._get_chat,
            "getchatmember": self._get_chat_member,
            "getchatadministrators": self._get_chat_administrators,
            "getchatmembercount": self._get_chat_member_count,
            "pinchatmessage": self._pin_chat_message,
            "unpinchatmessage": self._unpin_chat_message,
            "unpinallchatmessages": self._unpin_all_chat_messages,
            "sendchataction": self._send_chat_action,
            "getupdates": lambda p: [],
            "setwebhook": lambda p: True,
            "deletewebhook": lambda p: True,
            "getwebhookinfo": lambda p: {
                "url": "",
                "has_custom_certificate": False,
                "pending_update_count": 0,
            },
            "close": lambda p: True,
            "logout": lambda p: True,
        }

    # ---- PTB plumbing ---------------------------------------------------------------------

    @property
    def token(self) -> str:
        """A well-formed token whose id part matches getMe, as PTB expects."""
        return f"{self.bot_id}:FAKE-TOKEN-for-tests"

    def application_builder(self) -> ApplicationBuilder[Any, Any, Any, Any, Any, Any]:
        """An ``ApplicationBuilder`` with this fake as both request backends; add the rest."""
        return ApplicationBuilder().token(self.token).request(self).get_updates_request(self)

    @property
    def read_timeout(self) -> float | None:
        return 5.0

    async def initialize(self) -> None:
        """Nothing to open: the 'network' is this object."""

    async def shutdown(self) -> None:
        """Nothing to close; state stays readable after the Application shut down."""

    async def do_request(
        self,
        url: str,
        method: str,
        request_data: RequestData | None = None,
        read_timeout: Any = BaseRequest.DEFAULT_NONE,
        write_timeout: Any = BaseRequest.DEFAULT_NONE,
        connect_timeout: Any = BaseRequest.DEFAULT_NONE,
        pool_timeout: Any = BaseRequest.DEFAULT_NONE,
    ) -> tuple[int, bytes]:
        """Answer one Bot API call as Telegram would: ``(http_status, json_bytes)``."""
        api_method = url.rsplit("/", 1)[-1]
        params = dict(request_data.parameters) if request_data is not None else {}
        for key in ("reply_markup", "commands", "scope", "media"):
            if isinstance(encoded := params.get(key), str):  # a caller passed encoded JSON
                params[key] = json.loads(encoded)
        chat_id = _normalize_chat_id(params.get("chat_id"))
        dies = self._dying(api_method, params, chat_id)
        await asyncio.sleep(self.latency)  # always yield, like a real round trip
        now = self.now()
        status, description, parameters, result = 200, None, None, None
        handler = self._handlers.get(api_method.lower())
        try:
            if self.before_call is not None:
                self.before_call(api_method, params)
            self._maybe_fail(api_method, chat_id)
            self._flood_check(api_method, chat_id, now)
            if handler is None:
                raise _bad(f"Bad Request: method {api_method} is not implemented by FakeBotAPI")
            self.uploads = fake_media.uploads(request_data)
            result = handler(params)
        except ApiError as exc:
            status, description, parameters = exc.status, exc.description, exc.parameters
        call = Call(api_method, params, chat_id, status, description, now, result)
        self.calls.append(call)
        if handler is None:
            self.unknown_calls.append(call)
        if dies:  # Telegram handled the call; its answer never reached the dead process
            self.crash_call = call
            raise Crashed(f"the bot died during call {api_method} (delivered)")
        if status == 200:
            body: JSONDict = {"ok": True, "result": result}
        else:
            body = {"ok": False, "error_code": status, "description": description}
            if parameters:
                body["parameters"] = parameters
        return status, orjson.dumps(body)  # compact UTF-8 JSON, as Telegram answers

    def now(self) -> float:
        """Timestamp for the call log: injected clock, else the running loop's time."""
        if self._clock is not None:
            return self._clock()
        try:
            return asyncio.get_running_loop().time()
        except RuntimeError:
            return time.monotonic()

    # ---- test controls --------------------------------------------------------------------

    def crash_at(self, n: int, *, delivered: bool = True) -> None:
        """The bot's process dies during its ``n``-th Bot API call from now (1: the next).

        ``delivered``: Telegram handles that call (it keeps the message or the edit) and the
        answer is lost on the way back; else the call never reaches Telegram. That call and
        every later one raise :class:`Crashed` (``crashed`` turns True, ``crash_call`` is
        the call) until :meth:`revive`: what Telegram received before stays."""
        if n < 1:
            raise ValueError("calls are counted from 1")
        self._crash_in, self._crash_delivered = n, delivered
        self.crashed, self.crash_call = False, None

    def revive(self) -> None:
        """A new bot process: calls go through again (a pending ``crash_at`` is dropped)."""
        self._crash_in, self.crashed = None, False

    def _dying(self, method: str, params: JSONDict, chat_id: int | str | None) -> bool:
        """Raise Crashed if the process is dead or dies before this call reaches Telegram;
        True if it dies once Telegram has handled this call."""
        if self.crashed:
            raise Crashed(f"the bot is dead: {method} never sent")
        if self._crash_in is None:
            return False
        self._crash_in -= 1
        if self._crash_in > 0:
            return False
        self._crash_in, self.crashed = None, True
        if self._crash_delivered:
            return True
        self.crash_call = Call(method, params, chat_id, 0, "never sent", self.now())
        raise Crashed(f"the bot died before call {method} reached Telegram")

    def fail_next(
        self,
        method: str | None = None,
        chat_id: int | str | None = None,
        retry_after: int = 1,
        times: int = 1,
    ) -> None:
        """Make the next ``times`` matching calls answer 429 Too Many Requests."""
        self.fail_next_with(
            429,
            f"Too Many Requests: retry after {retry_after}",
            method=method,
            chat_id=chat_id,
            times=times,
            parameters={"retry_after": retry_after},
        )

    def fail_next_with(
        self,
        status: int,
        description: str,
        *,
        method: str | None = None,
        chat_id: int | str | None = None,
        times: int = 1,
        parameters: JSONDict | None = None,
    ) -> None:
        """Make the next ``times`` matching calls fail with any status and description."""
        self._failures.append(
            _Failure(
                method.lower() if method else None,
                _normalize_chat_id(chat_id),
                status,
                description,
                parameters,
                times,
            )
        )

    def _maybe_fail(self, method: str, chat_id: int | str | None) -> None:
        for failure in self._failures:
            if failure.method not in (None, method.lower()):
                continue
            if failure.chat_id is not None and failure.chat_id != chat_id:
                continue
            failure.remaining -= 1
            if failure.remaining <= 0:
                self._failures.remove(failure)
            raise ApiError(failure.status, failure.description, failure.parameters)

    def _flood_check(self, method: str, chat_id: int | str | None, now: float) -> None:
        """With ``strict_limits``: a 429 for a call over Telegram's limits (see the module
        constants). ``calls`` is in time order, so only the last minute is looked at."""
        if not self.strict_limits:
            return
        grouped = method.lower() in GROUP_LIMITED_METHODS
        limited = grouped and isinstance(chat_id, int) and chat_id < 0
        overall, group, oldest = 0, 0, now
        for call in reversed(self.calls):
            if call.time < now - max(GROUP_PERIOD, OVERALL_PERIOD):
                break
            if call.status == 429:
                continue
            if call.chat_id is not None and call.time >= now - OVERALL_PERIOD:
                overall += 1
            if limited and call.chat_id == chat_id and call.method.lower() in GROUP_LIMITED_METHODS:
                group, oldest = group + 1, call.time
        if chat_id is not None and overall >= OVERALL_LIMIT:
            raise ApiError(429, TOO_MANY_REQUESTS.format(1), {"retry_after": 1})
        if group >= GROUP_LIMIT:
            wait = max(1, math.ceil(oldest + GROUP_PERIOD - now))
            raise ApiError(429, TOO_MANY_REQUESTS.format(wait), {"retry_after": wait})

    def add_user(self, user: JSONDict) -> None:
        """Make a user known (needed before the bot can reach or look them up)."""
        self.users[user["id"]] = dict(user)

    def add_chat(
        self,
        chat_id: int,
        *,
        title: str = "Test group",
        chat_type: str | None = None,
        username: str | None = None,
        bot_admin: bool = False,
    ) -> FakeChat:
        """Register a group; ids <= -10**12 are supergroups like Telegram's -100... ids."""
        if chat_id >= 0:
            raise ValueError("group chat ids are negative")
        kind = chat_type or ("supergroup" if chat_id <= -(10**12) else "group")
        chat = FakeChat(chat_id, kind, title=title, username=username)
        chat.bot_status = "administrator" if bot_admin else "member"
        self.chats[chat_id] = chat
        return chat

    def private_chat(self, user: JSONDict) -> FakeChat:
        """The private chat with ``user`` (registering the user)."""
        self.add_user(user)
        chat = self.chats.get(user["id"])
        if chat is None:
            chat = FakeChat(user["id"], "private", user=self.users[user["id"]])
            self.chats[user["id"]] = chat
        chat.user = self.users[user["id"]]
        return chat

    def set_admins(
        self, chat_id: int, *, creator: int | None = None, admins: Iterable[int] = ()
    ) -> None:
        """Configure who getChatMember/getChatAdministrators report as creator/admins."""
        chat = self.chats[chat_id]
        chat.admins = {uid: "administrator" for uid in admins}
        if creator is not None:
            chat.admins[creator] = "creator"

    def receive_message(
        self, chat_id: int, sender: JSONDict, text: str, entities: list[JSONDict] | None = None
    ) -> StoredMessage:
        """Store a message a user sent (so ids interleave with the bot's, and it can be
        deleted or replied to), returning it for the harness to wrap in an Update."""
        self.add_user(sender)
        chat = self.chats[chat_id]
        if chat.type != "private":
            chat.members.add(sender["id"])
        message = StoredMessage(
            chat=chat,
            message_id=self._next_message_id(chat_id),
            text=text,
            plain_text=text,
            parse_mode=None,
            reply_markup=None,
            date=int(time.time()),
            sender=dict(sender),
            from_bot=False,
            entities=list(entities or []),
        )
        self.store.setdefault(chat_id, []).append(message)
        return message

    def add_message(
        self,
        chat_id: int,
        message_id: int,
        text: str,
        *,
        from_bot: bool = True,
        sender: JSONDict | None = None,
        parse_mode: str | None = None,
        reply_markup: JSONDict | None = None,
        entities: list[JSONDict] | None = None,
        date: int | None = None,
        edit_count: int = 0,
        edit_date: int | None = None,
        history: list[str] | None = None,
        deleted: bool = False,
        pinned: bool = False,
    ) -> StoredMessage:
        """Put a message Telegram already holds into a known chat, with its own id: one sent
        before this fake existed (by an older bot, see tests/test_bot_upgrade.py). Ids must
        grow within a chat; later messages there get higher ids. The visible text is read
        from ``text`` as the parse mode says, so it must be valid (as it was when sent)."""
        chat = self.chats[chat_id]
        held = self.store.setdefault(chat_id, [])
        if held and held[-1].message_id >= message_id:
            raise ValueError(f"message {message_id} is not newer than those of chat {chat_id}")
        plain = text
        if parse_mode is not None and parse_mode.lower() == "html":
            plain = html_to_plain(text)
        if sender is None:
            sender = self._bot_user() if from_bot else None
        if sender is None:
            raise ValueError("a user's message needs its sender")
        message = StoredMessage(
            chat=chat,
            message_id=message_id,
            text=text,
            plain_text=plain,
            parse_mode=parse_mode,
            reply_markup=self._markup({"reply_markup": reply_markup}),
            date=int(time.time()) if date is None else date,
            sender=dict(sender),
            from_bot=from_bot,
            entities=list(entities or []),
            deleted=deleted,
            edit_count=edit_count,
            edit_date=edit_date,
            pinned=pinned,
            history=list(history or []),
        )
        held.append(message)
        following = next(self._next_ids.get(chat_id, itertools.count(1)))
        self._next_ids[chat_id] = itertools.count(max(following, message_id + 1))
        return message

    def migrate_chat(self, chat_id: int, new_id: int, by: JSONDict) -> tuple[FakeChat, JSONDict]:
        """The group ``chat_id`` is upgraded to the supergroup ``new_id`` by the user ``by``,
        as Telegram does it: members, admins and the bot move over; every later call naming
        the old id is refused with 400 and ``migrate_to_chat_id``. Returns the supergroup and
        the service messages Telegram delivers to the bot: one in the old group
        (``migrate_to_chat_id``), then one in the new supergroup (``migrate_from_chat_id``)."""
        old = self.chats[chat_id]
        if old.type != "group" or new_id > -(10**12):
            raise ValueError("only a basic group becomes a supergroup (-100... id)")
        new = self.add_chat(new_id, title=old.title or "Test group", chat_type="supergroup")
        new.members, new.admins = set(old.members), dict(old.admins)
        new.bot_status = old.bot_status
        old.migrated_to = new_id
        self.add_user(by)
        now = int(time.time())
        messages = [
            {
                "message_id": self._next_message_id(chat_id),
                "from": dict(by),
                "chat": old.to_dict(),
                "date": now,
                "migrate_to_chat_id": new_id,
            },
            {
                "message_id": self._next_message_id(new_id),
                "from": dict(by),
                "chat": new.to_dict(),
                "date": now,
                "migrate_from_chat_id": chat_id,
            },
        ]
        return new, {"old": messages[0], "new": messages[1]}

    def remove_bot(self, chat_id: int, by: JSONDict, status: str = "kicked") -> JSONDict:
        """``by`` removes the bot from the group ("kicked": banned, "left": removed or the
        bot left); from now on writing there is refused with 403. Returns the
        ``my_chat_member`` update Telegram sends the bot about it."""
        chat = self.chats[chat_id]
        if status not in ("kicked", "left"):
            raise ValueError("status is kicked or left")
        old_status, chat.bot_status = chat.bot_status, status
        self.add_user(by)
        return {
            "my_chat_member": {
                "chat": chat.to_dict(),
                "from": dict(by),
                "date": int(time.time()),
                "old_chat_member": _member_dict(self._bot_user(), old_status),
                "new_chat_member": _member_dict(self._bot_user(), status),
            }
        }

    def delete_chat(self, chat_id: int) -> None:
        """The group is gone (deleted): every call naming it answers 400 "chat not found".
        Its messages stay readable through :meth:`messages`."""
        del self.chats[chat_id]

    def register_callback_query(self, query_id: str, user_id: int) -> None:
        """Note a query Telegram would deliver, so answering it (once) is valid."""
        self.callback_queries[query_id] = user_id

    # ---- reading state --------------------------------------------------------------------

    def messages(
        self, chat_id: int, *, from_bot: bool | None = True, include_deleted: bool = False
    ) -> list[StoredMessage]:
        """Messages in a chat, oldest first; by default the bot's, not deleted."""
        return [
            m
            for m in self.store.get(chat_id, [])
            if (from_bot is None or m.from_bot == from_bot) and (include_deleted or not m.deleted)
        ]

    def last(self, chat_id: int, *, from_bot: bool | None = True) -> StoredMessage:
        """The newest visible (bot) message in a chat; LookupError if there is none."""
        found = self.messages(chat_id, from_bot=from_bot)
        if not found:
            raise LookupError(f"no {'bot ' if from_bot else ''}message in chat {chat_id}")
        return found[-1]

    def message(self, chat_id: int, message_id: int) -> StoredMessage:
        """The message with this id (deleted ones included); KeyError if never sent."""
        for m in self.store.get(chat_id, []):
            if m.message_id == message_id:
                return m
        raise KeyError(f"no message {message_id} in chat {chat_id}")

    def find_button(
        self, chat_id: int, *, text: str | None = None, data: str | None = None
    ) -> tuple[StoredMessage, JSONDict]:
        """The newest visible bot message with a matching button, and that button."""
        for m in reversed(self.messages(chat_id)):
            try:
                return m, m.button(text=text, data=data)
            except LookupError:
                continue
        raise LookupError(f"no button text={text!r} data={data!r} in chat {chat_id}")

    def answer_for(self, query_id: str) -> CallbackAnswer:
        """The answer the bot gave to one callback query; KeyError if unanswered."""
        for answer in self.answers:
            if answer.query_id == query_id:
                return answer
        raise KeyError(f"callback query {query_id} was not answered")

    @property
    def failed_calls(self) -> list[Call]:
        return [c for c in self.calls if not c.ok]

    def calls_to(
        self, method: str | None = None, chat_id: int | str | None = None, ok: bool | None = True
    ) -> list[Call]:
        """Logged calls filtered by method (case-insensitive), chat and success."""
        return [
            c
            for c in self.calls
            if (method is None or c.method.lower() == method.lower())
            and (chat_id is None or c.chat_id == chat_id)
            and (ok is None or c.ok == ok)
        ]

    def count(
        self, method: str | None = None, chat_id: int | str | None = None, ok: bool | None = True
    ) -> int:
        return len(self.calls_to(method, chat_id, ok))

    def _count_kind(self, methods: Collection[str], group: bool, chat_id: int | None) -> int:
        return sum(
            1
            for c in self.calls
            if c.ok
            and c.method.lower() in methods
            and isinstance(c.chat_id, int)
            and (c.chat_id < 0) == group
            and (chat_id is None or c.chat_id == chat_id)
        )

    def group_sends(self, chat_id: int | None = None) -> int:
        """Successful messages sent to groups (or to one group)."""
        return self._count_kind(SEND_METHODS, True, chat_id)

    def group_edits(self, chat_id: int | None = None) -> int:
        """Successful message edits in groups (or in one group)."""
        return self._count_kind(EDIT_METHODS, True, chat_id)

    def private_sends(self, user_id: int | None = None) -> int:
        """Successful messages sent to private chats (or to one user)."""
        return self._count_kind(SEND_METHODS, False, user_id)

    def private_edits(self, user_id: int | None = None) -> int:
        return self._count_kind(EDIT_METHODS, False, user_id)

    def callback_answers(self) -> int:
        return self.count("answerCallbackQuery")

    def max_calls_overall(self, seconds: float = OVERALL_PERIOD, *, chats: bool = True) -> int:
        """Most calls the bot made within any closed window of ``seconds`` (refused ones
        included): to any chat (Telegram's overall limit: 30 a second), or with ``chats``
        False every call, callback answers and calls without a chat too."""
        times = [c.time for c in self.calls if c.chat_id is not None or not chats]
        best, start = 0, 0
        for end, t in enumerate(times):
            while t - times[start] > seconds:
                start += 1
            best = max(best, end - start + 1)
        return best

    def max_calls_in_window(
        self, chat_id: int | str, seconds: float = 60.0, methods: Collection[str] | None = None
    ) -> int:
        """Most successful calls to one chat within any closed window of ``seconds``.

        Closed (both ends count) so that a limiter which is exactly at the limit shows it.
        """
        wanted = {m.lower() for m in methods} if methods is not None else None
        times = sorted(
            c.time
            for c in self.calls
            if c.ok and c.chat_id == chat_id and (wanted is None or c.method.lower() in wanted)
        )
        best, start = 0, 0
        for end, t in enumerate(times):
            while t - times[start] > seconds:
                start += 1
            best = max(best, end - start + 1)
        return best

    # ---- method implementations -----------------------------------------------------------

    def _bot_user(self) -> JSONDict:
        return {
            "id": self.bot_id,
            "is_bot": True,
            "first_name": self.bot_first_name,
            "username": self.bot_username,
        }

    def _get_me(self, _: JSONDict) -> JSONDict:
        return {
            **self._bot_user(),
            "can_join_groups": True,
            "can_read_all_group_messages": False,
            "supports_inline_queries": False,
            "can_connect_to_business": False,
            "has_main_web_app": False,
        }

    def _next_message_id(self, chat_id: int) -> int:
        return next(self._next_ids.setdefault(chat_id, itertools.count(1)))

    def _chat(self, params: JSONDict) -> FakeChat:
        chat_id = _normalize_chat_id(params.get("chat_id"))
        if isinstance(chat_id, str):
            for known in self.chats.values():
                if known.username and f"@{known.username}".lower() == chat_id.lower():
                    return known
            raise _bad(CHAT_NOT_FOUND)
        if chat_id is None:
            raise _bad("Bad Request: chat_id is empty")
        chat: FakeChat | None = self.chats.get(chat_id)
        if chat is None and chat_id > 0 and chat_id in self.users:
            chat = self.private_chat(self.users[chat_id])
        if chat is None:
            raise _bad(CHAT_NOT_FOUND)
        if chat.migrated_to is not None:
            raise ApiError(400, MIGRATED, {"migrate_to_chat_id": chat.migrated_to})
        return chat

    def _writable_chat(self, params: JSONDict) -> FakeChat:
        """The target chat, or the 403 Telegram gives when the bot may not write there."""
        chat = self._chat(params)
        if chat.type == "private":
            if chat.id in self.blocked:
                raise ApiError(403, BLOCKED)
            if chat.id not in self.started:
                raise ApiError(403, NOT_STARTED)
        elif chat.bot_status == "kicked":
            raise ApiError(403, KICKED if chat.type == "supergroup" else KICKED_GROUP)
        elif chat.bot_status == "left":
            raise ApiError(403, NOT_MEMBER if chat.type == "supergroup" else NOT_MEMBER_GROUP)
        return chat

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

    @staticmethod
    def _markup(params: JSONDict) -> JSONDict | None:
        markup = params.get("reply_markup")
        if not markup:
            return None
        for row in markup.get("inline_keyboard", []):
            for button in row:
                data = button.get("callback_data")
                if data is not None and not (
                    0 < len(data.encode("utf-8")) <= MAX_CALLBACK_DATA_BYTES
                ):
                    raise _bad(BUTTON_DATA_INVALID)
        return dict(markup)

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

    @staticmethod
    def _scope_key(params: JSONDict) -> tuple[str, str]:
        scope = params.get("scope") or {"type": "default"}
        return json.dumps(scope, sort_keys=True), params.get("language_code") or ""

    def _set_my_commands(self, params: JSONDict) -> bool:
        self.commands[self._scope_key(params)] = list(params.get("commands", []))
        return True

    def _delete_my_commands(self, params: JSONDict) -> bool:
        self.commands.pop(self._scope_key(params), None)
        return True

    def _get_my_commands(self, params: JSONDict) -> list[JSONDict]:
        return self.commands.get(self._scope_key(params), [])

    def _set_text(self, kind: str, params: JSONDict) -> bool:
        self.descriptions[(kind, params.get("language_code") or "")] = params.get(kind) or ""
        return True

    def _get_text(self, kind: str, params: JSONDict) -> JSONDict:
        return {kind: self.descriptions.get((kind, params.get("language_code") or ""), "")}

    def _get_chat(self, params: JSONDict) -> JSONDict:
        chat = self._chat(params)
        return {
            **chat.to_dict(),
            "accent_color_id": 0,
            "max_reaction_count": 11,
            "accepted_gift_types": {
                "unlimited_gifts": False,
                "limited_gifts": False,
                "unique_gifts": False,
                "premium_subscription": False,
                "gifts_from_channels": False,
            },
        }

    def _member(self, chat: FakeChat, user_id: int) -> JSONDict:
        if user_id == self.bot_id:
            return _member_dict(self._bot_user(), chat.bot_status)
        user = self.users.get(user_id)
        if user is None:
            raise _bad(USER_NOT_FOUND)
        if chat.type == "private":
            return _member_dict(user, "member")
        status = chat.admins.get(user_id) or ("member" if user_id in chat.members else "left")
        return _member_dict(user, status)

    def _get_chat_member(self, params: JSONDict) -> JSONDict:
        chat = self._chat(params)
        return self._member(chat, int(params.get("user_id", 0)))

    def _get_chat_administrators(self, params: JSONDict) -> list[JSONDict]:
        chat = self._chat(params)
        if chat.type == "private":
            raise _bad(NO_ADMINS_IN_PRIVATE)
        admins = [self._member(chat, uid) for uid in chat.admins if uid in self.users]
        if chat.bot_status == "administrator":
            admins.append(self._member(chat, self.bot_id))
        return admins

    def _get_chat_member_count(self, params: JSONDict) -> int:
        chat = self._chat(params)
        if chat.type == "private":
            return 2
        humans = chat.members | set(chat.admins)
        return len(humans) + (0 if chat.bot_status == "kicked" else 1)

    def _pin_chat_message(self, params: JSONDict) -> bool:
        chat = self._writable_chat(params)
        if chat.type != "private" and chat.bot_status != "administrator":
            raise _bad(PIN_RIGHTS)
        try:
            message = self.message(chat.id, int(params.get("message_id", 0)))
        except KeyError:
            raise _bad(PIN_NOT_FOUND) from None
        if message.deleted:
            raise _bad(PIN_NOT_FOUND)
        message.pinned = True
        return True

    def _unpin_chat_message(self, params: JSONDict) -> bool:
        chat = self._writable_chat(params)
        if chat.type != "private" and chat.bot_status != "administrator":
            raise _bad(PIN_RIGHTS)
        pinned = [m for m in self.store.get(chat.id, []) if m.pinned]
        if "message_id" in params:
            pinned = [m for m in pinned if m.message_id == int(params["message_id"])]
        if pinned:
            pinned[-1].pinned = False
        return True

    def _unpin_all_chat_messages(self, params: JSONDict) -> bool:
        chat = self._writable_chat(params)
        if chat.type != "private" and chat.bot_status != "administrator":
            raise _bad(PIN_RIGHTS)
        for message in self.store.get(chat.id, []):
            message.pinned = False
        return True

    def _send_chat_action(self, params: JSONDict) -> bool:
        self._writable_chat(params)
        return True


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
