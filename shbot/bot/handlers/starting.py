"""Starting a game, the one way every start takes: the Start button, /startgame, a full
table and the join deadline (:mod:`.join_deadline`)."""

from __future__ import annotations

from telegram import CallbackQuery, Message

from shbot.i18n import Translator
from shbot.table import board, lobby
from shbot.table.outcome import Outcome

from ..timers_config import preset_seconds
from .common import Ctx, commit_or_refuse, svc
from .members import drop_strangers


async def start_options(context: Ctx, chat_id: int) -> dict[str, object]:
    """The group's settings that shape the game being started (read at the start only)."""
    s = svc(context)
    group = await s.store.get_group(chat_id)
    return {
        "shuffle_seats": bool(group.get("shuffle_seats")),
        "rebalanced": bool(group.get("rebalanced")),
        "timer": preset_seconds(group.get("timers"), s.config.timers),
        "board": board.chosen(group.get("board")),
        "title": str(group.get("title") or ""),  # the way back from private chats
    }


async def commit_start(
    context: Ctx,
    chat_id: int,
    user_id: int,
    admin: bool,
    message: Message | None,
    query: CallbackQuery | None,
    t: Translator,
) -> Outcome | None:
    """Start the game with the group's settings; None once a refusal was answered (or the
    same press came twice)."""
    await drop_strangers(context, chat_id)
    options = await start_options(context, chat_id)
    seed = svc(context).new_seed()
    return await commit_or_refuse(
        context,
        chat_id,
        lambda tb: lobby.start(tb, user_id, admin, seed, options),
        message,
        query,
        t,
    )
