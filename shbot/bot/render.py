"""Texts and keyboards. Every user-visible word goes through a :class:`Translator`.

Group texts are built only from public events, the engine's ``public_view`` and names, so
a secret cannot reach the group through a template. Private texts are built from the
events addressed to one seat. Names are escaped and wrapped in a Unicode isolate so HTML
or right-to-left marks in a name cannot change the rest of the message.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from shbot.engine import FASCIST, HITLER, LIBERAL, Game, Kind, Phase, Reason
from shbot.i18n import LANGUAGE_NAMES, LANGUAGES, N_, Translator, esc
from shbot.table.model import FSI, PDI, Table

from . import callbacks as cb

MAX_TEXT = 4096
MAX_BUTTON_NAME = 24

POLICY_ICON = {LIBERAL: "🔵", FASCIST: "🔴"}
POWER_ICON = {"investigate": "🔍", "special_election": "🗳", "peek": "👁", "execution": "💀"}


def name(names: Sequence[str], seat: int | None) -> str:
    """A player's name for HTML text: escaped, isolated, bold."""
    if seat is None or seat < 0:
        return "—"
    return f"{FSI}<b>{esc(names[seat])}</b>{PDI}"


def button_name(names: Sequence[str], seat: int) -> str:
    raw = names[seat]
    if len(raw) > MAX_BUTTON_NAME:
        raw = raw[: MAX_BUTTON_NAME - 1] + "…"
    return f"{FSI}{raw}{PDI}"


def name_list(t: Translator, names: Sequence[str], seats: Sequence[int]) -> str:
    if not seats:
        return t._("nobody")
    return t._(", ").join(name(names, s) for s in seats)


def policy(t: Translator, p: str) -> str:
    return t._("🔵 Liberal policy") if p == LIBERAL else t._("🔴 Fascist policy")


def policy_short(t: Translator, p: str) -> str:
    return t._("🔵 Liberal") if p == LIBERAL else t._("🔴 Fascist")


def role_name(t: Translator, role: str) -> str:
    if role == LIBERAL:
        return t._("Liberal")
    if role == HITLER:
        return t._("Hitler")
    return t._("Fascist")


def party_name(t: Translator, party: str) -> str:
    return t._("Liberal party") if party == LIBERAL else t._("Fascist party")


def power_name(t: Translator, power: str) -> str:
    return {
        "investigate": t._("Investigate Loyalty"),
        "special_election": t._("Special Election"),
        "peek": t._("Policy Peek"),
        "execution": t._("Execution"),
    }[power]


def condition_text(t: Translator, condition: str) -> str:
    return {
        "five_liberal": t._("Five Liberal policies were enacted."),
        "hitler_executed": t._("Hitler was executed."),
        "six_fascist": t._("Six Fascist policies were enacted."),
        "hitler_elected": t._("Hitler was elected Chancellor after three Fascist policies."),
    }[condition]


def fit(text: str) -> str:
    """Telegram refuses texts over 4,096 characters; cut at a line break, never mid-tag."""
    if len(text) <= MAX_TEXT:
        return text
    cut = text.rfind("\n", 0, MAX_TEXT - 2)
    return text[: cut if cut > 0 else MAX_TEXT - 2] + "\n…"


def markup(rows: list[list[InlineKeyboardButton]]) -> InlineKeyboardMarkup | None:
    rows = [r for r in rows if r]
    return InlineKeyboardMarkup(rows) if rows else None


def chunk(buttons: list[InlineKeyboardButton], size: int) -> list[list[InlineKeyboardButton]]:
    return [buttons[i : i + size] for i in range(0, len(buttons), size)]


# ---------------------------------------------------------------------------------- lobby


def lobby_text(t: Translator, table: Table, *, closed: str | None = None) -> str:
    lines = [t._("<b>Secret Hitler</b> — a new game is open."), ""]
    host = table.player(table.host)
    if host is not None:
        lines.append(t._("Host: {host}", host=f"{FSI}{esc(host.name)}{PDI}"))
    lines.append(t._("Players ({count}/10):", count=len(table.players)))
    waiting = False
    for i, p in enumerate(table.players):
        mark = "✅" if p.ready else "⏳"
        waiting = waiting or not p.ready
        lines.append(f"{i + 1}. {mark} {FSI}{esc(p.name)}{PDI}")
    if not table.players:
        lines.append(t._("(nobody yet)"))
    lines.append("")
    if closed:
        lines.append(closed)
        return fit("\n".join(lines))
    if waiting:
        lines.append(
            t._(
                "⏳ These players still have to open a private chat with me, where I will "
                "send their secret role: tap “Open private chat”, then Start."
            )
        )
    lines.append(t._("Press Join to play. A game needs 5 to 10 players; the host starts it."))
    return fit("\n".join(lines))


def lobby_keyboard(
    t: Translator, table: Table, bot_username: str, chat_id: int | None = None
) -> InlineKeyboardMarkup | None:
    """Join/Leave/Start, and the deep link that opens the private chat and joins in one tap
    (it must name the group: a /start in private does not say where it came from)."""
    gid = table.gid
    rows = [
        [
            InlineKeyboardButton(t._("✋ Join"), callback_data=cb.game_data(gid, 0, cb.JOIN)),
            InlineKeyboardButton(t._("🚪 Leave"), callback_data=cb.game_data(gid, 0, cb.LEAVE)),
        ],
        [InlineKeyboardButton(t._("▶️ Start"), callback_data=cb.game_data(gid, 0, cb.START))],
    ]
    if bot_username:
        rows.append(
            [
                InlineKeyboardButton(
                    t._("💬 Open private chat"),
                    url=deep_link(bot_username, join_payload(chat_id, gid) if chat_id else gid),
                )
            ]
        )
    return markup(rows)


def deep_link(bot_username: str, payload: str) -> str:
    return f"https://t.me/{bot_username}?start={payload}"


def private_chat_keyboard(
    t: Translator, bot_username: str, payload: str
) -> InlineKeyboardMarkup | None:
    """One "Open private chat" button (none while the bot's username is unknown)."""
    if not bot_username:
        return None
    link = deep_link(bot_username, payload)
    return InlineKeyboardMarkup([[InlineKeyboardButton(t._("💬 Open private chat"), url=link)]])


def join_payload(chat_id: int, gid: str) -> str:
    """The /start payload that joins the lobby ``gid`` of ``chat_id`` ([A-Za-z0-9_-] only)."""
    return f"j{chat_id}_{gid}".replace("-", "m")


# ---------------------------------------------------------------------------------- board

SEAT_LEGEND = N_(
    "🎩 President · 👔 Chancellor · ⛔ term-limited · ✅ confirmed not Hitler · 💀 dead"
)


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
    legend = " · ".join(f"{POWER_ICON[p]} {power_name(t, p)}" for p in present)
    lines.append(f"<i>{legend}</i>")
    if view["veto_unlocked"]:
        lines.append(t._("✋ Veto power is unlocked."))
    else:
        lines.append(t._("<i>Veto power unlocks with the fifth Fascist policy.</i>"))
    tracker = "●" * view["tracker"] + "○" * (3 - view["tracker"])
    lines.append(t._("Election tracker: {dots} {count}/3", dots=tracker, count=view["tracker"]))
    lines.append(
        t._(
            "Draw pile: {draw} · Discard pile: {discard}",
            draw=view["draw"],
            discard=view["discard"],
        )
    )
    lines.append("")
    limited = set(view["term_limited"])
    for seat in range(game.n):
        marks = []
        if not view["alive"][seat]:
            marks.append("💀")
        else:
            if seat == view["president"]:
                marks.append("🎩")
            if seat == view["chancellor"]:
                marks.append("👔")
            if seat in limited:
                marks.append("⛔")
            if view["confirmed"][seat]:
                marks.append("✅")
        lines.append(f"{seat + 1}. {FSI}{esc(names[seat])}{PDI} {''.join(marks)}".rstrip())
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


# ---------------------------------------------------------------------------------- rounds


def event_line(t: Translator, kind: str, d: dict[str, Any], names: Sequence[str]) -> str | None:
    """One line of the public round log, or None for events shown otherwise."""
    k = Kind(kind)
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
    """The current round's message: header, what happened so far, and who we wait for."""
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
        line = event_line(t, kind, data, names)
        if line:
            lines.append(line)
    if game.round == rnd:
        prompt = prompt_line(t, game, names)
        if prompt:
            lines.append("")
            lines.append(prompt)
    return fit("\n".join(lines))


def prompt_line(t: Translator, game: Game, names: Sequence[str]) -> str | None:
    phase = game.phase
    p, c = name(names, game.president), name(names, game.chancellor)
    if phase is Phase.NOMINATE:
        return t._("👉 {president}, nominate a Chancellor:", president=p)
    if phase is Phase.VOTE:
        view = game.public_view()
        return t._(
            "🗳 Vote on the government of President {president} and Chancellor {chancellor}. "
            "Voted: {voted}/{needed}.",
            president=p,
            chancellor=c,
            voted=sum(view["voted"]),
            needed=game.alive_count,
        )
    if phase is Phase.PRESIDENT_DISCARD:
        return t._(
            "⏳ President {president} is choosing a policy to discard, in private.", president=p
        )
    if phase is Phase.CHANCELLOR_ENACT:
        return t._(
            "⏳ Chancellor {chancellor} is choosing the policy to enact, in private.", chancellor=c
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


# ---------------------------------------------------------------------------------- the end


def history_lines(t: Translator, game: Game, names: Sequence[str]) -> list[str]:
    """The public log (the engine's history holds only public facts, R11)."""
    out: list[str] = []
    for entry in game.history:
        tag = entry[0]
        if tag == "e":
            _, rnd, pres, chan, ballots = entry
            ja = ballots.count("j")
            nein = ballots.count("n")
            elected = ja * 2 > ja + nein
            out.append(
                t._(
                    "R{round}: {president} → {chancellor} · Ja! {ja} / Nein! {nein} · {verdict}",
                    round=rnd,
                    president=name(names, pres),
                    chancellor=name(names, chan),
                    ja=ja,
                    nein=nein,
                    verdict=t._("elected") if elected else t._("rejected"),
                )
            )
        elif tag == "p":
            out.append("   " + t._("enacted: {policy}", policy=policy_short(t, entry[1])))
        elif tag == "c":
            out.append("   " + t._("chaos: {policy}", policy=policy_short(t, entry[1])))
        elif tag == "v":
            out.append("   " + t._("vetoed"))
        elif tag == "i":
            out.append(
                "   "
                + t._(
                    "🔍 {president} investigated {target}",
                    president=name(names, entry[1]),
                    target=name(names, entry[2]),
                )
            )
        elif tag == "s":
            out.append(
                "   "
                + t._(
                    "🗳 {president} chose {target}",
                    president=name(names, entry[1]),
                    target=name(names, entry[2]),
                )
            )
        elif tag == "x":
            out.append(
                "   "
                + t._(
                    "💀 {president} executed {target}",
                    president=name(names, entry[1]),
                    target=name(names, entry[2]),
                )
            )
        elif tag == "peek":
            out.append("   " + t._("👁 {president} peeked", president=name(names, entry[1])))
    return out


def history_text(t: Translator, table: Table) -> str:
    game = table.game
    assert game is not None
    lines = [t._("<b>History so far</b>")]
    lines.extend(history_lines(t, game, table.names()) or [t._("Nothing has happened yet.")])
    return fit("\n".join(lines))


def game_over_text(t: Translator, table: Table) -> str:
    game = table.game
    assert game is not None and game.winner is not None and game.condition is not None
    names = table.names()
    winner = (
        t._("🏁 <b>The Liberals win!</b>")
        if game.winner.value == "liberal"
        else t._("🏁 <b>The Fascists win!</b>")
    )
    lines = [winner, condition_text(t, game.condition.value), "", t._("<b>Roles</b>")]
    for seat, role in enumerate(game.roles):
        dead = " 💀" if not game.alive[seat] else ""
        lines.append(f"{seat + 1}. {name(names, seat)} — {role_name(t, role)}{dead}")
    lines += ["", t._("<b>History</b>")]
    lines.extend(history_lines(t, game, names))
    lines += ["", t._("Thanks for playing! /newgame starts another one.")]
    return fit("\n".join(lines))


# ---------------------------------------------------------------------------------- private


def role_text(t: Translator, table: Table, seat: int, data: dict[str, Any]) -> str:
    names = table.names()
    role = data["role"]
    lines = [
        t._(
            "🤫 Your secret role in this game: <b>{role}</b> ({party}).",
            role=role_name(t, role),
            party=party_name(t, data["party"]),
        ),
        "",
    ]
    if role == LIBERAL:
        lines.append(t._("You do not know who the Fascists are."))
        lines.append(t._("Your goal: enact five Liberal policies, or find Hitler and execute him."))
    elif role == FASCIST:
        lines.append(t._("Hitler is {hitler}.", hitler=name(names, data["hitler"])))
        others = data.get("fascists", [])
        if others:
            lines.append(t._("Your fellow Fascists: {names}.", names=name_list(t, names, others)))
        else:
            lines.append(t._("You are the only ordinary Fascist."))
        lines.append(
            t._(
                "Your goal: enact six Fascist policies, or get Hitler elected Chancellor once "
                "three Fascist policies are enacted. Keep your identity secret."
            )
        )
    else:
        if "fascists" in data:
            lines.append(
                t._(
                    "The Fascists are: {names}. They know you are Hitler.",
                    names=name_list(t, names, data["fascists"]),
                )
            )
        else:
            lines.append(t._("You do not know who the Fascists are, but they know who you are."))
        lines.append(
            t._(
                "Your goal: be elected Chancellor once three Fascist policies are enacted, or "
                "help enact six. Stay alive and look like a Liberal."
            )
        )
    lines += ["", t._("Play in the group; I will write to you here when you need to choose.")]
    return "\n".join(lines)


def role_alert(t: Translator, table: Table, seat: int) -> str:
    """The short form for the "My role" button (a callback alert: at most 200 characters)."""
    game = table.game
    assert game is not None
    view = game.private_view(seat)
    names = [n if len(n) <= 16 else n[:15] + "…" for n in table.names()]
    role = view["role"]
    text = t._("You are {role}.", role=role_name(t, role))
    if role == FASCIST:
        text += " " + t._("Hitler: {hitler}.", hitler=names[view["hitler"]])
        if view.get("fascists"):
            text += " " + t._(
                "Fascists: {names}.", names=t._(", ").join(names[s] for s in view["fascists"])
            )
    elif role == HITLER and "fascists" in view:
        text += " " + t._(
            "Fascists: {names}.", names=t._(", ").join(names[s] for s in view["fascists"])
        )
    # The result's own message can be lost (a crash before it went out): it is repeated here.
    for target, party in view.get("investigations", {}).items():
        text += " " + t._(
            "You investigated {player}: {party}.", player=names[target], party=party_name(t, party)
        )
    return text[:200]


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
    return markup(
        [
            [
                InlineKeyboardButton(
                    t._("Discard {policy}", policy=policy_short(t, p)),
                    callback_data=cb.game_data(table.gid, table.step, cb.DISCARD, p),
                )
                for p in sorted(set(policies))
            ]
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
    rows = [row]
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


# ---------------------------------------------------------------------------------- refusals


def reason_text(t: Translator, reason: Reason) -> str:
    return {
        Reason.GAME_OVER: t._("This game is over."),
        Reason.NOT_YOUR_TURN: t._("It's not your turn."),
        Reason.WRONG_PHASE: t._("This step is already over."),
        Reason.NO_SUCH_SEAT: t._("This button is not valid."),
        Reason.DEAD_PLAYER: t._("Dead players cannot act or be chosen."),
        Reason.NOT_ELIGIBLE: t._("That player is term-limited and cannot be Chancellor."),
        Reason.SELF_TARGET: t._("You cannot choose yourself."),
        Reason.ALREADY_INVESTIGATED: t._("That player has already been investigated."),
        Reason.NOT_IN_HAND: t._("That policy is not in your hand."),
        Reason.VETO_LOCKED: t._("Veto power is not unlocked yet."),
        Reason.VETO_ALREADY_REFUSED: t._("The President already refused a veto this session."),
        Reason.BAD_ACTION: t._("This button is not valid."),
        Reason.BAD_SETUP: t._("This button is not valid."),
    }[reason]


def language_keyboard(scope: str) -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup(
        [
            [
                InlineKeyboardButton(
                    LANGUAGE_NAMES[code], callback_data=cb.free_data(cb.LANG, f"{scope}{code}")
                )
                for code in LANGUAGES
            ]
        ]
    )


# ---------------------------------------------------------------------------------- slots


def lobby_closed_text(t: Translator, closed: str, by: str | None = None) -> str:
    """The last line of a lobby that no longer takes players."""
    if closed == "started":
        return t._("▶️ The game has started!")
    if closed == "everybody_left":
        return t._("Everybody left: the game is cancelled.")
    if by:
        return t._("🛑 The game was cancelled by {name}.", name=f"{FSI}{esc(by)}{PDI}")
    return t._("🛑 The game was cancelled.")


def unreachable_text(t: Translator, player: str) -> str:
    return t._(
        "⚠️ I cannot write to {name} in private. {name}, please open a private chat with "
        "me and press Start: I will send you what you missed.",
        name=f"{FSI}{esc(player)}{PDI}",  # isolated, like every name
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


def plain_name(names: Sequence[str], seat: object) -> str:
    """A name for plain text (alerts): no HTML, isolated against bidi reordering."""
    if not isinstance(seat, int) or not 0 <= seat < len(names):
        return "?"
    return f"{FSI}{names[seat]}{PDI}"
