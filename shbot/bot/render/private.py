"""What one player reads in private: the secret role, hands, power prompts and results.

Built from the events addressed to that seat only.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from telegram import InlineKeyboardButton

from shbot.engine import FASCIST, HITLER, LIBERAL, Phase
from shbot.i18n import Translator
from shbot.table.model import Table

from .. import callbacks as cb
from .common import (
    button_name,
    chunk,
    markup,
    name,
    name_list,
    party_name,
    policy,
    policy_short,
    role_name,
)
from .rolecard import cheat_sheet


def role_lines(t: Translator, names: Sequence[str], data: dict[str, Any]) -> list[str]:
    """The role and what R2 lets this seat know of the others: the role message and /mylog
    say it in the same words."""
    role = data["role"]
    lines = [
        t._(
            "🤫 Your secret role in this game: <b>{role}</b> ({party}).",
            role=role_name(t, role),
            party=party_name(t, data["party"]),
        )
    ]
    if role == LIBERAL:
        lines.append(t._("You do not know who the Fascists are."))
    elif role == FASCIST:
        lines.append(t._("Hitler is {hitler}.", hitler=name(names, data["hitler"])))
        others = data.get("fascists", [])
        if others:
            lines.append(t._("Your fellow Fascists: {names}.", names=name_list(t, names, others)))
        else:
            lines.append(t._("You are the only ordinary Fascist."))
        if len(names) <= 6:  # R2.3: at 5 or 6 players Hitler knows the Fascist
            lines.append(t._("Hitler knows that you are a Fascist too."))
    elif "fascists" in data:
        lines.append(
            t._(
                "The Fascists are: {names}. They know you are Hitler.",
                names=name_list(t, names, data["fascists"]),
            )
        )
    else:
        lines.append(t._("You do not know who the Fascists are, but they know who you are."))
    return lines


def goal_line(t: Translator, role: str) -> str:
    if role == LIBERAL:
        return t._("Your goal: enact five Liberal policies, or find Hitler and execute him.")
    if role == FASCIST:
        return t._(
            "Your goal: enact six Fascist policies, or get Hitler elected Chancellor once "
            "three Fascist policies are enacted. Keep your identity secret."
        )
    return t._(
        "Your goal: be elected Chancellor once three Fascist policies are enacted, or "
        "help enact six. Stay alive and look like a Liberal."
    )


def role_text(t: Translator, table: Table, seat: int, data: dict[str, Any]) -> str:
    head, *knowledge = role_lines(t, table.names(), data)
    lines = [head, "", *knowledge, goal_line(t, data["role"])]
    if table.options.get("practice"):  # this chat is the table: there is no group
        lines += ["", t._("🎓 The whole game is played here, against computer players.")]
    else:
        lines += ["", t._("Play in the group; I will write to you here when you need to choose.")]
    lines += ["", cheat_sheet(t, table)]
    return "\n".join(lines)


def role_alert(t: Translator, table: Table, seat: int) -> str:
    """The short form for the "My role" button (a callback alert: at most 200 characters)."""
    game = table.game
    assert game is not None
    view = game.private_view(seat)
    names = [n if len(n) <= 16 else n[:15] + "…" for n in table.names()]
    role = view["role"]
    # One line each (no separator to translate); lists agree with their number of names.
    lines = [t._("You are {role}.", role=role_name(t, role))]
    fascists = view.get("fascists") or []
    listed = t._(", ").join(names[s] for s in fascists)
    if role == FASCIST:
        lines.append(t._("Hitler: {hitler}.", hitler=names[view["hitler"]]))
        if fascists:
            lines.append(
                t.ngettext(
                    "Fellow Fascist: {names}.",
                    "Fellow Fascists: {names}.",
                    len(fascists),
                    names=listed,
                )
            )
    elif role == HITLER and fascists:
        lines.append(
            t.ngettext("Fascist: {names}.", "Fascists: {names}.", len(fascists), names=listed)
        )
    # The result's own message can be lost (a crash before it went out): it is repeated here.
    for target, party in view.get("investigations", {}).items():
        lines.append(
            t._(
                "You investigated {player}: {party}.",
                player=names[target],
                party=party_name(t, party),
            )
        )
    return "\n".join(lines)[:200]


def hand_text(t: Translator, policies: Sequence[str]) -> str:
    return t._(", ").join(policy_short(t, p) for p in policies)


def president_hand_text(t: Translator, table: Table, policies: Sequence[str]) -> str:
    names = table.names()
    assert table.game is not None
    return t._(
        "🎩 You are President. You drew: {hand}.\nChoose one to discard; the other two go to "
        "Chancellor {chancellor}.",
        hand=hand_text(t, policies),
        chancellor=name(names, table.game.chancellor),
    )


def president_hand_keyboard(t: Translator, table: Table, policies: Sequence[str]) -> Any:
    return markup(  # a row each: two labels do not fit side by side on a phone in ja or fr
        [
            [
                InlineKeyboardButton(
                    t._("Discard {policy}", policy=policy_short(t, p)),
                    callback_data=cb.game_data(table.gid, table.step, cb.DISCARD, p),
                )
            ]
            for p in sorted(set(policies))
        ]
    )


def chancellor_hand_text(
    t: Translator, table: Table, policies: Sequence[str], veto: bool, refused: bool = False
) -> str:
    names = table.names()
    assert table.game is not None
    lines = [
        t._(
            "👔 You are Chancellor. President {president} passed you: {hand}.\nChoose the "
            "policy to enact; the other is discarded.",
            president=name(names, table.game.president),
            hand=hand_text(t, policies),
        )
    ]
    if refused:
        lines.append(t._("The President refused the veto: you must enact one of them."))
    elif veto:
        lines.append(t._("Veto power is unlocked: you may propose to discard both."))
    return "\n".join(lines)


def chancellor_hand_keyboard(
    t: Translator, table: Table, policies: Sequence[str], veto: bool
) -> Any:
    row = [
        InlineKeyboardButton(
            t._("Enact {policy}", policy=policy_short(t, p)),
            callback_data=cb.game_data(table.gid, table.step, cb.ENACT, p),
        )
        for p in sorted(set(policies))
    ]
    rows = [[button] for button in row]  # a row each, as the President's
    if veto:
        rows.append(
            [
                InlineKeyboardButton(
                    t._("✋ Propose a veto"),
                    callback_data=cb.game_data(table.gid, table.step, cb.VETO),
                )
            ]
        )
    return markup(rows)


def veto_question_text(t: Translator, table: Table) -> str:
    assert table.game is not None
    return t._(
        "✋ Chancellor {chancellor} proposes to veto this agenda. If you agree, both policies "
        "are discarded and the election tracker advances.",
        chancellor=name(table.names(), table.game.chancellor),
    )


def veto_question_keyboard(t: Translator, table: Table) -> Any:
    return markup(
        [
            [
                InlineKeyboardButton(
                    t._("Accept the veto"),
                    callback_data=cb.game_data(table.gid, table.step, cb.VETO_ANSWER, 1),
                ),
                InlineKeyboardButton(
                    t._("Refuse"),
                    callback_data=cb.game_data(table.gid, table.step, cb.VETO_ANSWER, 0),
                ),
            ]
        ]
    )


def power_prompt_text(t: Translator, phase: Phase) -> str:
    if phase is Phase.INVESTIGATE:
        return t._("🔍 Investigate Loyalty: choose a player. You alone will see their party.")
    if phase is Phase.SPECIAL_ELECTION:
        return t._("🗳 Special Election: choose the next presidential candidate.")
    return t._("💀 Execution: choose the player to execute.")


def power_keyboard(t: Translator, table: Table) -> Any:
    game = table.game
    assert game is not None
    names = table.names()
    buttons = [
        InlineKeyboardButton(
            button_name(names, s), callback_data=cb.game_data(table.gid, table.step, cb.TARGET, s)
        )
        for s in game.power_targets()
    ]
    return markup(chunk(buttons, 2))


def step_prompt(t: Translator, table: Table) -> tuple[str, Any]:
    """The private prompt of the current private step (its text and keyboard), for the
    seat that acts (``prompt_seat``): in the chat (``delivery/slots.py``) and on the Mini
    App's page (``shbot/webapp/actions.py``), the same words and buttons."""
    game = table.game
    assert game is not None
    phase = game.phase
    if phase is Phase.PRESIDENT_DISCARD:
        return (
            president_hand_text(t, table, game.hand),
            president_hand_keyboard(t, table, game.hand),
        )
    if phase is Phase.CHANCELLOR_ENACT:
        veto = game.veto_unlocked and not game.veto_refused
        return (
            chancellor_hand_text(t, table, game.hand, veto, refused=game.veto_refused),
            chancellor_hand_keyboard(t, table, game.hand, veto),
        )
    if phase is Phase.VETO_RESPONSE:
        return veto_question_text(t, table), veto_question_keyboard(t, table)
    return power_prompt_text(t, phase), power_keyboard(t, table)


def done_discard_text(t: Translator, discarded: str, passed: Sequence[str]) -> str:
    return t._(
        "🎩 You discarded a {policy} and passed {hand} to the Chancellor.",
        policy=policy(t, discarded),
        hand=hand_text(t, passed),
    )


def done_enact_text(t: Translator, enacted: str) -> str:
    return t._("👔 You enacted a {policy}.", policy=policy(t, enacted))


def investigation_text(t: Translator, table: Table, target: int, party: str) -> str:
    return t._(
        "🔍 {player} is a member of the <b>{party}</b>.",
        player=name(table.names(), target),
        party=party_name(t, party),
    )


def peek_text(t: Translator, policies: Sequence[str]) -> str:
    return t._(
        "👁 The top three policies of the draw pile, in order: {hand}.", hand=hand_text(t, policies)
    )


def done_text(t: Translator, table: Table, done: list[Any]) -> str:
    """What a closed private prompt says was done (``done`` as the table stored it)."""
    kind = done[0]
    names = table.names()
    if kind == "discard":
        return done_discard_text(t, done[1], done[2])
    if kind == "enact":
        return done_enact_text(t, done[1])
    if kind == "veto":
        return t._("✋ You proposed a veto. The President decides.")
    if kind == "veto_answer":
        return (
            t._("✋ You accepted the veto: both policies are discarded.")
            if done[1]
            else t._("You refused the veto: the Chancellor must enact a policy.")
        )
    if kind == "investigate":
        return investigation_text(t, table, done[1], done[2])
    if kind == "special":
        return t._(
            "🗳 You chose {player} as the next presidential candidate.",
            player=name(names, done[1]),
        )
    return t._("💀 You executed {player}.", player=name(names, done[1]))
