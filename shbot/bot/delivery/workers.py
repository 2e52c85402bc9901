"""What the outbox keeps per chat: its worker's state and the plain replies it owes."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from telegram import InlineKeyboardMarkup


@dataclass
class Plain:
    """A plain reply (not game state): kept in memory only, coalesced by ``key``."""

    chat_id: int
    text: str
    markup: InlineKeyboardMarkup | None = None
    edit_id: int | None = None
    seq: int = 0


@dataclass
class _Chat:
    wake: asyncio.Event = field(default_factory=asyncio.Event)
    plain: dict[str, Plain] = field(default_factory=dict)
    unsaved_calls: list[float] = field(default_factory=list)
    unsaved_replies: list[float] = field(default_factory=list)
    reply_calls: list[float] = field(default_factory=list)
    retry_at: float = 0.0
    attempts: int = 0
    task: asyncio.Task[None] | None = None
