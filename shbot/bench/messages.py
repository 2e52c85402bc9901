"""``bench messages``: Bot API calls per complete game (5 to 10 players) and the most group
calls in any 60 s, under the bot's real pacing on a virtual clock (looptime)."""

from __future__ import annotations

import argparse
import asyncio
import os
import tempfile
from collections.abc import Sequence

from shbot.bench.common import running_bot
from shbot.bench.registry import Row, register

MESSAGE_PLAYERS = (5, 6, 7, 8, 9, 10)
MESSAGE_TARGET_WINDOW = 20
MESSAGE_TARGET_GROUP_SENDS_7 = 40


async def _message_game(players: int, seed: int) -> Row:
    """One complete game with the real pacing (the outbox's Pacer and AIORateLimiter),
    players pressing as soon as their buttons are on screen; meant to run on a virtual-time
    loop (see bench_messages)."""
    from shbot.devtools.driver import (
        GameRun,
        NotReady,
        jobqueue_on_loop_clock,
        make_users,
        snap_limiter_levels,
    )

    loop = asyncio.get_running_loop()
    with tempfile.TemporaryDirectory(prefix="shbot-bench-") as tmp:
        from shbot.storage import open_store

        store = open_store(sqlite_path=os.path.join(tmp, "bench.sqlite3"))
        try:
            with snap_limiter_levels(), jobqueue_on_loop_clock():
                async with running_bot(store, limiter=True) as driver:
                    run = GameRun(driver, make_users(players), seed)
                    start = loop.time()
                    while not run.done:
                        try:
                            payload = await run.next_update()
                        except NotReady:
                            await driver.settle(24 * 3600)  # wait for the buttons
                            continue
                        if payload is not None:
                            await driver.feed(payload)
                        elif not run.done:
                            await driver.settle(24 * 3600)
                    await driver.settle(24 * 3600)
                    minutes = (loop.time() - start) / 60
                    if driver.errors:
                        raise RuntimeError(f"the bot raised: {driver.errors[:3]!r}")
                    fake, group = driver.fake, run.group_id
                    user_ids = {u.id for u in run.users}
                    return {
                        "bench": "messages",
                        "players": players,
                        "seed": seed,
                        "updates": run.updates,
                        "group_sends": fake.group_sends(group),
                        "group_edits": fake.group_edits(group),
                        "private_sends": sum(fake.private_sends(u) for u in user_ids),
                        "private_edits": sum(fake.private_edits(u) for u in user_ids),
                        "callback_answers": fake.callback_answers(),
                        "failed_calls": len(fake.failed_calls),
                        "max_group_calls_60s": fake.max_calls_in_window(group, 60),
                        "virtual_minutes": round(minutes, 1),
                    }
        finally:
            await store.close()


def bench_messages(
    games: int, seed: int = 0, players: Sequence[int] = MESSAGE_PLAYERS
) -> list[Row]:
    """Bot API calls per complete game by player count, and the most group calls in any
    60 s window, with the real pacing under virtual time (looptime): a game that takes
    the pacer many minutes costs no real time."""
    try:
        import looptime
    except ImportError:
        return [{"bench": "messages", "skipped": "needs looptime (pip install looptime)"}]
    rows: list[Row] = []
    for count in players:
        for k in range(games):
            with asyncio.Runner(loop_factory=lambda: looptime.new_event_loop(start=0.0)) as r:
                row = r.run(_message_game(count, seed + k))
            rows.append(row)
    for row in rows:
        row["target"] = (
            f"<= {MESSAGE_TARGET_WINDOW} group calls in any 60 s; "
            f"<= {MESSAGE_TARGET_GROUP_SENDS_7} group messages for 7 players"
        )
        row["meets_target"] = row["max_group_calls_60s"] <= MESSAGE_TARGET_WINDOW and (
            row["players"] != 7 or row["group_sends"] <= MESSAGE_TARGET_GROUP_SENDS_7
        )
    return rows


def _messages_table(rows: list[Row]) -> str:
    if rows and "skipped" in rows[0]:
        return f"skipped: {rows[0]['skipped']}"
    lines = [
        f"{'players':>7} {'updates':>7} {'grp send':>8} {'grp edit':>8} {'priv send':>9} "
        f"{'answers':>7} {'max/60s':>7} {'minutes':>7}"
    ]
    lines += [
        f"{r['players']:>7} {r['updates']:>7} {r['group_sends']:>8} {r['group_edits']:>8} "
        f"{r['private_sends']:>9} {r['callback_answers']:>7} {r['max_group_calls_60s']:>7} "
        f"{r['virtual_minutes']:>7.1f}" + ("" if r["meets_target"] else "  (target missed)")
        for r in rows
    ]
    return "\n".join(lines)


@register(
    "messages",
    "Bot API calls per game (5-10 players), group calls per minute",
    _messages_table,
    drives_the_bot=True,
)
def _messages(args: argparse.Namespace) -> list[Row]:
    return bench_messages(args.games or 1, args.seed, args.players or MESSAGE_PLAYERS)
