"""The lobby's join deadline (the host's ``/newgame 15``), its warning and its end, and a
full table's start: the bot side of :mod:`shbot.table.lobby_clock`."""

from __future__ import annotations

import logging
import time
from typing import Any

from telegram import Message
from telegram.ext import Application

from shbot.i18n import Translator
from shbot.storage import NoGame, StoreUnavailable
from shbot.table import Refusal, lobby_clock
from shbot.table.model import Table
from shbot.table.outcome import Outcome

from ..job_names import once
from ..jobs import lobby_job_names
from .common import Ctx, reply, svc
from .members import drop_strangers
from .starting import commit_start, start_options

log = logging.getLogger(__name__)


def arm_lobby(app: Application[Any, Any, Any, Any, Any, Any], chat_id: int, table: Table) -> None:
    """Schedule the lobby's warning and join deadline (if it has one)."""
    plan = lobby_clock.describe(table)
    if not plan or app.job_queue is None:
        return
    now = time.time()
    data = {"chat": chat_id, "gid": plan["gid"], "at": plan["at"]}
    close_name, warn_name = lobby_job_names(chat_id)
    if "warn" in plan and plan["at"] > now:  # one due while the bot was down comes now
        delay = max(0.0, plan["warn"] - now)
        once(app.job_queue, on_join_warning, delay, data=data, name=warn_name)
    once(app.job_queue, on_join_deadline, max(0.0, plan["at"] - now), data=data, name=close_name)


def join_minutes(args: list[str] | None) -> tuple[int | None, bool]:
    """``/newgame 15``: the host's join deadline in minutes (1-60; None: not given) and
    whether the argument was not such a number: a whole number above 60 gives 60, anything
    else (``0``, ``-5``, ``abc``, ``1e9``) the default; the host is then told which."""
    if not args:
        return None, False
    arg = args[0]
    if not arg.isascii() or not arg.isdigit():
        return None, True
    minutes = int(arg[-6:]) if len(arg.lstrip("0")) <= 6 else lobby_clock.MAX_MINUTES + 1
    if minutes > lobby_clock.MAX_MINUTES:
        return lobby_clock.MAX_MINUTES, True
    return (minutes, False) if minutes >= 1 else (None, True)


async def set_join_deadline(context: Ctx, chat_id: int, user_id: int, minutes: int) -> bool:
    """The host of the open lobby moves its join deadline (False: not a lobby, not the host)."""

    def change(tb: Table) -> Outcome:
        if tb.game is not None or tb.ending or tb.host != user_id:
            raise Refusal("nothing")
        lobby_clock.set_deadline(tb, minutes)
        tb.owe("lobby")
        return Outcome(tb)

    try:
        await svc(context).commit.run(chat_id, change)
    except (NoGame, Refusal):
        return False
    return True


async def maybe_autostart(context: Ctx, chat_id: int, table: Table) -> None:
    """A full table (ten players, each reachable in private) starts at once."""
    if table.game is not None or table.ending or not lobby_clock.full(table):
        return
    t = await svc(context).t_group(chat_id)
    await commit_start(context, chat_id, table.host, True, None, None, t)


async def on_join_warning(context: Ctx) -> None:
    """A minute before the join deadline: the lobby says so (an edit)."""
    d = _job_data(context)
    try:
        await svc(context).commit.run(
            int(d["chat"]), lambda tb: lobby_clock.warn(tb, str(d["gid"]), float(d["at"]))
        )
    except (NoGame, Refusal, StoreUnavailable):
        return


async def on_join_deadline(context: Ctx) -> None:
    """The join deadline passed: start with five or more reachable players, else cancel."""
    d = _job_data(context)
    chat_id = int(d["chat"])
    s = svc(context)
    await drop_strangers(context, chat_id)
    options = await start_options(context, chat_id)
    seed = s.new_seed()
    try:
        outcome = await s.commit.run(
            chat_id,
            lambda tb: lobby_clock.expire(tb, str(d["gid"]), float(d["at"]), seed, options),
        )
    except (NoGame, Refusal, StoreUnavailable):
        return
    log.info("lobby %s in chat %s: join deadline passed", outcome.table.gid, chat_id)


def _job_data(context: Ctx) -> dict[str, Any]:
    job = context.job
    assert job is not None and isinstance(job.data, dict)
    return job.data


async def tell_in(
    context: Ctx, user_id: int, gid: str, message: Message | None, t: Translator
) -> None:
    """ "You are in the game", once per player and game: opening the join link again, or
    /start in private afterwards, does not say it again."""
    told = False

    def once(current: dict[str, Any]) -> dict[str, Any]:
        nonlocal told
        told = current.get("told_in") == gid
        return {} if told else {"told_in": gid}

    await svc(context).store.change_user(user_id, once)
    if told:
        return
    await reply(context, message, t._("✅ You are in the game. Go back to the group!"))
