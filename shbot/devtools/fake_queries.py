"""Reading the fake Bot API: the test's window on "what the users saw".

The fake keeps every message per chat (text, markup, edits, deletions), every callback answer
and a timestamped log of every call; tests and benchmarks ask their questions here (the newest
message of a chat, the button to press, how many calls a group got in any minute). A mixin of
:class:`~.fake_telegram.FakeBotAPI`, which it only reads.
"""

from __future__ import annotations

from collections.abc import Collection

from .fake_records import (
    EDIT_METHODS,
    OVERALL_PERIOD,
    SEND_METHODS,
    Call,
    CallbackAnswer,
    FakeState,
    JSONDict,
    StoredMessage,
)


class StateQueries(FakeState):
    """Messages, callback answers and the call log, as a test reads them."""

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
        return most_within(times, seconds)

    def max_calls_in_window(
        self, chat_id: int | str, seconds: float = 60.0, methods: Collection[str] | None = None
    ) -> int:
        """Most successful calls to one chat within any closed window of ``seconds``.

        Closed (both ends count) so that a limiter which is exactly at the limit shows it.
        Without ``methods``, every call but the reads of a chat (getChatMember and the like:
        asking who is a member posts nothing, and no group's limit counts it).
        """
        wanted = {m.lower() for m in methods} if methods is not None else None
        times = sorted(
            c.time
            for c in self.calls
            if c.ok
            and c.chat_id == chat_id
            and (
                c.method.lower() in wanted
                if wanted is not None
                else c.method.lower() not in CHAT_READS
            )
        )
        return most_within(times, seconds)


#: Reads of a chat: they post nothing, so no group's rate limit counts them.
CHAT_READS = frozenset({"getchatmember", "getchatadministrators", "getchat", "getchatmembercount"})


def most_within(times: list[float], seconds: float) -> int:
    """Most of the sorted ``times`` within any closed window of ``seconds``."""
    best, start = 0, 0
    for end, t in enumerate(times):
        while t - times[start] > seconds:
            start += 1
        best = max(best, end - start + 1)
    return best
