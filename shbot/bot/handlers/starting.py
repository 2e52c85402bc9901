"""Starting a game, the one way every start takes: the Start button, /startgame, a full
table and the join deadline (:mod:`.join_deadline`)."""

from __future__ import annotations

from telegram import CallbackQuery, Message

from shbot.i18n import Translator
from shbot.storage import NoGame
from shbot.table import Refusal, board, lobby
from shbot.table.outcome import Outcome

from ..timers_config import preset_seconds
from .common import Ctx, answer, answer_redelivered, refuse, svc


def press_key(query: CallbackQuery | None) -> str | None:
    """The key that recognises a press delivered twice (it rides in the commit's write)."""
    return f"cq:{query.id}" if query is not None else None


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
    s = svc(context)
    options = await start_options(context, chat_id)
    seed = s.new_seed()
    try:
        return await s.commit.run(
            chat_id,
            lambda tb: lobby.start(tb, user_id, admin, seed, options),
            update_key=press_key(query),
        )
    except NoGame:
        await answer(context, query, message, t._("There is no open game. /newgame opens one."))
    except Refusal as refusal:
        if refusal.code == "duplicate":
            await answer_redelivered(context, query)
        else:
            await refuse(context, query, message, t, refusal)
    return None
