"""``bench scaleout``: two bot processes in webhook mode on one Redis, every update sent to
them in turn; checks that every press is applied exactly once."""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Sequence
from typing import Any

from shbot.bench.common import BOT_PLAYERS, no_redis_row
from shbot.bench.registry import Row, register

SCALEOUT_GAMES = 20
SCALEOUT_PROCESSES = 2
SCALEOUT_START_TIMEOUT = 30.0
SCALEOUT_STALL = 15.0  # seconds without a button to press before the run gives up


class _WebhookPlayers:
    """Players whose updates go over HTTP to the bot processes' webhooks, in turn."""

    def __init__(self, players: Any, urls: list[str], secret: str) -> None:
        self.players = players
        self.urls = urls
        self.secret = secret
        self.sent = [0] * len(urls)
        self._next = 0
        self._update_ids = iter(range(1, 1 << 62))

    async def feed(self, client: Any, payload: Row) -> None:
        """POST one update to the next process in turn (a load balancer's round robin)."""
        i = self._next
        self._next = (i + 1) % len(self.urls)
        body = {"update_id": next(self._update_ids), **payload}
        reply = await client.post(
            self.urls[i], json=body, headers={"X-Telegram-Bot-Api-Secret-Token": self.secret}
        )
        reply.raise_for_status()
        self.sent[i] += 1


async def _quiet(fake: Any, *, quiet: float = 0.01, timeout: float = 30.0) -> None:
    """Wait until every callback query is answered and the fake saw no call for ``quiet``
    seconds: the bot processes have done what the last updates asked."""
    deadline = time.monotonic() + timeout
    seen, since = -1, time.monotonic()
    while time.monotonic() < deadline:
        count = len(fake.calls)
        if count != seen:
            seen, since = count, time.monotonic()
        elif not fake.callback_queries and time.monotonic() - since >= quiet:
            return
        await asyncio.sleep(0.005)
    raise TimeoutError("the bot processes did not go quiet")


async def bench_scaleout(games: int, seed: int = 0) -> list[Row]:
    """Two bot processes in webhook mode on loopback, one Redis, one fake Bot API served
    over HTTP; every update of every game goes to the processes alternately, and during a
    vote all ballots are sent at once, so both processes change the same game together.
    Checks: every press answered once and accepted, no press lost (a player never asked
    twice for the same step), every game finished and archived."""
    import httpx

    from shbot.devtools.driver import GameRun, LostUpdate, NotReady, Players, make_users
    from shbot.devtools.fake_telegram import FakeBotAPI
    from shbot.devtools.http_api import serve
    from shbot.devtools.redis_server import NoRedis, free_port, redis_url
    from shbot.storage import open_store

    try:
        redis_cm = redis_url()
        url, where = redis_cm.__enter__()
    except NoRedis as exc:
        return [no_redis_row("scaleout", str(exc))]
    procs: list[subprocess.Popen[bytes]] = []
    logs: list[Any] = []
    prefix = f"bench:{uuid.uuid4().hex[:10]}:"
    fake = FakeBotAPI()
    token = f"{fake.bot_id}:{'B' * 35}"
    api_port = free_port()
    server = serve(fake, api_port)
    store = open_store(redis_url=url, prefix=prefix)
    secret = uuid.uuid4().hex
    try:
        hooks = []
        for _ in range(SCALEOUT_PROCESSES):
            port = free_port()
            hooks.append(f"http://127.0.0.1:{port}/hook")
            env = {
                **os.environ,
                "BOT_TOKEN": token,
                "SHBOT_API_URL": f"http://127.0.0.1:{api_port}",
                "REDIS_URL": url,
                "SHBOT_REDIS_PREFIX": prefix,
                "SHBOT_WEBHOOK_URL": hooks[-1],
                "SHBOT_WEBHOOK_LISTEN": "127.0.0.1",
                "SHBOT_WEBHOOK_PORT": str(port),
                "SHBOT_WEBHOOK_SECRET": secret,
                "SHBOT_LOG_LEVEL": "WARNING",
                "SHBOT_TIMERS": "off",
            }
            log = tempfile.TemporaryFile()  # noqa: SIM115 - closed in finally
            logs.append(log)
            procs.append(
                subprocess.Popen(
                    [sys.executable, "-m", "shbot.devtools.unpaced_bot"],
                    env=env,
                    stdin=subprocess.DEVNULL,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                )
            )
        await _wait_for_ports(procs, logs, hooks)
        players = Players(fake, store)
        hook = _WebhookPlayers(players, hooks, secret)
        runs = [GameRun(players, make_users(BOT_PLAYERS), seed + k) for k in range(games)]
        lost: list[str] = []
        lost_runs: list[Any] = []  # abandoned: those games cannot finish
        start = time.perf_counter()
        async with httpx.AsyncClient(timeout=10) as client:
            progress = time.monotonic()
            while not all(r.done for r in runs):
                batch: list[Row] = []
                for run in runs:
                    try:
                        batch += await run.next_updates(all_voters=True)
                    except NotReady:
                        continue
                    except LostUpdate as exc:
                        lost.append(str(exc))
                        lost_runs.append(run)
                        run.done = True
                if not batch:
                    if time.monotonic() - progress > SCALEOUT_STALL:
                        raise RuntimeError("the games stalled: no buttons to press")
                    await _quiet(fake)
                    continue
                progress = time.monotonic()
                await asyncio.gather(*(hook.feed(client, p) for p in batch))
                await _quiet(fake)
        seconds = time.perf_counter() - start
        lost_groups = {run.group_id for run in lost_runs}
        finished = await _archived(store, [r for r in runs if r.group_id not in lost_groups])
        presses = sum(r.updates for r in runs) - games * (BOT_PLAYERS + 1)  # /start, /newgame
        refused = [a for a in fake.answers if a.show_alert]
        row: Row = {
            "bench": "scaleout",
            "processes": SCALEOUT_PROCESSES,
            "redis": where,
            "games": games,
            "players": BOT_PLAYERS,
            "updates": sum(r.updates for r in runs),
            "updates_per_process": hook.sent,
            "presses": presses,
            "callback_answers": len(fake.answers),
            "refused_presses": len(refused),
            "unanswered_queries": len(fake.callback_queries),
            "lost_updates": len(lost),
            "games_finished": finished,
            "games_lost": games - finished,
            "seconds": round(seconds, 2),
            "failed_calls": len(fake.failed_calls),
            # Each process remembers only what it showed itself, so it may repeat an edit
            # the other process already made (Telegram answers "not modified").
            "not_modified_edits": sum(
                1 for c in fake.failed_calls if "not modified" in (c.description or "")
            ),
        }
        row["exactly_once"] = (
            not lost and not refused and not fake.callback_queries and finished == games
        )
        if lost:
            row["lost_examples"] = lost[:3]
        if refused:
            row["refused_examples"] = [a.text for a in refused[:3]]
        return [row]
    finally:
        for proc in procs:
            proc.terminate()
        for proc in procs:
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(5)
        for log in logs:
            log.close()
        server.stop()
        await store.close()
        from shbot.devtools.redis_server import delete_prefix

        delete_prefix(url, prefix)
        redis_cm.__exit__(None, None, None)


async def _archived(store: Any, runs: Sequence[Any], timeout: float = SCALEOUT_STALL) -> int:
    """How many of ``runs`` (played to their end) left the store for its archive. An ended game is
    archived once its last messages are delivered, so this waits (up to ``timeout``) for
    the bot processes to get there."""
    deadline = time.monotonic() + timeout
    while True:
        finished = 0
        for run in runs:
            if await store.get_game(run.group_id) is None and await store.finished_games(
                run.group_id, limit=1
            ):
                finished += 1
        if finished == len(runs) or time.monotonic() > deadline:
            return finished
        await asyncio.sleep(0.05)


async def _wait_for_ports(
    procs: Sequence[subprocess.Popen[bytes]], logs: Sequence[Any], hooks: Sequence[str]
) -> None:
    """Wait until every bot process listens on its webhook port (or say why it died)."""
    deadline = time.monotonic() + SCALEOUT_START_TIMEOUT
    for proc, log, hook in zip(procs, logs, hooks, strict=True):
        port = int(hook.rsplit(":", 1)[1].split("/")[0])
        while True:
            if proc.poll() is not None or time.monotonic() > deadline:
                log.seek(0)
                tail = log.read().decode(errors="replace")[-2000:]
                raise RuntimeError(f"bot process for {hook} did not start:\n{tail}")
            try:
                _, writer = await asyncio.open_connection("127.0.0.1", port)
            except OSError:
                await asyncio.sleep(0.05)
                continue
            writer.close()
            break


def _scaleout_table(rows: list[Row]) -> str:
    r = rows[0]
    if "skipped" in r:
        return f"skipped: {r['skipped']}"
    return (
        f"{r['processes']} processes, {r['games']} games, {r['updates']} updates "
        f"(per process {r['updates_per_process']}), {r['presses']} presses, "
        f"{r['callback_answers']} answered, {r['refused_presses']} refused, "
        f"{r['lost_updates']} lost, {r['games_finished']}/{r['games']} finished: "
        + ("exactly once" if r["exactly_once"] else "NOT exactly once")
    )


@register(
    "scaleout",
    "two webhook processes on one Redis: every action applied once",
    _scaleout_table,
    drives_the_bot=True,
)
def _scaleout(args: argparse.Namespace) -> list[Row]:
    return asyncio.run(bench_scaleout(args.games or SCALEOUT_GAMES, args.seed))
