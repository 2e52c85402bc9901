"""Computer seats on PTB's JobQueue: each pending computer move is a job, like a deadline.

After every commit (and at start-up, for every running game) :func:`arm` schedules one job
per computer seat the step waits for, after a short varied pause
(:func:`shbot.table.seats.think_seconds`). The job runs the move through the same commit
path as a press (:func:`shbot.table.seats.act`); a job for a step that is over, or for a
seat that has acted already, or for another game of the group, is refused and changes
nothing, so late or duplicate jobs are harmless. The agents (one per computer seat) live in
this process as a cache: before each move an agent catches up with the table's record (the
event log its seat may see, the claims), and one built anew (a restart, another process, a
take-over) recalls the whole record, so it decides as if it had played from the start.
"""

from __future__ import annotations

import logging
import random
from typing import Any

from telegram.ext import Application, ContextTypes

from shbot.players import AGENTS, Agent
from shbot.storage import NoGame, StoreUnavailable, VersionConflict
from shbot.table import Outcome, Refusal, Table, computer_talk, seats

from .job_names import named, once
from .services import Services

log = logging.getLogger(__name__)
AnyApp = Application[Any, Any, Any, Any, Any, Any]
RETRY_SECONDS = 15.0
KIND = "heuristic"


class Bench:
    """The agents playing computer seats, by (group, game, seat), each with how much of
    the table's record it took in (log lines, claims heard)."""

    def __init__(self) -> None:
        self.agents: dict[tuple[int, str, int], Agent] = {}
        self.read: dict[tuple[int, str, int], tuple[int, set[str]]] = {}
        self.pace = 1.0  # multiplies every pause (tests slow it so that they fire jobs)

    def agent(self, chat_id: int, table: Table, seat: int) -> Agent:
        """The seat's agent, up to date with the table. One built now (a new process, a
        restart, a take-over) recalls the seat's whole record, so it decides as one that
        played from the start; its seed comes from the game and the seat."""
        game = table.game
        if game is None or not 0 <= seat < game.n:
            raise Refusal("stale")  # a seat of another game
        key = (chat_id, table.gid, seat)
        found = self.agents.get(key)
        if found is None:
            past, lines, keys = computer_talk.record(table, seat)
            found = AGENTS[KIND](random.Random(f"{table.gid}:{seat}"))
            found.recall(seat, seats.SeatView(game), past)
            self.agents[key] = found
            self.read[key] = (lines, set(keys))
            return found
        lines, heard = self.read[key]
        past, lines, keys = computer_talk.record(table, seat, lines, heard)
        found.remember(past)
        heard.update(keys)
        self.read[key] = (lines, heard)
        return found

    def observe(self, chat_id: int, outcome: Outcome) -> None:
        """Forget the agents of ended games and of seats a person took back (the others
        catch up with the table's record when they next decide)."""
        table = outcome.table
        for key in [k for k in self.agents if k[0] == chat_id]:
            if outcome.ended or key[1] != table.gid or not seats.computer_seat(table, key[2]):
                del self.agents[key]
                self.read.pop(key, None)


def bench(app: AnyApp) -> Bench:
    found = app.bot_data.get("bench")
    if not isinstance(found, Bench):
        found = app.bot_data["bench"] = Bench()
    return found


def _prefix(chat_id: int) -> str:
    return f"robot:{chat_id}:"


def arm(app: AnyApp, chat_id: int, table: Table) -> None:
    """One job per computer seat the current step waits for (none twice)."""
    if app.job_queue is None or not (
        table.standins or any(seats.is_computer(p) for p in table.players)
    ):
        return  # no computer at this table: nothing to arm (the common case, every press)
    pace = bench(app).pace
    for seat in seats.pending(table):
        name = f"{_prefix(chat_id)}{table.gid}:{table.step}:{seat}"
        if any(not j.removed for j in named(app.job_queue, name)):
            continue
        data = {"chat": chat_id, "gid": table.gid, "step": table.step, "seat": seat}
        delay = seats.think_seconds(table, seat) * pace
        once(app.job_queue, on_turn, delay, data=data, name=name)
    for k in computer_talk.due(table):
        name = f"{_prefix(chat_id)}{table.gid}:claim:{k}"
        if any(not j.removed for j in named(app.job_queue, name)):
            continue
        data = {"chat": chat_id, "gid": table.gid, "sight": k}
        once(app.job_queue, on_turn, computer_talk.pause(table, k) * pace, data=data, name=name)


async def after(app: AnyApp, chat_id: int, outcome: Outcome) -> None:
    """After a commit: the agents see the change, the next computer moves are armed."""
    bench(app).observe(chat_id, outcome)
    arm(app, chat_id, outcome.table)


async def on_turn(context: ContextTypes.DEFAULT_TYPE) -> None:
    """A computer seat's pause is over: it makes its move through the commit path."""
    svc: Services = context.application.bot_data["svc"]
    job = context.job
    assert job is not None
    d: dict[str, Any] = job.data  # type: ignore[assignment]
    chat_id, seat = int(d["chat"]), int(d.get("seat", -1))
    agents = bench(context.application)
    gid = str(d["gid"])

    def move(tb: Table) -> Outcome:
        # A move is keyed to the game it was armed for: one left from a cancelled game
        # must not even build an agent for a seat of the next one (it may not exist).
        if tb.gid != gid or tb.game is None:
            raise Refusal("stale")
        if "sight" in d:  # a claim after a session, an investigation or a peek
            k = str(d["sight"])
            if k not in computer_talk.due(tb):
                raise Refusal("stale")
            speaker = int(tb.talk["sights"][k][0])
            return computer_talk.speak(tb, gid, k, agents.agent(chat_id, tb, speaker))
        step = int(d["step"])
        if tb.step != step or seat not in seats.pending(tb):
            raise Refusal("stale")
        return seats.act(tb, gid, step, seat, agents.agent(chat_id, tb, seat))

    try:
        await svc.commit.run(chat_id, move)
    except NoGame as missing:  # the store lost it (an ended game leaves no move armed)
        await svc.lost_game(chat_id, gid, None, missing.last_known)
        return
    except Refusal:
        return
    except (StoreUnavailable, VersionConflict):
        log.warning("computer move in chat %s delayed: storage busy or unavailable", chat_id)
        if context.job_queue is not None:
            once(context.job_queue, on_turn, RETRY_SECONDS, data=d, name=job.name)
