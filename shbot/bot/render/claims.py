"""Claims in words: the private prompt, the round message's line, /history and the end card.

The prompt's buttons are the same fixed list for every seat and every hand (never ordered
or marked by what the seat saw). Group lines show claims and conflicts, both public; what
each sight really showed (``claims.revealed``) is empty until the game is over.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from shbot.engine import LIBERAL
from shbot.engine.claims import CHOICES, Claim, ClaimKind, Code, Conflict
from shbot.i18n import Translator
from shbot.table import claims
from shbot.table.model import Table

from .. import callbacks as cb
from .common import POLICY_ICON, chunk, markup, name, on_one_line, party_short, policy


def icons(policies: str) -> str:
    return "".join(POLICY_ICON[p] for p in policies)


def office(t: Translator, kind: ClaimKind) -> str:
    if kind is ClaimKind.DRAWN:
        return t._("President")
    if kind is ClaimKind.RECEIVED:
        return t._("Chancellor")
    # Lower case mid-line in French, as « (présidence) »: its own words, not the board's.
    if kind is ClaimKind.PEEKED:
        return t.pgettext("claim office", "Policy Peek")
    return t.pgettext("claim office", "Investigate Loyalty")


def said(t: Translator, names: Sequence[str], claim: Claim) -> str:
    """What a claim says, for the group: icons, or a party for an investigation."""
    if claim.kind is ClaimKind.NONE:
        return t._("🤐 no claim")
    if claim.kind is ClaimKind.INVESTIGATED:
        return t._(
            "{player} is {party}",
            player=name(names, claim.target),
            party=party_short(t, claim.party or ""),
        )
    return icons(claim.policies)


def reason(t: Translator, names: Sequence[str], c: Conflict) -> str:
    """A conflict's short reason (public facts and claims only)."""
    if c.code is Code.PAIR:
        return t._("⚠ the Chancellor's two policies must be two of the President's three")
    if c.code is Code.ENACTED:
        return t._(
            "⚠ a {policy} was enacted, but {player}'s claim has none",
            policy=policy(t, c.policy or ""),
            player=name(names, c.seat),
        )
    if c.code is Code.PARTY:
        return t._("⚠ the claim of round {round} gave this player the other party", round=c.other)
    if c.code is Code.DECK:
        return t._(
            "⚠ the pile held only {count} {icon} since it was last shuffled",
            count=c.held,
            icon=POLICY_ICON[c.policy or LIBERAL],
        )
    if c.policy is not None:
        return t._(
            "⚠ the {policy} of round {round} does not fit this peek",
            policy=policy(t, c.policy),
            round=c.other,
        )
    return t._("⚠ differs from the peek claimed in round {round}", round=c.other)


def claim_parts(t: Translator, table: Table, rnd: int) -> str | None:
    """The claims of round ``rnd`` and their conflicts, on one line; None without claims."""
    names = table.names()
    parts = []
    for k, seat, _ in claims.sights(table, rnd):
        claim = claims.claim_of(table, k)
        if claim is not None:
            kind = claims.parse_key(k)[1]
            parts.append(
                t._(
                    "{player} ({office}): {claim}",
                    player=name(names, seat),
                    office=office(t, kind),
                    claim=said(t, names, claim),
                )
            )
    if not parts:
        return None
    marks = [reason(t, names, c) for c in claims.all_conflicts(table) if c.round == rnd]
    line = on_one_line(t, parts)
    for mark in marks:
        # Translators: the claims of a round, then each ⚠ about them on a line of its own
        # (several in a row are hard to read on a phone on one line): "Léa (President):
        # 🔴🔴🔵 · Marc (Chancellor): 🔴🔵", then "⚠ the Chancellor's two policies must be …".
        line = t.pgettext(
            "claims, then a warning", "{claims}\n{warning}", claims=line, warning=mark
        )
    return line


def claim_line(t: Translator, table: Table, rnd: int) -> str | None:
    """The line the round's group message gets: "🗣 Léa (President): 🔴🔴🔵 · ..."."""
    parts = claim_parts(t, table, rnd)
    return None if parts is None else f"🗣 {parts}"


# ----------------------------------------------------------------------------- private


def prompt_text(t: Translator, table: Table, slot_key: str) -> str:
    rnd, kind = claims.parse_key(slot_key)
    claim = claims.claim_of(table, slot_key)
    held = claims.held(table, slot_key)
    if held is not None and held.kind is not ClaimKind.NONE:
        return t._(
            "🗣 Round {round}: you tell the group: {claim}. They hear it once the session ends.",
            round=rnd,
            claim=said(t, table.names(), held),
        )
    claim = claim or held
    if claim is not None and claim.kind is ClaimKind.NONE:
        return t._("🗣 Round {round}: you chose to make no claim.", round=rnd)
    if claim is not None:
        return t._(
            "🗣 Round {round}: you told the group: {claim}.",
            round=rnd,
            claim=said(t, table.names(), claim),
        )
    if kind is ClaimKind.DRAWN:
        return t._("🗣 Round {round}: what do you tell the group you drew as President?", round=rnd)
    if kind is ClaimKind.RECEIVED:
        return t._(
            "🗣 Round {round}: what do you tell the group the President passed you?", round=rnd
        )
    if kind is ClaimKind.PEEKED:
        return t._(
            "🗣 Round {round}: what do you tell the group you saw on the draw pile (top first)?",
            round=rnd,
        )
    target = next((s[2] for s in claims.sights(table, rnd) if s[0] == slot_key), None)
    return t._(
        "🗣 Round {round}: what do you tell the group about the party of {player}?",
        round=rnd,
        player=name(table.names(), target),
    )


def prompt_keyboard(t: Translator, table: Table, slot_key: str) -> InlineKeyboardMarkup | None:
    """The claims offered: the same fixed list whatever the seat saw, and "no claim"."""
    kind = claims.parse_key(slot_key)[1]

    def button(label: str, value: str | None) -> InlineKeyboardButton:
        step = claims.button_step(table, slot_key)
        data = cb.game_data(table.gid, step, cb.CLAIM, claims.encode(kind, value))
        return InlineKeyboardButton(label, callback_data=data)

    if kind is ClaimKind.INVESTIGATED:
        offered = [button(party_short(t, p), p) for p in CHOICES[kind]]
    else:
        offered = [button(icons(v), v) for v in CHOICES[kind]]
    return markup([*chunk(offered, 4), [button(t._("🤐 No claim"), None)]])


def prompt(
    t: Translator, table: Table, slot_key: str, shown: bool
) -> tuple[str, InlineKeyboardMarkup | None] | None:
    """The private claim prompt: buttons while the game runs and no claim was made."""
    game = table.game
    live = game is not None and not game.is_over and not table.ending
    claimed = claims.claim_of(table, slot_key) is not None
    held = claims.held(table, slot_key) is not None
    if not live and not claimed and not shown:
        return None  # the game ended before the prompt went out: nothing to ask
    rnd = claims.parse_key(slot_key)[0]
    if not live and held and not claimed:  # cancelled before the session ended
        return t._(
            "🗣 Round {round}: the game ended before the group heard your claim.", round=rnd
        ), None
    if not live and not claimed:
        return t._("🗣 Round {round}: the game ended before you made a claim.", round=rnd), None
    kb = None if claimed or held else prompt_keyboard(t, table, slot_key)
    return prompt_text(t, table, slot_key), kb


# ----------------------------------------------------------------------------- summaries


def history_lines(t: Translator, table: Table) -> list[str]:
    """/history while the game runs: the claims by round, with their conflicts."""
    rounds = sorted({claims.parse_key(k)[0] for k, _, _ in claims.sights(table)})
    lines = []
    for rnd in rounds:
        parts = claim_parts(t, table, rnd)
        if parts is not None:
            lines.append(t._("R{round}: {claims}", round=rnd, claims=parts))
    return [t._("<b>🗣 Claims</b>"), *lines] if lines else []


def earlier_lines(t: Translator, table: Table, rnd: int, *, own: bool = False) -> list[str]:
    """Round ``rnd``'s message lines for claims of earlier rounds made while it was the
    newest ("🗣 R3: ..."): their own round's message had scrolled away. ``own``: the claims
    of round ``rnd`` too, for the recap of a closed round in the next one's message."""
    lines = []
    for earlier in claims.told_in(table, rnd, own=own):
        parts = claim_parts(t, table, earlier)
        if parts is not None:
            lines.append("🗣 " + t._("R{round}: {claims}", round=earlier, claims=parts))
    return lines


def _truth(t: Translator, kind: ClaimKind, real: Any) -> str:
    if kind is ClaimKind.DRAWN:
        return t._("drew {hand}", hand=icons(real))
    if kind is ClaimKind.RECEIVED:
        return t._("received {hand}", hand=icons(real))
    if kind is ClaimKind.PEEKED:
        return t._("saw {hand}", hand=icons(real))
    return t._("saw {party}", party=party_short(t, real))


def lied(claim: Claim, real: Any) -> bool:
    """Whether a claim says other than its seat saw (a hand in any order; "no claim" never
    lies)."""
    if claim.kind is ClaimKind.NONE:
        return False
    if claim.kind is ClaimKind.INVESTIGATED:
        return claim.party != real
    return sorted(claim.policies) != sorted(str(real))


def truth_lines(t: Translator, table: Table) -> list[str]:
    """The end card: each claim next to what its seat really saw (only once it is over);
    a lie is marked ❗, and an investigation names whom it was about."""
    truth = claims.revealed(table)
    names = table.names()
    lines = []
    for k, seat, target in claims.sights(table):
        claim = claims.claim_of(table, k)
        if claim is None or k not in truth:
            continue
        rnd, kind = claims.parse_key(k)
        real = _truth(t, kind, truth[k])
        if kind is ClaimKind.INVESTIGATED and target is not None:
            real = t._(
                "saw that {player} is {party}",
                player=name(names, target),
                party=party_short(t, truth[k]),
            )
        # The sight's office or power, as in the 🗣 lines: two sights of one seat in one
        # round (a President's hand, then her peek) are told apart.
        if claim.kind is ClaimKind.NONE:
            line = t._(
                "R{round} · {player} ({office}) made no claim — {truth}",
                round=rnd,
                player=name(names, seat),
                office=office(t, kind),
                truth=real,
            )
        else:
            line = t._(
                "R{round} · {player} ({office}) claimed {claim} — {truth}",
                round=rnd,
                player=name(names, seat),
                office=office(t, kind),
                claim=said(t, names, claim),
                truth=real,
            )
        lines.append(f"❗ {line}" if lied(claim, truth[k]) else line)
    return [t._("<b>🗣 Claims and truth</b>"), *lines] if lines else []
