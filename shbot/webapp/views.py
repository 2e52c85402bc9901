"""What the Mini App shows one viewer: the public table, and their own secret panel.

Pure functions of a :class:`~shbot.table.Table`, a seat (or none: a member of the group
who does not play) and a translator. The public part is built from what the group already
sees, with the same code: the engine's ``public_view`` (the board, as in the picture, and
who has voted, never how), the public entries of the table's log (the whole record, in the
words of the round messages), the claims with their conflict marks, and the roles only once
the game is over. The secret panel is :func:`shbot.table.knowledge.knowledge` of that seat
only, in the words of ``/mylog``. Texts are the bot's Telegram HTML (``<b>``, ``<i>``); the
page shows them through an allow-list of those tags, never as markup of its own.
"""

from __future__ import annotations

from typing import Any

from shbot.bot.render import claims as rc
from shbot.bot.render.common import role_name
from shbot.bot.render.history import condition_text, history_lines
from shbot.bot.render.mylog import fact_lines
from shbot.bot.render.picture import facts as board_facts
from shbot.bot.render.private import goal_line, role_lines
from shbot.bot.render.table import round_text
from shbot.engine import Kind
from shbot.i18n import Translator
from shbot.table import Table
from shbot.table.knowledge import ACT, Fact, knowledge, read

from . import svg
from .actions import panels
from .labels import labels

ROLE_SIDE = {"L": "liberal", "F": "fascist", "H": "hitler"}


def _lines(text: str) -> list[str]:
    return [line for line in text.split("\n") if line.strip()]


def status(table: Table) -> str:
    if table.game is None:
        return "cancelled" if table.ending else "lobby"
    if table.game.is_over:
        return "over"
    return "cancelled" if table.ending else "running"


def seats(t: Translator, table: Table, seat: int | None) -> list[dict[str, Any]]:
    """Each seat's name and public marks; roles only once the game is over (R10)."""
    game = table.game
    names = table.names()
    if game is None:
        return [  # a lobby: ``seat`` is the viewer's place in it
            {"n": i + 1, "name": n, "bot": p.id < 0, "you": i == seat}
            for i, (n, p) in enumerate(zip(names, table.players, strict=True))
        ]
    view = game.public_view()
    over = game.is_over
    vote = view["phase"] == "vote"
    out = []
    for s in range(game.n):
        gov = None
        if not over and s == view["president"]:
            gov = "president" if view["in_office"] else "candidate"
        elif not over and s == view["chancellor"] and (vote or view["in_office"]):
            gov = "chancellor" if view["in_office"] else "nominee"
        item: dict[str, Any] = {
            "n": s + 1,
            "name": names[s],
            "bot": table.at(s).id < 0,
            "you": s == seat,
            "alive": bool(view["alive"][s]),
            "confirmed": bool(view["confirmed"][s]),
            "limited": s in view["term_limited"] and not over,
            "gov": gov,
            "voted": bool(view["voted"][s]) if vote and view["alive"][s] else None,
        }
        if over:  # the whole table sees every role at the end, and not before
            item["role"] = role_name(t, view["roles"][s])
            item["side"] = ROLE_SIDE[view["roles"][s]]
        out.append(item)
    return out


def record(t: Translator, table: Table) -> list[list[str]]:
    """The whole public record, one block per round: every public event in the words of
    the round messages (votes revealed with the result), then that round's claims."""
    game = table.game
    assert game is not None
    entries = read(table.log)
    if not entries:  # a game stored before the log existed: the engine's public history
        return [history_lines(t, game, table.names())]
    blocks: list[list[str]] = [[]]
    rnd: int | None = None

    def close() -> None:
        line = rc.claim_line(t, table, rnd) if rnd is not None else None
        if line:
            blocks[-1].append(line)

    for i, e in enumerate(entries):
        if e.to is not None or e.kind == ACT:
            continue  # private: never in the public record
        if e.kind == Kind.ROUND_STARTED:
            close()
            rnd = int(e.data["round"])
            blocks.append([])
        blocks[-1] += [x for x in fact_lines(t, table, Fact(e.kind, e.data, i, False)) if x]
    close()
    return [b for b in blocks if b]


def secret(t: Translator, table: Table, seat: int) -> list[list[str]]:
    """What ``seat`` alone was shown, in order: its role and what R2 tells it, then its
    hands, discards, investigations and peeks, each block headed by its round."""
    game = table.game
    assert game is not None
    entries = read(table.log)
    blocks: list[list[str]] = [[]]
    facts = knowledge(entries, seat)
    role = next((f.data for f in facts if f.kind == "role"), None)
    if role is None:  # a game started before the log existed
        role = game.private_view(seat)
    blocks[0] = [*role_lines(t, table.names(), role), goal_line(t, str(role["role"]))]
    rnd = 0
    for f in facts:
        if f.kind == Kind.ROUND_STARTED:
            rnd = int(f.data["round"])
        if not f.private or f.kind == "role":
            continue
        lines = [x for x in fact_lines(t, table, f) if x]
        if not lines:
            continue
        if len(blocks) == 1 or blocks[-1][0] != _round(t, rnd):
            blocks.append([_round(t, rnd)])
        blocks[-1] += lines
    return blocks


def _round(t: Translator, rnd: int) -> str:
    return t._("<b>Round {round}</b>", round=rnd)


def public(t: Translator, table: Table) -> dict[str, Any]:
    """What any member of the group may see now (the same for all, in one language)."""
    out: dict[str, Any] = {"gid": table.gid, "status": status(table), "labels": labels(t)}
    game = table.game
    if game is None:
        out["seats"] = seats(t, table, None)
        return out
    view = game.public_view()
    out["board"] = svg.board(board_facts(view, table.names()))
    out["round"] = game.round
    out["phase"] = view["phase"]
    live = out["status"] == "running"
    out["now"] = _lines(round_text(t, table)) if live else []
    out["record"] = record(t, table)
    out["claims"] = rc.history_lines(t, table)
    if game.is_over and game.condition is not None:
        winner = (
            t._("🏁 <b>The Liberals win!</b>")
            if str(game.winner) == "liberal"
            else t._("🏁 <b>The Fascists win!</b>")
        )
        out["end"] = [winner, condition_text(t, str(game.condition)), *rc.truth_lines(t, table)]
    return out


def personal(t: Translator, table: Table, seat: int | None) -> dict[str, Any]:
    """The viewer's own part: their seat marked and, for a player, the secret panel and
    what they may press now (``actions``: the chat's buttons for them, with their data)."""
    out: dict[str, Any] = {"seats": seats(t, table, seat), "you": seat}
    out["actions"] = panels(t, table, seat)
    if table.game is not None and seat is not None:
        out["secret"] = secret(t, table, seat)
    else:
        out["secret"] = None
    return out


def view(t: Translator, table: Table, seat: int | None) -> dict[str, Any]:
    """The whole page's data for one viewer (``seat`` None: a member who does not play)."""
    return {**public(t, table), **personal(t, table, seat)}
