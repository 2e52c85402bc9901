"""Scheduling deadlines and reminders on PTB's JobQueue.

A table's deadline is stored with the game (see :mod:`shbot.bot.timers`); this module only
keeps the JobQueue in line with it: :func:`arm` after every commit that may have moved it,
and at start-up for every running game. A job that fires for a step that is already over
finds the deadline changed and does nothing, so duplicated or late jobs are harmless.
"""

from __future__ import annotations

import logging
import random
import time
from typing import Any

from telegram.ext import Application, ContextTypes

from shbot.storage import NoGame, StoreUnavailable

from . import flow, logs, timers
from . import render_timers as rt
from .model import Table
from .services import Services

log = logging.getLogger(__name__)
AnyApp = Application[Any, Any, Any, Any, Any, Any]
RETRY_SECONDS = 15.0  # a deadline that met a storage outage is tried again this soon


def _names(chat_id: int) -> tuple[str, str]:
    return f"deadline:{chat_id}", f"remind:{chat_id}"


def disarm(app: AnyApp, chat_id: int) -> None:
    if app.job_queue is None:
        return
    for name in _names(chat_id):
        for job in app.job_queue.get_jobs_by_name(name):
            job.schedule_removal()


def arm(app: AnyApp, chat_id: int, table: Table) -> None:
    """Schedule the reminder and the deadline of the table's current step (if any)."""
    disarm(app, chat_id)
    plan = timers.describe(table)
    if not plan or app.job_queue is None:
        return
    now = time.time()
    data = {"chat": chat_id, "gid": plan["gid"], "step": plan["step"], "at": plan["deadline"]}
    deadline_name, remind_name = _names(chat_id)
    if "remind" in plan and plan["remind"] > now:
        app.job_queue.run_once(
            on_reminder, max(0.0, plan["remind"] - now), data=data, name=remind_name
        )
    app.job_queue.run_once(
        on_deadline, max(0.0, plan["deadline"] - now), data=data, name=deadline_name
    )


def _svc(context: ContextTypes.DEFAULT_TYPE) -> Services:
    svc: Services = context.application.bot_data["svc"]
    return svc


async def on_deadline(context: ContextTypes.DEFAULT_TYPE) -> None:
    """The deadline passed: play the default moves and tell the group."""
    from .handlers import finish  # the handlers module registers these jobs' users

    s = _svc(context)
    job = context.job
    assert job is not None
    d: dict[str, Any] = job.data  # type: ignore[assignment]
    chat_id = int(d["chat"])
    logs.bind(chat=chat_id, game=str(d["gid"]))
    try:
        group = await s.store.get_group(chat_id)
        missing_nein = group.get("missing_votes", "nein") != "ignore"
        rng = random.Random(s.new_seed())
        async with s.chat_lock(chat_id):
            _, outcome = await s.store.update_game(
                chat_id,
                lambda rec: timers.apply_timeout(
                    rec, str(d["gid"]), int(d["step"]), d.get("at"), rng, missing_nein
                ),
            )
            narrator = await s.narrator(chat_id, outcome.after)
            narrator.played(outcome)
    except (NoGame, flow.Refusal):
        return
    except StoreUnavailable:
        log.warning("deadline in chat %s delayed: storage unavailable", chat_id)
        if context.job_queue is not None:
            context.job_queue.run_once(on_deadline, RETRY_SECONDS, data=d, name=job.name)
        return
    log.info(
        "game %s in chat %s: deadline of step %s passed", outcome.after.gid, chat_id, d["step"]
    )
    arm(context.application, chat_id, outcome.after)
    if outcome.finished:
        await finish(context, chat_id, outcome.after)


async def on_reminder(context: ContextTypes.DEFAULT_TYPE) -> None:
    """Half-way to the deadline: name the late players in the group and nudge them."""
    s = _svc(context)
    job = context.job
    assert job is not None
    d: dict[str, Any] = job.data  # type: ignore[assignment]
    chat_id = int(d["chat"])
    logs.bind(chat=chat_id, game=str(d["gid"]))
    try:
        async with s.chat_lock(chat_id):
            _, table = await s.store.update_game(
                chat_id,
                lambda rec: timers.apply_reminded(rec, str(d["gid"]), int(d["step"]), d.get("at")),
            )
            seconds = int(table.options.get("timer", 0) or 0) // 2
            await nudge(s, chat_id, table, seconds)
    except (NoGame, flow.Refusal, StoreUnavailable):
        return


async def nudge(s: Services, chat_id: int, table: Table, seconds: int | None) -> bool:
    """Tell the group whom the game waits for, and each of them in private."""
    seats = timers.waiting_for(table)
    if not seats or table.game is None:
        return False
    tg = await s.t_group(chat_id)
    s.outbox.send(chat_id, rt.reminder_text(tg, table, seats, seconds))
    phase = table.game.phase
    for seat in seats:
        user = table.at(seat)
        tu = await s.t_user(user.id)
        s.outbox.send(user.id, rt.nudge_text(tu, phase, seconds))
    return True
