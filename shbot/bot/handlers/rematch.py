"""🔁 Rematch under the end card: a new lobby in the group, the same players invited.

Only the group's last game offers it, and only while no game is open there: a stale or
repeated press gets a short toast and changes nothing (two presses at once: the store
creates one lobby, the other press finds it).
"""

from __future__ import annotations

from telegram import CallbackQuery, Update

from shbot.i18n import Translator
from shbot.storage import GameExists
from shbot.table import Refusal, Table
from shbot.table.rematch import rematch_lobby

from .. import callbacks as cb
from ..refusals import refusal_text
from .common import Ctx, is_group, is_person, player_from, svc


async def _last_game(context: Ctx, chat_id: int, gid: str, t: Translator) -> Table | str:
    """The group's last game if it is ``gid`` and nothing is open now; else a toast."""
    store = svc(context).store
    record = await store.get_game(chat_id)
    if record is not None:
        table = Table.from_dict(record.data)
        if table.ending != "finished":
            return t._(
                "A game is already open in this group. /board shows it; /cancelgame ends it."
            )
        return table if table.gid == gid else t._("This rematch is no longer offered.")
    finished = await store.finished_games(chat_id, limit=1)
    if finished and finished[0].data.get("gid") == gid:
        return Table.from_dict(finished[0].data)
    return t._("This rematch is no longer offered.")


async def _open(context: Ctx, query: CallbackQuery, chat_id: int, previous: Table) -> str:
    s = svc(context)
    user = query.from_user
    t = await s.t_user(user)
    busy = await s.store.player_chat(user.id)
    if busy is not None and busy != chat_id:
        return t._("You are already playing in another group.")
    settings = await s.store.get_user(user.id)
    table = rematch_lobby(previous, player_from(user, ready=bool(settings.get("dm"))))
    try:
        await s.commit.create(chat_id, table)
    except GameExists:
        return t._("A game is already open in this group. /board shows it; /cancelgame ends it.")
    await s.store.claim_player(user.id, chat_id)
    return t._("🔁 A new game is open: the same players are invited.")


async def on_rematch_press(update: Update, context: Ctx) -> None:
    query = update.callback_query
    if query is None or query.message is None:
        return
    s = svc(context)
    t = await s.t_user(query.from_user)
    press = cb.parse(query.data)
    chat = query.message.chat
    if not isinstance(press, cb.GamePress) or not is_group(chat):
        await query.answer(t._("This button is not valid."), show_alert=True)
        return
    if not is_person(query.from_user):
        await query.answer(refusal_text(t, Refusal("not_person")), show_alert=True)
        return
    if not await s.store.first_seen(f"cq:{query.id}"):
        return  # the same press delivered twice: answered once
    found = await _last_game(context, chat.id, press.game_id, t)
    text = found if isinstance(found, str) else await _open(context, query, chat.id, found)
    await query.answer(text[:200])
