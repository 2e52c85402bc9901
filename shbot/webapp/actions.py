"""Playing from the page: what the viewer may press now, and a press from the page.

The panels are built from the chat's own keyboards (``render.round_keyboard``, the private
step's ``render.step_prompt``, the claim prompts, "My role" under the board) and carry
their callback data, so the page cannot offer a button the chat does not. A press from the
page posts that data; :func:`act` hands it to the function the chat's handler calls for
the same button (``shbot/bot/presses.py``): the same checks, the same commit (what the
group and the private chats show follows from it, as for a press), the same answer.
The panels are part of the viewer's own view only: a hand never reaches another viewer.
"""

from __future__ import annotations

import re
from typing import Any

from telegram import InlineKeyboardMarkup

from shbot.bot import callbacks as cb
from shbot.bot import presses
from shbot.bot import render as r
from shbot.bot.render import claims as rc
from shbot.engine import Phase
from shbot.i18n import Translator
from shbot.table import PRIVATE_PHASES, Table, claims, prompt_seat

from .auth import WebUser

NONCE = re.compile(r"^[A-Za-z0-9_-]{1,24}$")


def _rows(markup: InlineKeyboardMarkup | None, chosen: str | None = None) -> list[list[Any]]:
    """A keyboard's callback buttons as the page draws them."""
    if markup is None:
        return []
    return [
        [
            {"label": b.text, "data": b.callback_data, "chosen": b.callback_data == chosen}
            for b in row
            if isinstance(b.callback_data, str)
        ]
        for row in markup.inline_keyboard
    ]


def panels(t: Translator, table: Table, seat: int | None) -> list[dict[str, Any]]:
    """What ``seat`` may press now, each with the text the chat shows with those buttons
    (kind: "group" — nominate or vote —, "private" — the hand, veto, a power —, "claim",
    "role"). Empty for a viewer who does not play, or a game not running."""
    game = table.game
    if game is None or seat is None or game.is_over or table.ending or table.at(seat).id < 0:
        return []
    out: list[dict[str, Any]] = []
    alive = bool(game.alive[seat])
    if alive and (
        game.phase is Phase.VOTE or (game.phase is Phase.NOMINATE and seat == game.president)
    ):
        vote = game.votes[seat] if game.phase is Phase.VOTE else -1
        chosen = cb.game_data(table.gid, table.step, cb.VOTE, vote) if vote >= 0 else None
        line = r.prompt_line(t, table)
        rows = _rows(r.round_keyboard(t, table), chosen)
        out.append({"kind": "group", "text": [line] if line else [], "rows": rows})
    # A person a computer plays for gets no private prompt in the chat (Table.owe): nor here.
    private = table.at(seat).id not in table.standins
    if private and game.phase in PRIVATE_PHASES and prompt_seat(game) == seat:
        text, markup = r.step_prompt(t, table)
        out.append({"kind": "private", "text": [text], "rows": _rows(markup)})
    for k, sight in claims.offered(table).items():
        if int(sight[0]) != seat or claims.claim_of(table, k) or claims.held(table, k):
            continue
        if not private and f"claim:{k}" not in table.shown:
            continue  # the computer claims for their seat
        out.append(
            {
                "kind": "claim",
                "text": [rc.prompt_text(t, table, k)],
                "rows": _rows(rc.prompt_keyboard(t, table, k)),
            }
        )
    out.append({"kind": "role", "text": [], "rows": _rows(r.board_keyboard(t, table))})
    return out


async def act(
    svc: Any, user: WebUser, t: Translator, chat_id: int, data: str, nonce: str
) -> dict[str, Any]:
    """A press from the page of ``chat_id`` (its viewer already checked: a player or a
    member), judged as the chat's button with this ``data``; the answer as the page shows it:
    ``ok`` (it changed the game, or "My role" was told), ``text`` (the press's answer), and
    ``alert`` (the chat would show a pop-up)."""
    press = cb.parse(data)
    key = f"wa:{user.id}:{nonce}"  # a page's retry of the same press is applied once
    if not isinstance(press, cb.GamePress):
        return _refused(t._("This button is not valid."), alert=True)
    if press.op in presses.MOVE_OPS:
        replies: list[presses.Reply] = []

        async def respond(reply: presses.Reply) -> None:
            replies.append(reply)

        await presses.game_press(svc, user.id, t, chat_id, press, key, respond)
        reply = replies[0]
        if reply.status == "gone":  # as for the chat's press: a lost game is told once
            await svc.lost_game(chat_id, press.game_id, None, reply.last_known)
            return _refused(t._("This button belongs to a game that is over."))
        return await _answer(svc, t, chat_id, reply)
    if press.op == cb.CLAIM:
        reply = await presses.claim_press(svc, user.id, t, chat_id, press, key)
        if reply.status == "gone":  # as for the chat's press: a lost game is told once
            await svc.lost_game(chat_id, press.game_id, None)
        return await _answer(svc, t, chat_id, reply)
    if press.op == cb.MY_ROLE:
        table = await presses.live_table(svc, chat_id)
        if table is None:
            return _refused(t._("This button belongs to a game that is over."))
        reply = presses.role_press(t, table, press, user.id)
        return {"ok": reply.status == "done", "text": reply.text, "alert": reply.alert}
    return _refused(t._("This button is not valid."), alert=True)


async def _answer(svc: Any, t: Translator, chat_id: int, reply: presses.Reply) -> dict[str, Any]:
    if reply.status == "done":
        return {"ok": True, "text": reply.text, "alert": False}
    if reply.status == "duplicate":  # the page sent it again: the first delivery answered
        return {"ok": True, "text": None, "alert": False}
    if reply.refusal is not None:
        text = await presses.refusal_words(svc, t, chat_id, reply.refusal)
        return _refused(text, alert=reply.alert)
    return _refused(reply.text)


def _refused(text: str | None, alert: bool = False) -> dict[str, Any]:
    return {"ok": False, "text": text, "alert": alert}
