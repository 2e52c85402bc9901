"""/mylog and the "What I know" button: a player's own knowledge, in private only.

The game is the player's current one, else the last one they played (remembered in their
settings when it started; finished games are found in the group's archive).
"""

from __future__ import annotations

import logging

from telegram import InlineKeyboardButton, InlineKeyboardMarkup, Update, User

from shbot.storage import Store, StoreError
from shbot.table import Table

from .. import callbacks as cb
from .. import render as r
from ..render import mylog as rm
from ..render.rolecard import back_alert
from .common import Ctx, informational, is_group, reply, svc

log = logging.getLogger(__name__)
#: At most this many messages per /mylog (a 10-player game and its whole story fit in 4).
MAX_PAGES = 8
WHOLE = "all"  # the argument of the summary's "The whole game" button


async def remember_game(store: Store, chat_id: int, table: Table) -> None:
    """A game started: each player's /mylog finds it later, also once it is archived.

    Best effort, off the press's path (the bot runs it as a task): a store outage here
    only means /mylog finds the game while it runs, not after its end."""
    try:
        for player in table.players:
            if player.id > 0:  # computer players read no /mylog
                await store.update_user(player.id, {"last_game": [chat_id, table.gid]})
    except StoreError:
        log.warning("could not remember game %s for /mylog", table.gid)


async def _tables(context: Ctx, user_id: int) -> list[Table]:
    """The tables that may hold the user's game, the most recent first."""
    store = svc(context).store
    chats: list[int] = []
    current = await store.player_chat(user_id)
    if current is not None:
        chats.append(current)
    last = (await store.get_user(user_id)).get("last_game")
    if isinstance(last, list) and len(last) == 2 and isinstance(last[0], int):
        chats.append(last[0])
    out = []
    for chat_id in dict.fromkeys(chats):
        record = await store.get_game(chat_id)
        if record is not None:
            out.append(Table.from_dict(record.data))
        out += [Table.from_dict(g.data) for g in await store.finished_games(chat_id, limit=5)]
    return out


async def find_game(context: Ctx, user_id: int, gid: str | None = None) -> tuple[Table, int] | None:
    """The user's table and seat: the game ``gid``, or their most recent started game."""
    for table in await _tables(context, user_id):
        seat = table.seat_of(user_id)
        if seat is not None and (gid is None or table.gid == gid):
            if table.ending == "cancelled" and table.game is not None:
                continue  # a cancelled game is told nothing more than it showed
            return table, seat
    return None


async def send_mylog(
    context: Ctx, user: User, gid: str | None = None, *, whole: bool = False
) -> bool:
    """Post what ``user`` knows of their game to their private chat; False: no game. A
    finished game gets a five-line summary with a button for the whole of it (``whole``)."""
    s = svc(context)
    t = await s.t_user(user)
    found = await find_game(context, user.id, gid)
    if found is None:
        return False
    table, seat = found
    game = table.game
    if not whole and game is not None and game.is_over and table.ending == "finished":
        button = InlineKeyboardButton(
            t._("📜 The whole game"), callback_data=cb.game_data(table.gid, 0, cb.MYLOG, WHOLE)
        )
        summary = "\n".join(rm.summary_lines(t, table, seat))
        s.outbox.post(user.id, summary, InlineKeyboardMarkup([[button]]), key="mylog:0")
        return True
    pages = rm.pages(rm.mylog_lines(t, table, seat))[:MAX_PAGES]
    for i, page in enumerate(pages):
        s.outbox.post(user.id, page, key=f"mylog:{i}")
    return True


@informational
async def cmd_mylog(update: Update, context: Ctx) -> None:
    """In private: the log. In a group: only a pointer to the private chat, no secret."""
    s = svc(context)
    chat, user, message = update.effective_chat, update.effective_user, update.effective_message
    if chat is None or user is None:
        return
    if is_group(chat):
        t = await s.t_group(chat.id, user)
        username = s.bot_username or context.bot.username or ""
        keyboard = r.private_chat_keyboard(t, username, "mylog")
        await reply(context, message, rm.mylog_in_group_text(t), keyboard, key="mylog")
        return
    if not await send_mylog(context, user):
        await reply(context, message, rm.no_mylog_text(await s.t_user(user)))


async def on_mylog_press(update: Update, context: Ctx) -> None:
    """ "📜 What I know" under the role message."""
    query = update.callback_query
    if query is None:
        return
    press = cb.parse(query.data)
    t = await svc(context).t_user(query.from_user)
    if not isinstance(press, cb.GamePress):
        await query.answer(t._("This button is not valid."), show_alert=True)
        return
    whole = press.arg == WHOLE
    if not await send_mylog(context, query.from_user, press.game_id, whole=whole):
        await query.answer(t._("This button belongs to a game that is over."), show_alert=True)
        return
    await query.answer()


async def on_back_press(update: Update, context: Ctx) -> None:
    """The role message's way back to a basic group: where the game is (no link exists)."""
    query = update.callback_query
    if query is None:
        return
    press = cb.parse(query.data)
    t = await svc(context).t_user(query.from_user)
    found = (
        await find_game(context, query.from_user.id, press.game_id)
        if isinstance(press, cb.GamePress)
        else None
    )
    if found is None:
        await query.answer(t._("This button belongs to a game that is over."), show_alert=True)
        return
    await query.answer(back_alert(t, found[0]), show_alert=True)
