"""Telegram handlers by concern: lobby, play, info, admin (settings live in ``settings``)."""

from __future__ import annotations

from .admin import (
    cmd_cancelgame,
    cmd_lang,
    on_cancel_press,
    on_lang_press,
    on_migrate,
    on_my_chat_member,
    set_language,
)
from .common import Ctx, group_only, is_group, reply, svc
from .info import (
    cmd_board,
    cmd_help,
    cmd_history,
    cmd_ping,
    cmd_rules,
    cmd_unknown,
    help_text,
    on_error,
    on_invalid_press,
    on_rules_press,
    rules_keyboard,
    welcome_text,
)
from .lobby import cmd_join, cmd_leave, cmd_newgame, cmd_startgame, on_lobby_press
from .play import on_game_press, on_my_role
from .private_start import cmd_start

__all__ = [
    "Ctx",
    "cmd_board",
    "cmd_cancelgame",
    "cmd_help",
    "cmd_history",
    "cmd_join",
    "cmd_lang",
    "cmd_leave",
    "cmd_newgame",
    "cmd_ping",
    "cmd_rules",
    "cmd_start",
    "cmd_startgame",
    "cmd_unknown",
    "group_only",
    "help_text",
    "is_group",
    "on_cancel_press",
    "on_error",
    "on_game_press",
    "on_invalid_press",
    "on_lang_press",
    "on_lobby_press",
    "on_migrate",
    "on_my_chat_member",
    "on_my_role",
    "on_rules_press",
    "reply",
    "rules_keyboard",
    "set_language",
    "svc",
    "welcome_text",
]
