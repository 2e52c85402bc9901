"""Refusals in words: each table refusal code as a short answer in the presser's language."""

from __future__ import annotations

from shbot.engine import Phase, Reason
from shbot.i18n import N_, Translator
from shbot.table import Refusal, Table

from . import render as r

PRIVATE_PHASE_VALUES = frozenset(
    {Phase.PRESIDENT_DISCARD.value, Phase.CHANCELLOR_ENACT.value, Phase.VETO_RESPONSE.value}
)
MAX_ALERT = 200  # characters in a callback query alert (Telegram)

_PLAIN: dict[str, str] = {
    "started": N_("The game has already started."),
    "joined": N_("You are already in this game."),
    "full": N_("The game is full (10 players)."),
    "started_leave": N_("The game has already started; you cannot leave now."),
    "not_in_game": N_("You are not in this game."),
    "not_host_start": N_("Only the host or a group admin can start the game."),
    "over_button": N_("This button belongs to a game that is over."),
    "over": N_("This game is over."),
    "not_playing": N_("You are not playing in this game."),
    "step_over": N_("This step is already over."),
    "invalid": N_("This button is not valid."),
    # A press beyond the flood guard's budget, when the presser was told nothing yet there.
    "flood": N_("Too many presses at once: this one changed nothing."),
    "claimed": N_("You have already made this claim."),
    "no_game": N_("No game is running. /newgame opens one."),
    "not_person": N_(
        "Only people can play: please post as yourself, not as the group or a channel."
    ),
    # Computer seats (shbot/table/seats.py).
    "not_host_bots": N_("Only the host or a group admin can add or remove computer players."),
    "no_bots": N_("There is no computer player to remove."),
    "no_humans": N_("A game needs at least one person; computer players cannot play alone."),
    "not_standin": N_("You are playing your seat yourself already."),
    "standin_already": N_("A computer player already plays for you."),
}

_OVER = _PLAIN["over"]
_UNREADY = N_(
    "Waiting for {names} to open a private chat with me (button “Open private "
    "chat”), so that I can send their secret roles."
)


def refusal_text(t: Translator, refusal: Refusal, table: Table | None = None) -> str:
    """What the presser is told; fits a callback alert (200 characters)."""
    code, p = refusal.code, refusal.params
    if code == "step_over" and "phase" in p and table is not None:
        return step_over_text(t, table, p)
    if code in _PLAIN:
        return t._(_PLAIN[code])
    if code == "too_few":
        return t.ngettext(
            "A game needs at least 5 players; {n} has joined.",
            "A game needs at least 5 players; {n} have joined.",
            p["n"],
            n=p["n"],
        )
    if code == "unready":
        # An alert holds 200 characters: shorten the names, never the sentence around them.
        room = MAX_ALERT - len(t._(_UNREADY, names=""))
        names = r.series(t, p["names"])
        if len(names) > room:
            names = names[: max(room - 1, 1)] + "…"
        return t._(_UNREADY, names=names)
    if code == "not_turn" and table is not None and "seat" in p:
        return t._("It's {name}'s turn, not yours.", name=r.plain_name(table.names(), p["seat"]))
    if code == "dead":
        return t._("You were executed: you no longer vote or play in this game.")
    if code == "same_vote":
        return vote_answer(t, bool(p["ja"]))
    if code == "illegal":
        return r.reason_text(t, Reason(p["reason"]))
    return t._("It's not your turn.")


def step_over_text(t: Translator, table: Table, p: dict[str, object]) -> str:
    """A late press told what happened since, in one line (a toast, not a pop-up)."""
    phase = str(p["phase"])
    names = table.names()
    president = r.plain_name(names, p["president"])
    chancellor = r.plain_name(names, p["chancellor"])
    if phase == Phase.NOMINATE.value:
        return t._("Too late: {president} is choosing a Chancellor now.", president=president)
    if phase == Phase.VOTE.value:
        return t._(
            "Too late: {president} already nominated {chancellor} — vote below.",
            president=president,
            chancellor=chancellor,
        )
    if phase in PRIVATE_PHASE_VALUES:
        return t._(
            "Too late: {president} and {chancellor} are in session now.",
            president=president,
            chancellor=chancellor,
        )
    if phase == Phase.GAME_OVER.value:
        return t._(_OVER)
    return t._("Too late: President {president} is using a power now.", president=president)


def vote_answer(t: Translator, ja: bool) -> str:
    return (
        t._("Your vote: Ja! You can change it until everyone has voted.")
        if ja
        else t._("Your vote: Nein! You can change it until everyone has voted.")
    )


def answer_text(t: Translator, code: str | None) -> str | None:
    """The toast for a change that went through."""
    if code == "joined":
        return t._("You joined the game.")
    if code == "left":
        return t._("You left the game.")
    if code in ("vote_ja", "vote_nein"):
        return vote_answer(t, code == "vote_ja")
    if code == "claimed":
        return t._("Your claim is shown in the group.")
    if code == "claim_held":
        return t._("Noted: the group will hear your claim once the session ends.")
    return None
