"""Bot API methods about the bot and its chats, as the fake Bot API answers them.

getMe, getChat, the member and admin lookups, pins, sendChatAction, the bot's commands,
descriptions and name; and the lookup of the chat a call names, refused with the 400 or 403
Telegram gives (chat not found, migrated, blocked, not started, kicked), which the message
methods (:mod:`.fake_message_methods`) share. A mixin of :class:`~.fake_telegram.FakeBotAPI`.
"""

from __future__ import annotations

import json

from .fake_errors import ApiError, _bad
from .fake_queries import StateQueries
from .fake_records import (
    BLOCKED,
    CHAT_NOT_FOUND,
    KICKED,
    KICKED_GROUP,
    MIGRATED,
    NO_ADMINS_IN_PRIVATE,
    NOT_MEMBER,
    NOT_MEMBER_GROUP,
    NOT_STARTED,
    PIN_NOT_FOUND,
    PIN_RIGHTS,
    USER_NOT_FOUND,
    FakeChat,
    JSONDict,
    _member_dict,
    _normalize_chat_id,
)
from .fake_world import WorldControls


class ChatMethods(WorldControls, StateQueries):
    """Handlers of the Bot API methods about the bot and its chats (see the module docstring)."""

    def _get_me(self, _: JSONDict) -> JSONDict:
        return {
            **self._bot_user(),
            "can_join_groups": True,
            "can_read_all_group_messages": False,
            "supports_inline_queries": False,
            "can_connect_to_business": False,
            "has_main_web_app": False,
        }

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
        if user_id in chat.banned:
            return _member_dict(user, "kicked")
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
