"""Jobs found by name in one look-up: each job's APScheduler id is its name.

PTB's ``JobQueue.get_jobs_by_name`` wraps every scheduled job and matches its name with a
regular expression: a commit disarms four names, so at thousands of groups with a deadline
each, that scan was most of the bot's CPU (``bench capacity``, 2,000 groups: 270 of 550 s).
Every job here is scheduled under an id equal to its name (a newer one replaces the older,
as the callers want: one deadline, one warning, one computer move per name), and found by
that id.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Any

from telegram.ext import Job, JobQueue


def named(job_queue: JobQueue[Any], name: str) -> list[Job[Any]]:
    """The scheduled job called ``name`` (none or one)."""
    found = job_queue.scheduler.get_job(name)
    return [] if found is None else [Job.from_aps_job(found)]


def once(
    job_queue: JobQueue[Any],
    callback: Callable[[Any], Coroutine[Any, Any, Any]],
    when: float,
    *,
    data: Any,
    name: str | None,
) -> Job[Any]:
    """``run_once`` under the id ``name`` (replacing a job of that name still scheduled)."""
    ids = {"id": name, "replace_existing": True} if name else {}
    return job_queue.run_once(callback, when, data=data, name=name, job_kwargs=ids)
