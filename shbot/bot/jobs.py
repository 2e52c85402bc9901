"""Deadlines on PTB's JobQueue: a stored deadline is a promise the bot keeps.

A table's deadline lives in the table (:mod:`shbot.table.timers`); this module keeps the
JobQueue in line with it: :func:`arm` after every commit and, at start-up, for every running
game (a deadline already past fires at once). A job for a step that is already over finds
the deadline changed and does nothing, so duplicated or late jobs are harmless.
"""

from __future__ import annotations

import logging
import random
import time
from typing import Any

from telegram.ext import Application, ContextTypes

from shbot.storage import NoGame, StoreUnavailable
from shbot.table import Outcome, Refusal, Table, seats
from shbot.table import timers as table_timers

from . import logs
from .job_names import named, once
from .render import seats as rs
from .services import Services

log = logging.getLogger(__name__)
AnyApp = Application[Any, Any, Any, Any, Any, Any]
RETRY_SECONDS = 15.0  # a deadline that met a storage outage is tried again this soon


def _names(chat_id: int) -> tuple[str, str, str, str]:
    return f"deadline:{chat_id}", f"remind:{chat_id}", *lobby_job_names(chat_id)


def lobby_job_names(chat_id: int) -> tuple[str, str]:
    """The lobby's join deadline and its warning (armed by handlers/join_deadline.py)."""
    return f"joinby:{chat_id}", f"joinwarn:{chat_id}"


def disarm(app: AnyApp, chat_id: int) -> None:
    if app.job_queue is None:
        return
    for name in _names(chat_id):
        for job in named(app.job_queue, name):
            job.schedule_removal()


def arm(app: AnyApp, chat_id: int, table: Table) -> None:
    """Schedule the reminder and the deadline of the table's current step (if any)."""
    disarm(app, chat_id)
    plan = table_timers.describe(table)
    if not plan or app.job_queue is None:
        return
    now = time.time()
    data = {"chat": chat_id, "gid": plan["gid"], "step": plan["step"], "at": plan["deadline"]}
    deadline_name, remind_name, _, _ = _names(chat_id)
    if "remind" in plan and plan["remind"] > now:
        remind_in = max(0.0, plan["remind"] - now)
        once(app.job_queue, on_reminder, remind_in, data=data, name=remind_name)
    due_in = max(0.0, plan["deadline"] - now)
    once(app.job_queue, on_deadline, due_in, data=data, name=deadline_name)


def _svc(context: ContextTypes.DEFAULT_TYPE) -> Services:
    svc: Services = context.application.bot_data["svc"]
    return svc


async def on_deadline(context: ContextTypes.DEFAULT_TYPE) -> None:
    """The deadline passed: play the default moves and tell the group."""
    s = _svc(context)
    job = context.job
    assert job is not None
    d: dict[str, Any] = job.data  # type: ignore[assignment]
    chat_id = int(d["chat"])
    logs.bind(chat=chat_id, game=str(d["gid"]))
    try:
        group = await s.store.get_group(chat_id)
        missing_nein = group.get("missing_votes", "nein") != "ignore"
        standin = rs.standin_on(group)  # a computer takes an absent seat
        rng = random.Random(s.new_seed())
        gid, step, at = str(d["gid"]), int(d["step"]), d.get("at")

        def change(tb: Table) -> Outcome:
            if table_timers.prompt_waiting(tb):  # nobody saw the buttons: the clock restarts
                return table_timers.hold(tb, gid, step, at)
            moves = table_timers.timeout(tb, gid, step, at, rng, missing_nein)
            return seats.absent_after_timeout(moves, standin)

        outcome = await s.commit.run(chat_id, change)
        if not outcome.events:  # held: no move was played
            log.info("game %s in chat %s: deadline of step %s held", gid, chat_id, step)
            return
    except NoGame as missing:  # the store lost it (an ended game leaves no deadline armed)
        await s.lost_game(chat_id, str(d["gid"]), None, missing.last_known)
        return
    except Refusal:
        return
    except StoreUnavailable:
        log.warning("deadline in chat %s delayed: storage unavailable", chat_id)
        if context.job_queue is not None:
            once(context.job_queue, on_deadline, RETRY_SECONDS, data=d, name=job.name)
        return
    log.info(
        "game %s in chat %s: deadline of step %s passed", outcome.table.gid, chat_id, d["step"]
    )


async def on_reminder(context: ContextTypes.DEFAULT_TYPE) -> None:
    """Half-way to the deadline: name the late players in the group and nudge them."""
    s = _svc(context)
    job = context.job
    assert job is not None
    d: dict[str, Any] = job.data  # type: ignore[assignment]
    chat_id = int(d["chat"])
    logs.bind(chat=chat_id, game=str(d["gid"]))
    record = await s.store.get_game(chat_id)
    if record is None:
        return
    seconds = int(Table.from_dict(record.data).options.get("timer", 0) or 0) // 2

    def change(tb: Table) -> Outcome:
        if table_timers.prompt_waiting(tb):
            raise Refusal("stale")  # nobody has seen the buttons yet: nobody to remind
        return table_timers.remind(tb, str(d["gid"]), int(d["step"]), d.get("at"), seconds)

    try:
        await s.commit.run(chat_id, change)
    except (NoGame, Refusal, StoreUnavailable):
        return
