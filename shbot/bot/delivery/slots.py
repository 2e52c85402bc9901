"""What each owed slot shows: the table's newest state rendered in the reader's language.

The table layer names the messages a change owes (``Table.owe``); this module turns one
slot into the text and keyboard to send or edit, at the moment the rate limiter lets the
delivery worker send it, so a message always shows the newest committed state.
"""

from __future__ import annotations

import copy
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from telegram import InlineKeyboardMarkup

from shbot.engine import Phase
from shbot.i18n import Translator
from shbot.table import GROUP, PRIVATE_PHASES, Table, prompt_seat
from shbot.webapp.buttons import table_button, with_table

from .. import render as r
from ..render import claims as rc
from ..render import rolecard
from ..render import seats as rs
from ..render import timers as rt
from . import media

#: Slots edited in place later (their message id is kept); every other slot is sent once.
KEPT = ("lobby", "board", "round", "prompt", "claim")


@dataclass
class Rendered:
    chat_id: int
    text: str
    markup: InlineKeyboardMarkup | None
    edit_id: int | None  # edit this message; None: send a new one
    keep: bool  # remember the message id for later edits
    notify: bool = False  # ring the recipient's phone (private prompts, the person to act)
    photo: bytes | None = None  # a photo with ``text`` as its caption (the board picture)


def family(slot: str) -> str:
    return slot.split(":", 1)[0]


def target(group_id: int, entry: list[Any]) -> int:
    return group_id if entry[1] == GROUP else int(entry[1])


Lookup = Callable[[int], Awaitable[Translator]]


@dataclass
class SlotRenderer:
    """Renders slots of one group's table; translators are looked up per reader."""

    group_t: Translator
    user_t: Lookup
    bot_username: str
    webapp_url: str | None = None  # the Mini App's: a Table button on the board and role

    async def render(self, group_id: int, table: Table, slot: str) -> Rendered | None:
        entry = table.owed[slot]
        chat = target(group_id, entry)
        payload: dict[str, Any] = entry[2] or {}
        fam = family(slot)
        keep = fam in KEPT
        edit_id = table.shown.get(slot) if keep and not payload.get("new") else None
        t = self.group_t if chat == group_id else await self.user_t(chat)
        built = self._build(t, group_id, table, slot, fam, payload)
        if built is None:
            return None
        text, kb = built
        if self.webapp_url and fam in ("board", "role"):
            button = table_button(t, self.webapp_url, self.bot_username, group_id, private=chat > 0)
            kb = with_table(kb, button)
        if fam == "round" and payload.get("closed"):
            keep = False  # never edited again (claims go to the newest round's message)
        if fam == "prompt" and payload.get("done"):
            keep = False
        notify = fam in ("prompt", "role", "nudge") and not payload.get("done")
        photo = media.board_photo(table) if fam == "board" else None
        if photo is not None:
            text = media.board_caption(t, table)
        if entry[1] == group_id:  # a practice game: the person's own chat is the table's
            text = f"{rs.private_mark(t)}\n{text}"
        return Rendered(chat, text, kb, edit_id, keep, notify, photo)

    def _build(
        self,
        t: Translator,
        group_id: int,
        table: Table,
        slot: str,
        fam: str,
        d: dict[str, Any],
    ) -> tuple[str, InlineKeyboardMarkup | None] | None:
        game = table.game
        if fam == "lobby":
            return self._lobby(t, group_id, table, d)
        if game is None:
            return None
        names = table.names()
        live = not table.ending and not game.is_over
        if fam == "board":
            return r.board_text(t, table), r.board_keyboard(t, table) if live else None
        if fam == "round":
            return self._round(t, table, int(slot.split(":")[1]), d, live)
        if fam == "role":
            seat = int(slot.split(":")[1])
            return r.role_text(t, table, seat, d), rolecard.role_keyboard(t, table, group_id)
        if fam == "peek":
            return r.peek_text(t, d["policies"]), None
        if fam == "prompt":
            return self._prompt(t, table, int(slot.split(":")[1]), d, live)
        if fam == "claim":
            built = rc.prompt(t, table, slot.split(":", 1)[1], slot in table.shown)
            folded = table.talk.get("folded", {}).get(slot.split(":", 1)[1])
            if built is None or not folded:
                return built
            return f"{self._done(t, table, folded)}\n\n{built[0]}", built[1]
        if fam == "timeout":
            return rt.timeout_text(t, names, d), None
        if fam == "over":
            return r.game_over_text(t, table), rolecard.rematch_keyboard(t, table)
        if fam == "remind":
            return rt.reminder_text(t, table, d["seats"], d.get("seconds")), None
        if fam == "nudge":
            return rt.nudge_text(t, Phase(d["phase"]), d.get("seconds")), None
        if fam == "warn":
            player = table.player(int(slot.split(":")[1]))
            if player is None:
                return None
            return r.unreachable_text(t, player.name), r.private_chat_keyboard(
                t, self.bot_username, "resume"
            )
        if fam in rs.FAMILIES:
            return rs.build(t, table, fam, d)
        return None

    def _lobby(
        self, t: Translator, group_id: int, table: Table, d: dict[str, Any]
    ) -> tuple[str, InlineKeyboardMarkup | None]:
        closed = d.get("closed")
        if closed is None and table.ending:
            closed = "cancelled"
        if closed:
            text = r.lobby_closed_text(t, closed, d.get("by"), table)
            return r.lobby_text(t, table, closed=text), None
        return r.lobby_text(t, table), r.lobby_keyboard(t, table, self.bot_username, group_id)

    def _round(
        self, t: Translator, table: Table, number: int, d: dict[str, Any], live: bool
    ) -> tuple[str, InlineKeyboardMarkup | None]:
        game = table.game
        assert game is not None
        if d.get("closed") or number != game.round:
            snapshot = copy.copy(table)
            snapshot.round_log = d.get("log", [])
            past = game.clone()
            past.round = -1  # no current prompt in a closed round
            snapshot.game = past
            return r.round_text(t, snapshot), None
        return r.round_text(t, table), r.round_keyboard(t, table) if live else None

    @staticmethod
    def _done(t: Translator, table: Table, d: dict[str, Any]) -> str:
        """What a closed private prompt says was done (and that the clock did it)."""
        text = r.done_text(t, table, d["done"])
        if d.get("timeout"):
            text = f"{rt.timeout_private_prefix(t, Phase(d['timeout']))}\n{text}"
        return text

    def _prompt(
        self, t: Translator, table: Table, step: int, d: dict[str, Any], live: bool
    ) -> tuple[str, InlineKeyboardMarkup | None] | None:
        game = table.game
        assert game is not None
        if d.get("done") is not None:
            return self._done(t, table, d), None
        if step != table.step or not live or game.phase not in PRIVATE_PHASES:
            return None  # a prompt whose step ended before it was sent: nothing to ask
        if prompt_seat(game) != d.get("seat"):
            return None
        return r.step_prompt(t, table)  # the page offers the same (shbot/webapp/actions.py)
