"""The board as a photo: its image and caption, and the Bot API calls that send and edit it.

With the picture style (table/board.py) the board slot is a photo whose caption is its key
(the seats' names by number, the marks' meanings); the outbox delivers it like any kept slot
(one latest-state slot, the same pacing and coalescing), calling :func:`deliver` instead of
sending text. A photo is kept current with ``editMessageMedia`` (image and caption in one
call); an edit Telegram refuses because the message is gone or holds no photo sends the
board anew, as the text path does.
"""

from __future__ import annotations

import hashlib
import html
import re
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from telegram import InputFile, InputMediaPhoto
from telegram.constants import ParseMode
from telegram.error import BadRequest, RetryAfter

from shbot.i18n import N_, Translator
from shbot.table import Table
from shbot.table import board as table_board

from .. import render as r
from ..render import picture

if TYPE_CHECKING:
    from .pacer import Pacer
    from .slots import Rendered

MAX_CAPTION = 1024  # Telegram's limit, in UTF-16 code units of the visible text
NAME_CUTS = (24, 12, 6, 2)  # shorter names, in turn, while a caption is too long
_TAG = re.compile(r"<[^>]*>")
#: Refusals after which the board is sent anew: the message is gone, or it holds no photo.
#: What Telegram says when an edit cannot be made and the message is sent anew instead.
EDIT_ANEW = ("not found", "can't be edited")
_SEND_ANEW = (*EDIT_ANEW, "no media")


def kept_after_refused_edit(
    exc: BadRequest, pacer: Pacer, chat_id: int, anew: tuple[str, ...]
) -> bool:
    """What an edit's 400 means: True when the message already shows it ("not modified");
    False when it is gone or cannot be edited (one of ``anew``): send it anew, once the
    chat's window allows (a ``RetryAfter(0)`` until then). Anything else, a chat that is
    gone included, is raised again."""
    text = str(exc).lower()
    if "not modified" in text:
        return True
    if "chat not found" in text or not any(s in text for s in anew):
        raise exc
    if pacer.ready_at(chat_id) > pacer.clock():
        raise RetryAfter(0) from exc  # send anew when the window allows
    return False


def board_photo(table: Table) -> bytes | None:
    """The board's PNG for a table with the picture style (None: the text board). Drawn on
    the event loop: a game's pictures reuse the bands the previous ones drew (about 0.4 ms
    each; a picture from nothing, about 4 ms, once a game), less than a hop to a thread
    would cost."""
    if table.game is None or table_board.style(table) != table_board.PICTURE:
        return None
    return picture.render(picture.facts(table.game.public_view(), table.names()))


def board_caption(t: Translator, table: Table) -> str:
    """The picture's key (see :func:`_caption`), within Telegram's 1,024 characters: long
    names are shortened if need be."""
    for cut in (None, *NAME_CUTS):
        text = _caption(t, table if cut is None else _short_names(table, cut))
        if visible_length(text) <= MAX_CAPTION:
            return text
    return r.board_text(t, table).split("\n", 1)[0]  # the header alone: never over


def _caption(t: Translator, table: Table) -> str:
    """What the picture cannot say, in two lines: whose seat is which number, and what the
    marks mean (at the end, the roles' colours). The round message carries the state."""
    game = table.game
    assert game is not None
    names = table.names()
    seats = r.on_one_line(t, [f"{seat + 1} {r.light_name(names, seat)}" for seat in range(game.n)])
    lines = [t._("<b>📋 Board</b> — {players} players", players=game.n) + "\n" + seats]
    if game.is_over:
        lines.append(f"<i>{t._(PICTURE_ROLES)}</i>")
    else:
        powers = [p for p in dict.fromkeys(game.public_view()["powers"]) if p]
        legend = [f"{r.POWER_ICON[p]} {r.power_name(t, p)}" for p in powers]
        lines.append(f"<i>{r.on_one_line(t, [*legend, t._(PICTURE_LEGEND)])}</i>")
    return "\n".join(lines)


#: What the picture's marks mean; one symbol, one meaning (the round message has the state).
PICTURE_LEGEND = N_(
    "⭐ President · 🔷 Chancellor · 🔒 term-limited · ✅ not Hitler · ❌ dead · ⊘ veto"
)
PICTURE_ROLES = N_("Roles: 🔵 Liberal · 🔴 Fascist · ⚫ Hitler · ❌ dead")


def _short_names(table: Table, cut: int) -> Table:
    short = replace(table, players=[replace(p, name=_cut(p.name, cut)) for p in table.players])
    short.game = table.game
    return short


def _cut(name: str, cut: int) -> str:
    return name if len(name) <= cut else name[: cut - 1] + "…"


def visible_length(text: str) -> int:
    """What Telegram counts of an HTML text: tags dropped, entities decoded, UTF-16."""
    plain = html.unescape(_TAG.sub("", text))
    return len(plain.encode("utf-16-le")) // 2


def digest(photo: bytes | None) -> bytes | None:
    """A short fingerprint of an image, so an edit that changes nothing costs no call."""
    return None if photo is None else hashlib.blake2b(photo, digest_size=12).digest()


async def deliver(
    raw: Callable[..., Awaitable[Any]],
    pacer: Pacer,
    count: Callable[[int], None],
    m: Rendered,
    markup: dict[str, Any] | None,
) -> int:
    """Send the board photo, or edit the kept one in place (image and caption); ``markup``
    is the keyboard as JSON."""
    assert m.photo is not None
    if m.edit_id is not None:
        count(m.chat_id)
        media = InputMediaPhoto(
            _file(m.photo, attach=True), caption=m.text, parse_mode=ParseMode.HTML
        )
        try:
            await raw(
                "editMessageMedia",
                media=media,
                chat_id=m.chat_id,
                message_id=m.edit_id,
                reply_markup=markup,
            )
            return m.edit_id
        except BadRequest as exc:
            if kept_after_refused_edit(exc, pacer, m.chat_id, _SEND_ANEW):
                return m.edit_id
    count(m.chat_id)
    message = await raw(
        "sendPhoto",
        chat_id=m.chat_id,
        photo=_file(m.photo),
        caption=m.text,
        parse_mode=ParseMode.HTML,
        reply_markup=markup,
        disable_notification=not m.notify,
    )
    return int(message["message_id"])


def _file(photo: bytes, *, attach: bool = False) -> InputFile:
    """The upload; inside an InputMedia it must be named by an ``attach://`` URI (a bare
    part named "media" is not found by Telegram)."""
    return InputFile(photo, filename="board.png", attach=attach)
