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

It is in parts, each a module of its own: :mod:`.fake_html` (Telegram's HTML parse mode,
UTF-16 lengths), :mod:`.fake_records` (chats, messages, the call log, error descriptions and
limits), and the mixins :class:`FakeBotAPI` combines: :mod:`.fake_queries` (the test's
window), :mod:`.fake_world` (the test's hand on users and chats), :mod:`.fake_chat_methods`
and :mod:`.fake_message_methods` (the Bot API methods; photos are in :mod:`.fake_media`).
This module keeps the request plumbing, failure and crash injection and the flood limits,
and re-exports every name it had before the split.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import orjson
from telegram.error import TimedOut
from telegram.ext import ApplicationBuilder
from telegram.request import BaseRequest, RequestData

from . import fake_media as fake_media
from .fake_chat_methods import ChatMethods
from .fake_errors import NOT_MODIFIED as NOT_MODIFIED
from .fake_errors import ApiError as ApiError
from .fake_errors import _bad as _bad
from .fake_html import _ENTITY_RE as _ENTITY_RE
from .fake_html import _NAMED_ENTITIES as _NAMED_ENTITIES
from .fake_html import _SPECIAL_RE as _SPECIAL_RE
from .fake_html import HTML_TAGS as HTML_TAGS
from .fake_html import HtmlError as HtmlError
from .fake_html import _decode_entity as _decode_entity
from .fake_html import html_to_plain as html_to_plain
from .fake_html import utf16_len as utf16_len
from .fake_media import SentPhoto as SentPhoto
from .fake_message_methods import MessageMethods
from .fake_queries import StateQueries
from .fake_records import ALERT_TOO_LONG as ALERT_TOO_LONG
from .fake_records import BLOCKED as BLOCKED
from .fake_records import BUTTON_DATA_INVALID as BUTTON_DATA_INVALID
from .fake_records import CANT_DELETE as CANT_DELETE
from .fake_records import CANT_EDIT as CANT_EDIT
from .fake_records import CHAT_NOT_FOUND as CHAT_NOT_FOUND
from .fake_records import DELETE_NOT_FOUND as DELETE_NOT_FOUND
from .fake_records import EDIT_METHODS as EDIT_METHODS
from .fake_records import EDIT_NOT_FOUND as EDIT_NOT_FOUND
from .fake_records import GROUP_LIMIT as GROUP_LIMIT
from .fake_records import GROUP_LIMITED_METHODS as GROUP_LIMITED_METHODS
from .fake_records import GROUP_PERIOD as GROUP_PERIOD
from .fake_records import KICKED as KICKED
from .fake_records import KICKED_GROUP as KICKED_GROUP
from .fake_records import MAX_CALLBACK_ANSWER_CHARS as MAX_CALLBACK_ANSWER_CHARS
from .fake_records import MAX_CALLBACK_DATA_BYTES as MAX_CALLBACK_DATA_BYTES
from .fake_records import MAX_TEXT_UTF16 as MAX_TEXT_UTF16
from .fake_records import MIGRATED as MIGRATED
from .fake_records import NO_ADMINS_IN_PRIVATE as NO_ADMINS_IN_PRIVATE
from .fake_records import NOT_MEMBER as NOT_MEMBER
from .fake_records import NOT_MEMBER_GROUP as NOT_MEMBER_GROUP
from .fake_records import NOT_STARTED as NOT_STARTED
from .fake_records import OVERALL_LIMIT as OVERALL_LIMIT
from .fake_records import OVERALL_PERIOD as OVERALL_PERIOD
from .fake_records import PARSE_ERROR as PARSE_ERROR
from .fake_records import PIN_NOT_FOUND as PIN_NOT_FOUND
from .fake_records import PIN_RIGHTS as PIN_RIGHTS
from .fake_records import QUERY_INVALID as QUERY_INVALID
from .fake_records import SEND_METHODS as SEND_METHODS
from .fake_records import TEXT_EMPTY as TEXT_EMPTY
from .fake_records import TEXT_TOO_LONG as TEXT_TOO_LONG
from .fake_records import TOO_MANY_REQUESTS as TOO_MANY_REQUESTS
from .fake_records import USER_NOT_FOUND as USER_NOT_FOUND
from .fake_records import Call as Call
from .fake_records import CallbackAnswer as CallbackAnswer
from .fake_records import FakeChat as FakeChat
from .fake_records import JSONDict as JSONDict
from .fake_records import StoredMessage as StoredMessage
from .fake_records import _member_dict as _member_dict
from .fake_records import _normalize_chat_id as _normalize_chat_id
from .fake_world import WorldControls


class Crashed(BaseException):
    """The bot's process died during a Bot API call (see :meth:`FakeBotAPI.crash_at`).

    A ``BaseException``, like the signal that kills a process: no ``except Exception`` of the
    bot or of PTB catches it, so the code of the dying process stops right there; the test
    discards the Application and starts a new one on the same store and the same fake."""


@dataclass
class _Failure:
    method: str | None
    chat_id: int | str | None
    status: int
    description: str
    parameters: JSONDict | None
    remaining: int


class FakeBotAPI(MessageMethods, ChatMethods, WorldControls, StateQueries, BaseRequest):
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
        """Make the next ``times`` matching calls fail with any status and description
        (status 0: the call times out, Telegram's answer never comes)."""
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
            if failure.status == 0:
                raise TimedOut(failure.description or None)
            raise ApiError(failure.status, failure.description, failure.parameters)

    def _flood_check(self, method: str, chat_id: int | str | None, now: float) -> None:
        """With ``strict_limits``: a 429 for a call over Telegram's limits (see the
        constants in :mod:`.fake_records`). ``calls`` is in time order, so only the last
        minute is looked at."""
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
