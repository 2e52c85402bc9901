"""Bot API error answers of the fake, shared by its modules (no import cycle between them)."""

from __future__ import annotations

from typing import Any

JSONDict = dict[str, Any]

NOT_MODIFIED = (
    "Bad Request: message is not modified: specified new message content and reply markup "
    "are exactly the same as a current content and reply markup of the message"
)


class ApiError(Exception):
    """A Bot API error answer; raised inside a method handler, turned into an HTTP reply."""

    def __init__(self, status: int, description: str, parameters: JSONDict | None = None):
        super().__init__(description)
        self.status = status
        self.description = description
        self.parameters = parameters


def _bad(description: str) -> ApiError:
    return ApiError(400, description)
