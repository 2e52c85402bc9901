"""🔁 Rematch under the end card: a new lobby in the group, the same players invited.

Only the group's last game offers it, and only while no game is open there: a stale or
repeated press gets a short toast and changes nothing (two presses at once: the store
creates one lobby, the other press finds it).
"""

from __future__ import annotations

from telegram import Update, User

from shbot.i18n import Translator
from shbot.storage import GameExists
from shbot.table import Refusal, Table, lobby_clock
from shbot.table.rematch import rematch_lobby

from .. import callbacks as cb
from ..refusals import refusal_text
from .common import Ctx, is_group, is_person, player_from, svc
from .join_deadline import arm_lobby


def toast(t: Translator, code: str) -> str:
    """What the presser is told: "opened", or why nothing changed."""
    if code == "opened":
        return t._("🔁 A new game is open: the same players are invited.")
    if code == "open":
        return t._("A game is already open in this group. /board shows it; /cancelgame ends it.")
    if code == "busy":
        return t._("You are already playing in another group.")
    return t._("This rematch is no longer offered.")


async def _last_game(context: Ctx, chat_id: int, gid: str) -> Table | str:
    """The group's last game if it is ``gid`` and nothing is open now; else why not."""
    store = svc(context).store
    record = await store.get_game(chat_id)
    if record is not None:
        table = Table.from_dict(record.data)
        if table.ending != "finished":
            return "open"
        return table if table.gid == gid else "stale"
    finished = await store.finished_games(chat_id, limit=1)
    if finished and finished[0].data.get("gid") == gid:
        return Table.from_dict(finished[0].data)
    return "stale"


async def _open(context: Ctx, user: User, chat_id: int, previous: Table) -> str:
    s = svc(context)
    busy = await s.store.player_chat(user.id)
    if busy is not None and busy != chat_id:
        return "busy"
    settings = await s.store.get_user(user.id)
    table = rematch_lobby(previous, player_from(user, ready=bool(settings.get("dm"))))
    lobby_clock.set_deadline(table, lobby_clock.DEFAULT_MINUTES)  # as /newgame's lobby
    try:
        await s.commit.create(chat_id, table)
    except GameExists:
        return "open"
    arm_lobby(context.application, chat_id, table)
    await s.store.claim_player(user.id, chat_id)
    return "opened"


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
    found = await _last_game(context, chat.id, press.game_id)
    code = (
        found if isinstance(found, str) else await _open(context, query.from_user, chat.id, found)
    )
    await query.answer(toast(t, code))
