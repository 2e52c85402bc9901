"""Texts and keyboards, one module per screen family. Every user-visible word goes through
a :class:`Translator`.

- :mod:`.common`: names (escaped, isolated), policy and role words, keyboard helpers;
- :mod:`.lobby`: the lobby and the links to the private chat;
- :mod:`.table`: the group's board and round message;
- :mod:`.private`: the secret role, hands, power prompts and their results;
- :mod:`.history`: the history and the game-over message;
- :mod:`.reasons`: the engine's refusals in words;
- :mod:`.timers`: deadlines, reminders and /ping; :mod:`.settings`: /settings and /stats.

Group texts are built only from public events, the engine's ``public_view`` and names, so
a secret cannot reach the group through a template. Private texts are built from the
events addressed to one seat. Every public name is re-exported here:
``from shbot.bot import render as r; r.board_text(...)``.
"""

from shbot.i18n import esc
from shbot.table.model import FSI, PDI

from .common import (
    MAX_BUTTON_NAME,
    MAX_TEXT,
    POLICY_ICON,
    POWER_ICON,
    button_name,
    chunk,
    fit,
    language_keyboard,
    light_name,
    markup,
    name,
    name_list,
    party_name,
    plain_name,
    policy,
    policy_short,
    power_name,
    role_name,
)
from .history import (
    condition_text,
    final_tracks,
    game_over_text,
    history_lines,
    history_text,
    last_game_text,
)
from .lobby import (
    deep_link,
    join_payload,
    lobby_closed_text,
    lobby_keyboard,
    lobby_text,
    private_chat_keyboard,
    unreachable_text,
)
from .private import (
    chancellor_hand_keyboard,
    chancellor_hand_text,
    done_discard_text,
    done_enact_text,
    done_text,
    hand_text,
    investigation_text,
    peek_text,
    power_keyboard,
    power_prompt_text,
    president_hand_keyboard,
    president_hand_text,
    role_alert,
    role_text,
    veto_question_keyboard,
    veto_question_text,
)
from .reasons import reason_text
from .settings import (
    REBALANCED_CODES,
    SEAT_CODES,
    TIMER_CODES,
    VOTE_CODES,
    chat_arg,
    group_stats_text,
    parse_chat_arg,
    settings_keyboard,
    settings_text,
    timer_label,
    user_stats_text,
    vote_rule_label,
)
from .table import (
    SEAT_LEGEND,
    board_keyboard,
    board_text,
    deadline_html,
    event_line,
    glance_line,
    mention,
    prompt_line,
    round_keyboard,
    round_text,
    waiting_line,
)
from .timers import (
    nudge_text,
    ping_too_soon_text,
    reminder_text,
    timeout_private_prefix,
    timeout_text,
)

__all__ = [
    "FSI",
    "MAX_BUTTON_NAME",
    "MAX_TEXT",
    "PDI",
    "POLICY_ICON",
    "POWER_ICON",
    "REBALANCED_CODES",
    "SEAT_CODES",
    "SEAT_LEGEND",
    "TIMER_CODES",
    "VOTE_CODES",
    "board_keyboard",
    "board_text",
    "button_name",
    "chancellor_hand_keyboard",
    "chancellor_hand_text",
    "chat_arg",
    "chunk",
    "condition_text",
    "deadline_html",
    "deep_link",
    "done_discard_text",
    "done_enact_text",
    "done_text",
    "esc",
    "event_line",
    "final_tracks",
    "fit",
    "game_over_text",
    "glance_line",
    "group_stats_text",
    "hand_text",
    "history_lines",
    "history_text",
    "investigation_text",
    "join_payload",
    "language_keyboard",
    "last_game_text",
    "light_name",
    "lobby_closed_text",
    "lobby_keyboard",
    "lobby_text",
    "markup",
    "mention",
    "name",
    "name_list",
    "nudge_text",
    "parse_chat_arg",
    "party_name",
    "peek_text",
    "ping_too_soon_text",
    "plain_name",
    "policy",
    "policy_short",
    "power_keyboard",
    "power_name",
    "power_prompt_text",
    "president_hand_keyboard",
    "president_hand_text",
    "private_chat_keyboard",
    "prompt_line",
    "reason_text",
    "reminder_text",
    "role_alert",
    "role_name",
    "role_text",
    "round_keyboard",
    "round_text",
    "settings_keyboard",
    "settings_text",
    "timeout_private_prefix",
    "timeout_text",
    "timer_label",
    "unreachable_text",
    "user_stats_text",
    "veto_question_keyboard",
    "veto_question_text",
    "vote_rule_label",
    "waiting_line",
]
