"""The group's view of a game: the full board and the round message.

Built only from public events, ``public_view`` and names: no secret reaches a template.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from shbot.engine import FASCIST, LIBERAL, Condition, Kind, Phase
from shbot.i18n import N_, Translator
from shbot.table.model import Table
from shbot.table.play import RECAP

from .. import callbacks as cb
from .claims import claim_line, earlier_lines
from .common import (
    POLICY_ICON,
    POWER_ICON,
    button_name,
    chunk,
    fit,
    light_name,
    markup,
    name,
    name_list,
    on_one_line,
    policy,
    power_name,
    sentences,
)

#: The board shows only what changes with the policies, the tracker and the seats' fates; the
#: round message shows the rest (who governs, term limits, piles, deadline): few board edits.
SEAT_LEGEND = N_("✅ confirmed not Hitler · 💀 dead")


def board_text(t: Translator, table: Table) -> str:
    game = table.game
    assert game is not None
    view = game.public_view()
    names = table.names()
    lines = [t._("<b>📋 Board</b> — {players} players", players=game.n)]
    lib = "🔵" * view["liberal"] + "⬜" * (5 - view["liberal"])
    lines.append(t._("Liberal policies: {track} {count}/5", track=lib, count=view["liberal"]))
    slots = []
    for i, power in enumerate(view["powers"]):
        if i < view["fascist"]:
            slots.append("🔴")
        elif i == 5:
            slots.append("🏁")
        else:
            slots.append(POWER_ICON[power] if power else "⬜")
    lines.append(
        t._("Fascist policies: {track} {count}/6", track="".join(slots), count=view["fascist"])
    )
    present = [p for p in dict.fromkeys(view["powers"]) if p]
    legend = on_one_line(t, [f"{POWER_ICON[p]} {power_name(t, p)}" for p in present])
    lines.append(f"<i>{legend}</i>")
    if view["veto_unlocked"]:
        lines.append(t._("✋ Veto power is unlocked."))
    else:
        lines.append(t._("<i>Veto power unlocks with the fifth Fascist policy.</i>"))
    tracker = "●" * view["tracker"] + "○" * (3 - view["tracker"])
    lines.append(t._("Election tracker: {dots} {count}/3", dots=tracker, count=view["tracker"]))
    lines.append("")
    for seat in range(game.n):
        mark = "💀" if not view["alive"][seat] else "✅" if view["confirmed"][seat] else ""
        lines.append(f"{seat + 1}. {light_name(names, seat)} {mark}".rstrip())
    lines.append(f"<i>{t._(SEAT_LEGEND)}</i>")
    return fit("\n".join(lines))


def board_keyboard(t: Translator, table: Table) -> InlineKeyboardMarkup | None:
    if table.game is None or table.game.is_over:
        return None
    return markup(
        [
            [
                InlineKeyboardButton(
                    t._("🂠 My role"), callback_data=cb.game_data(table.gid, 0, cb.MY_ROLE)
                )
            ]
        ]
    )


def event_line(t: Translator, kind: str, d: dict[str, Any], names: Sequence[str]) -> str | None:
    """One line of the public round log, or None for events shown otherwise (and for
    entries that are not engine events, such as a closed round's recap)."""
    try:
        k = Kind(kind)
    except ValueError:
        return None
    if k is Kind.NOMINATED:
        return t._(
            "{president} nominated {chancellor} for Chancellor.",
            president=name(names, d["president"]),
            chancellor=name(names, d["chancellor"]),
        )
    if k is Kind.VOTE_RESULT:
        ja = [s for s, v in enumerate(d["votes"]) if v == 1]
        nein = [s for s, v in enumerate(d["votes"]) if v == 0]
        verdict = (
            t._("✅ The government is elected.")
            if d["elected"]
            else t._("❌ The government is rejected.")
        )
        return "\n".join(
            [
                t._("Ja! ({count}): {names}", count=len(ja), names=name_list(t, names, ja)),
                t._("Nein! ({count}): {names}", count=len(nein), names=name_list(t, names, nein)),
                verdict,
            ]
        )
    if k is Kind.CONFIRMED_NOT_HITLER:
        return t._("{player} is confirmed not Hitler.", player=name(names, d["seat"]))
    if k is Kind.TRACKER_ADVANCED:
        return t._("Election tracker: {count}/3.", count=d["tracker"])
    if k is Kind.POLICY_ENACTED:
        return t._("📜 A {policy} was enacted.", policy=policy(t, d["policy"]))
    if k is Kind.CHAOS:
        return t._(
            "🌪 Three governments failed in a row: the top policy of the pile, a {policy}, is "
            "enacted. No power is granted and term limits are cleared.",
            policy=policy(t, d["policy"]),
        )
    if k is Kind.DECK_RESHUFFLED:
        return t._(
            "🔀 The discard pile was shuffled into the draw pile ({count} tiles).",
            count=d["draw"],
        )
    if k is Kind.VETO_UNLOCKED:
        return t._("✋ Veto power is now unlocked.")
    if k is Kind.VETO_PROPOSED:
        return t._(
            "✋ Chancellor {chancellor} proposes to veto this agenda.",
            chancellor=name(names, d["chancellor"]),
        )
    if k is Kind.VETO_ACCEPTED:
        return t._(
            "✋ President {president} agreed: both policies are discarded.",
            president=name(names, d["president"]),
        )
    if k is Kind.VETO_REFUSED:
        return t._(
            "President {president} refused the veto: the Chancellor must enact a policy.",
            president=name(names, d["president"]),
        )
    if k is Kind.POWER_GRANTED:
        return t._(
            "⚡ President {president} gains a power: {power}.",
            president=name(names, d["president"]),
            power=power_name(t, d["power"]),
        )
    if k is Kind.INVESTIGATED:
        return t._(
            "🔍 {president} investigated the loyalty of {target}.",
            president=name(names, d["president"]),
            target=name(names, d["target"]),
        )
    if k is Kind.SPECIAL_ELECTION:
        return t._(
            "🗳 {president} called a special election: {target} is the next presidential candidate.",
            president=name(names, d["president"]),
            target=name(names, d["target"]),
        )
    if k is Kind.PEEKED:
        return t._(
            "👁 {president} looked at the top three policies of the draw pile.",
            president=name(names, d["president"]),
        )
    if k is Kind.EXECUTED:
        return t._(
            "💀 {president} executed {target}.",
            president=name(names, d["president"]),
            target=name(names, d["target"]),
        )
    return None


def round_text(t: Translator, table: Table) -> str:
    """The current round's message: header, what happened so far, the board at a glance,
    and who we wait for."""
    game = table.game
    assert game is not None
    names = table.names()
    header_ev = next((e for e in table.round_log if e[0] == Kind.ROUND_STARTED.value), None)
    rnd = header_ev[1]["round"] if header_ev else game.round
    pres = header_ev[1]["president"] if header_ev else game.president
    lines = [
        t._(
            "<b>Round {round}</b> · Presidential candidate: {president}",
            round=rnd,
            president=name(names, pres),
        )
    ]
    if header_ev and header_ev[1].get("special"):
        lines.append(t._("<i>(special election)</i>"))
    for kind, data in table.round_log:
        if kind == RECAP:
            told = sentences(t, log_lines(t, table, data["log"]))
            if told:
                lines.append(t._("↩ Round {round}: {events}", round=data["round"], events=told))
            if data.get("claims"):  # claims its message never showed (play._close_round)
                lines += earlier_lines(t, table, data["round"], own=True)
            continue
        lines += log_lines(t, table, [[kind, data]])
    lines += [line for line in (claim_line(t, table, rnd),) if line]
    lines += earlier_lines(t, table, rnd)
    if game.round == rnd and not game.is_over:
        lines += ["", glance_line(t, table)]
        lines += [line for line in (prompt_line(t, table), waiting_line(t, table)) if line]
    return fit("\n".join(lines))


def log_lines(t: Translator, table: Table, log: list[list[Any]]) -> list[str]:
    """The lines of a round log's public events (an execution that did not end the game
    says so)."""
    names = table.names()
    lines = []
    for kind, data in log:
        line = event_line(t, kind, data, names) if kind != RECAP else None
        if line:
            lines.append(line)
        if kind == Kind.EXECUTED.value and not hitler_executed(table, data["target"]):
            lines.append(
                t._(
                    "{player} was not Hitler: the game goes on.", player=name(names, data["target"])
                )
            )
    return lines


def hitler_executed(table: Table, target: int) -> bool:
    """Whether executing ``target`` ended the game by killing Hitler (public: the game ends
    at once, R12, so it is the game's last execution); otherwise they were not Hitler."""
    game = table.game
    if game is None or not game.is_over or game.condition is not Condition.HITLER_EXECUTED:
        return False
    executions = [entry[2] for entry in game.history if entry[0] == "x"]
    return bool(executions) and executions[-1] == target


def glance_line(t: Translator, table: Table) -> str:
    """The board on one line: policies, tracker, the next Fascist power, the piles and the
    step's deadline (when the group plays with timers)."""
    game = table.game
    assert game is not None
    view = game.public_view()
    parts = [
        f"{POLICY_ICON[LIBERAL]} {view['liberal']}/5",
        f"{POLICY_ICON[FASCIST]} {view['fascist']}/6",
        t._("Tracker: {count}/3", count=view["tracker"]),
    ]
    if view["fascist"] < 5:
        power = view["powers"][view["fascist"]]
        effect = f"{POWER_ICON[power]} {power_name(t, power)}" if power else t._("no power")
        parts.append(t._("Next 🔴: {effect}", effect=effect))
    elif view["fascist"] == 5:
        parts.append(t._("Next 🔴: {effect}", effect=t._("🏁 Fascists win")))
    parts.append(
        t._(
            "Draw pile: {draw} · Discard pile: {discard}",
            draw=view["draw"],
            discard=view["discard"],
        )
    )
    if table.deadline is not None:
        parts.append(t._("⏰ until {time}", time=deadline_html(t, table.deadline)))
    return f"<i>{on_one_line(t, parts)}</i>"


def deadline_html(t: Translator, at: float) -> str:
    """A moment that each reader's Telegram shows in their own time zone (a date_time
    entity); older apps show the fallback, in UTC."""
    unix = int(at)
    fallback = t._("{time} UTC", time=time.strftime("%H:%M:%S", time.gmtime(unix)))
    return f'<tg-time unix="{unix}" format="T">{fallback}</tg-time>'


def mention(table: Table, seat: int) -> str:
    """The name of the player who must act, as a text mention: Telegram notifies them even
    though the round message itself is sent silently."""
    name_html = name(table.names(), seat)
    return f'<a href="tg://user?id={table.at(seat).id}">{name_html}</a>'


def waiting_line(t: Translator, table: Table) -> str | None:
    """During a vote, how many and who have voted and who not — never how:
    "🗳 2/3: ☑️ Alice, Léa · ⏳ Mika" (☑️: ✅ marks a player confirmed not Hitler).
    While a President nominates, who is term-limited (never the candidate: that misled)."""
    game = table.game
    assert game is not None
    names = table.names()
    view = game.public_view()
    if game.phase is Phase.NOMINATE:
        limited = [s for s in view["term_limited"] if view["alive"][s] and s != game.president]
        if not limited:
            return None
        # Translators: who cannot be nominated Chancellor now (one name or more).
        return t.ngettext(
            "⛔ Term-limited: {names}",
            "⛔ Term-limited: {names}",
            len(limited),
            names=t._(", ").join(light_name(names, s) for s in limited),
        )
    if game.phase is not Phase.VOTE:
        return None
    living = [s for s in range(game.n) if view["alive"][s]]
    voted = [s for s in living if view["voted"][s]]
    waiting = [s for s in living if not view["voted"][s]]
    parts = []
    if voted:
        parts.append("☑️ " + t._(", ").join(light_name(names, s) for s in voted))
    if waiting:
        parts.append("⏳ " + t._(", ").join(light_name(names, s) for s in waiting))
    # Translators: the vote's progress, "🗳 2/3: ☑️ Alice, Léa · ⏳ Mika".
    return t._(
        "🗳 {voted}/{living}: {lists}",
        voted=len(voted),
        living=len(living),
        lists=on_one_line(t, parts),
    )


def prompt_line(t: Translator, table: Table) -> str | None:
    """What the game waits for; the one person who must act is mentioned (during a vote
    everyone acts: the waiting line names them instead, without notifying anybody)."""
    game = table.game
    assert game is not None
    phase = game.phase
    names = table.names()
    p, c = name(names, game.president), name(names, game.chancellor)
    if phase is Phase.NOMINATE:
        return t._(
            "👉 {president}, nominate a Chancellor:", president=mention(table, game.president)
        )
    if phase is Phase.VOTE:
        return t._(
            "🗳 Vote on the government of President {president} and Chancellor {chancellor}.",
            president=p,
            chancellor=c,
        )
    if phase is Phase.CHANCELLOR_ENACT:
        return t._(
            "⏳ Chancellor {chancellor} is choosing the policy to enact, in private.",
            chancellor=mention(table, game.chancellor),
        )
    p = mention(table, game.president)
    if phase is Phase.PRESIDENT_DISCARD:
        return t._(
            "⏳ President {president} is choosing a policy to discard, in private.", president=p
        )
    if phase is Phase.VETO_RESPONSE:
        return t._("⏳ President {president} is deciding on the veto.", president=p)
    if phase is Phase.INVESTIGATE:
        return t._("⏳ President {president} is choosing whom to investigate.", president=p)
    if phase is Phase.SPECIAL_ELECTION:
        return t._(
            "⏳ President {president} is choosing the next presidential candidate.", president=p
        )
    if phase is Phase.EXECUTION:
        return t._("⏳ President {president} is choosing whom to execute.", president=p)
    return None


def round_keyboard(t: Translator, table: Table) -> InlineKeyboardMarkup | None:
    game = table.game
    assert game is not None
    names = table.names()
    if game.phase is Phase.NOMINATE:
        buttons = [
            InlineKeyboardButton(
                button_name(names, s),
                callback_data=cb.game_data(table.gid, table.step, cb.NOMINATE, s),
            )
            for s in game.eligible_chancellors()
        ]
        return markup(chunk(buttons, 2))
    if game.phase is Phase.VOTE:
        return markup(
            [
                [
                    InlineKeyboardButton(
                        t._("Ja!"), callback_data=cb.game_data(table.gid, table.step, cb.VOTE, 1)
                    ),
                    InlineKeyboardButton(
                        t._("Nein!"),
                        callback_data=cb.game_data(table.gid, table.step, cb.VOTE, 0),
                    ),
                ]
            ]
        )
    return None
