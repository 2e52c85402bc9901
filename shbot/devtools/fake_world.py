"""The test's hand on Telegram's side of the fake Bot API: users, chats and what they do.

A test sets the world up (users, groups and their admins) and changes it as Telegram's users
would (a user writes, a group becomes a supergroup, the bot is removed, a group is deleted);
these methods return what Telegram would deliver to the bot about it. The bot's own User and
the message ids of each chat live here too: both the world and the bot create messages. A
mixin of :class:`~.fake_telegram.FakeBotAPI`.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Iterable

from .fake_html import html_to_plain
from .fake_records import (
    FakeChat,
    FakeState,
    JSONDict,
    StoredMessage,
    _member_dict,
    checked_markup,
)


class WorldControls(FakeState):
    """Users, chats and admins the fake knows, and the changes a test makes to them."""

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

    def remove_member(self, chat_id: int, user_id: int, *, ban: bool = False) -> JSONDict:
        """``user_id`` leaves the group (or is banned): getChatMember says "left" ("kicked").
        Returns the ``chat_member`` update Telegram sends an admin bot about it."""
        chat = self.chats[chat_id]
        was = chat.admins.get(user_id) or "member"
        chat.members.discard(user_id)
        chat.admins.pop(user_id, None)
        if ban:
            chat.banned.add(user_id)
        user = self.users.get(user_id, {"id": user_id, "is_bot": False, "first_name": "?"})
        return {
            "chat_member": {
                "chat": chat.to_dict(),
                "from": dict(user),
                "date": int(time.time()),
                "old_chat_member": _member_dict(user, was),
                "new_chat_member": _member_dict(user, "kicked" if ban else "left"),
            }
        }

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
            reply_markup=checked_markup({"reply_markup": reply_markup}),
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

    def _bot_user(self) -> JSONDict:
        return {
            "id": self.bot_id,
            "is_bot": True,
            "first_name": self.bot_first_name,
            "username": self.bot_username,
        }

    def _next_message_id(self, chat_id: int) -> int:
        return next(self._next_ids.setdefault(chat_id, itertools.count(1)))
