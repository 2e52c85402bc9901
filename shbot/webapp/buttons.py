"""The "📋 Table" button under the board and the role message (only with the Mini App on).

Telegram allows a ``web_app`` button in private chats only; in a group the button is a
link to the bot's main Mini App with the group in its start parameter
(``t.me/<bot>?startapp=c<chat id>``: the host sets the Mini App's URL in @BotFather, see
the README), which Telegram opens signed for whoever taps it.
"""

from __future__ import annotations

from telegram import InlineKeyboardButton, InlineKeyboardMarkup, WebAppInfo

from shbot.i18n import Translator

from .access import start_param


def table_button(
    t: Translator, url: str, bot_username: str, game_chat: int, *, private: bool
) -> InlineKeyboardButton | None:
    """The button for a message in a private chat (``private``) or in the group; None when
    a group link cannot be made (the bot's username is not known yet)."""
    label = t._("📋 Table")
    if private:
        base = url if url.endswith("/") else f"{url}/"  # the page's own relative links
        return InlineKeyboardButton(label, web_app=WebAppInfo(f"{base}?chat={game_chat}"))
    if not bot_username:
        return None
    return InlineKeyboardButton(
        label, url=f"https://t.me/{bot_username}?startapp={start_param(game_chat)}"
    )


def with_table(
    markup: InlineKeyboardMarkup | None, button: InlineKeyboardButton | None
) -> InlineKeyboardMarkup | None:
    """``markup`` with the Table button as its last row."""
    if button is None:
        return markup
    rows = [list(row) for row in markup.inline_keyboard] if markup is not None else []
    return InlineKeyboardMarkup([*rows, [button]])
