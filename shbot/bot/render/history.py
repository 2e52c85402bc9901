"""The public history of a game and the game-over message (the engine's history holds only
public facts, R11)."""

from __future__ import annotations

from collections.abc import Sequence

from shbot.engine import Game
from shbot.i18n import Translator
from shbot.table.model import Table

from .claims import history_lines as claim_lines
from .claims import truth_lines
from .common import (
    POLICY_ICON,
    fit,
    name,
    policy_short,
    role_name,
)


def condition_text(t: Translator, condition: str) -> str:
    return {
        "five_liberal": t._("Five Liberal policies were enacted."),
        "hitler_executed": t._("Hitler was executed."),
        "six_fascist": t._("Six Fascist policies were enacted."),
        "hitler_elected": t._("Hitler was elected Chancellor after three Fascist policies."),
    }[condition]


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
    claimed = claim_lines(t, table)
    lines += ["", *claimed] if claimed else []
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
    lines = [winner, condition_text(t, game.condition.value), *final_tracks(t, game)]
    lines += ["", t._("<b>Roles</b>")]
    for seat, role in enumerate(game.roles):
        dead = " 💀" if not game.alive[seat] else ""
        lines.append(f"{seat + 1}. {name(names, seat)} — {role_name(t, role)}{dead}")
    truth = truth_lines(t, table)  # before the history: a long game's history may be cut
    lines += ["", *truth] if truth else []
    lines += ["", t._("<b>History</b>")]
    lines.extend(history_lines(t, game, names))
    lines += ["", t._("Thanks for playing! /newgame starts another one.")]
    return fit("\n".join(lines))


def final_tracks(t: Translator, game: Game) -> list[str]:
    """The score at the end and the tiles left in the draw pile (no secret any more)."""
    left = "".join(POLICY_ICON[p] for p in reversed(game.draw))  # top first
    return [
        t._(
            "Final tracks: 🔵 {liberal}/5 · 🔴 {fascist}/6 · election tracker {tracker}/3",
            liberal=game.liberal,
            fascist=game.fascist,
            tracker=game.tracker,
        ),
        t._("Left in the draw pile ({count}): {tiles}", count=len(game.draw), tiles=left or "—"),
    ]


def last_game_text(t: Translator, table: Table) -> str:
    """/history once the game is over: the log and the claims against the truth, without
    the end card's roles and buttons (the end card is already in the chat)."""
    game = table.game
    assert game is not None and game.condition is not None
    lines = [t._("<b>History of the last game</b>"), condition_text(t, game.condition.value)]
    lines += final_tracks(t, game)
    lines += ["", *history_lines(t, game, table.names())]
    truth = truth_lines(t, table)
    lines += ["", *truth] if truth else []
    return fit("\n".join(lines))
