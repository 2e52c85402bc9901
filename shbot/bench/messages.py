"""``bench messages``: Bot API calls per complete game (5 to 10 players) and the most group
calls in any 60 s, under the bot's real pacing on a virtual clock (looptime); then games
at three human paces (tap to screen, silences, calls per round: :mod:`.paced`), and, run on
its own, the capacity of one bot token."""

from __future__ import annotations

import argparse
import asyncio
import os
import tempfile
from collections.abc import Sequence
from typing import Any

from shbot.bench.common import running_bot
from shbot.bench.registry import Row, register

MESSAGE_PLAYERS = (5, 6, 7, 8, 9, 10)
PACED_PLAYERS = (5, 7, 10)
MESSAGE_TARGET_WINDOW = 20
MESSAGE_TARGET_GROUP_SENDS_7 = 40
MESSAGE_TARGET_GROUP_CALLS_7 = 45  # sends and edits
MESSAGE_TARGET_PRIVATE_CALLS_7 = 60
#: Tap to screen in the group, p95 by pace (seconds); and no tap over 10 s at the normal pace.
PACE_TARGET_P95 = {"fast": 8.0, "normal": 3.0, "slow": 1.5}
CAPACITY_MOST = 128  # concurrent games tried at most for the capacity of one token


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
                async with running_bot(store, limiter=True, deck_seed=seed) as driver:
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


def bench_paced(games: int, seed: int, players: Sequence[int]) -> list[Row]:
    """Each pace and player count: ``games`` games one after the other (figures merged:
    medians of the per-game figures, the worst of the maxima)."""
    import statistics

    from shbot.bench import paced

    rows: list[Row] = []
    for pace in paced.PACES:
        for count in players:
            runs = [paced.run(1, count, pace, seed + k) for k in range(games)]
            row: Row = {"bench": "messages-paced", "pace": pace, "players": count}
            for key in runs[0]:
                if key in ("pace", "players", "games"):
                    continue
                values = [r[key] for r in runs]
                worst = key in ("max", "silence", "max_group_60s", "max_overall_1s", "429s")
                row[key] = max(values) if worst else round(statistics.median(values), 2)
            row["target"] = f"p95 <= {PACE_TARGET_P95[pace]} s" + (
                ", no tap over 10 s" if pace == "normal" else ""
            )
            row["meets_target"] = (
                row["p95"] <= PACE_TARGET_P95[pace]
                and (pace != "normal" or row["max"] <= 10)
                and row["max_group_60s"] <= 20
                and row["max_overall_1s"] <= 30
                and row["429s"] == 0
            )
            rows.append(row)
    return rows


def bench_capacity(seed: int, most: int = CAPACITY_MOST) -> Row:
    """Concurrent 7-player games at the normal pace one token serves (see capacity)."""
    games, row = capacity(seed, most=most)
    return {"bench": "messages-capacity", "games": games, **{k: row.get(k) for k in row}}


#: Concurrent games open within this many seconds of each other (groups do not all press
#: Start in the same second).
SPREAD = 120.0


def capacity(seed: int, most: int = CAPACITY_MOST) -> tuple[int, dict[str, Any]]:
    """How many concurrent 7-player games at the normal pace one bot token serves before the
    overall limit shows in the players' wait: p95 within 3 s (the issue's measure), or, if one
    game alone is already over that, within half a second of it (doubling, then halving the
    gap)."""
    from shbot.bench import paced

    alone = paced.run(1, 7, "normal", seed, SPREAD)
    limit = 3.0 if alone["p95"] <= 3.0 else alone["p95"] + 0.5

    def fits(r: dict[str, Any]) -> bool:
        return r["p95"] <= limit and not r["429s"] and not r["incomplete"]

    good, row, n = (1, alone, 2) if fits(alone) else (0, alone, 0)
    while 0 < n <= most:
        r = paced.run(n, 7, "normal", seed, SPREAD)
        if not fits(r):
            break
        good, row, n = n, r, n * 2
    else:
        return good, {**row, "limit": limit}
    lo, hi = good, n
    while hi - lo > max(1, lo // 8):
        mid = (lo + hi) // 2
        r = paced.run(mid, 7, "normal", seed, SPREAD)
        if fits(r):
            lo, row = mid, r
        else:
            hi = mid
    return lo, {**row, "limit": limit}


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
            f"<= {MESSAGE_TARGET_WINDOW} group calls in any 60 s; for 7 players "
            f"<= {MESSAGE_TARGET_GROUP_CALLS_7} group and "
            f"<= {MESSAGE_TARGET_PRIVATE_CALLS_7} private calls"
        )
        group = row["group_sends"] + row["group_edits"]
        private = row["private_sends"] + row["private_edits"]
        row["meets_target"] = row["max_group_calls_60s"] <= MESSAGE_TARGET_WINDOW and (
            row["players"] != 7
            or (group <= MESSAGE_TARGET_GROUP_CALLS_7 and private <= MESSAGE_TARGET_PRIVATE_CALLS_7)
        )
    return rows


def _messages_table(rows: list[Row]) -> str:
    if rows and "skipped" in rows[0]:
        return f"skipped: {rows[0]['skipped']}"
    plain = [r for r in rows if r["bench"] == "messages"]
    lines = [
        f"{'players':>7} {'updates':>7} {'grp send':>8} {'grp edit':>8} {'priv send':>9} "
        f"{'priv edit':>9} {'answers':>7} {'max/60s':>7} {'minutes':>7}"
    ]
    lines += [
        f"{r['players']:>7} {r['updates']:>7} {r['group_sends']:>8} {r['group_edits']:>8} "
        f"{r['private_sends']:>9} {r['private_edits']:>9} {r['callback_answers']:>7} "
        f"{r['max_group_calls_60s']:>7} {r['virtual_minutes']:>7.1f}"
        + ("" if r["meets_target"] else "  (target missed)")
        for r in plain
    ]
    paced = [r for r in rows if r["bench"] == "messages-paced"]
    if paced:
        lines += [
            "",
            "tap -> group (s): p50 p95 max; longest silence with something owed (s); calls",
            f"{'pace':>6} {'players':>7} {'p50':>5} {'p95':>5} {'max':>5} {'silence':>7} "
            f"{'grp/game':>8} {'priv/game':>9} {'grp/round':>9} {'priv/round':>10} {'max/60s':>7} "
            f"{'max/1s':>6} "
            f"{'429':>3}",
        ]
        lines += [
            f"{r['pace']:>6} {r['players']:>7} {r['p50']:>5} {r['p95']:>5} {r['max']:>5} "
            f"{r['silence']:>7} {r['group_calls']:>8} {r['private_calls']:>9} "
            f"{r['group_per_round']:>9} {r.get('private_per_round', '-'):>10} "
            f"{r['max_group_60s']:>7} {r['max_overall_1s']:>6} "
            f"{r['429s']:>3}" + ("" if r["meets_target"] else "  (target missed)")
            for r in paced
        ]
    lines += [
        f"\ncapacity of one token: {r['games']} concurrent 7-player games at the normal pace "
        f"(p95 {r.get('p95')} s within {r.get('limit')} s, {r.get('max_overall_1s')} calls in "
        "the busiest second)"
        for r in rows
        if r["bench"] == "messages-capacity"
    ]
    return "\n".join(lines)


@register(
    "messages",
    "Bot API calls per game (5-10 players), group calls per minute, three human paces, "
    "the capacity of one token",
    _messages_table,
    drives_the_bot=True,
)
def _messages(args: argparse.Namespace) -> list[Row]:
    rows = bench_messages(args.games or 1, args.seed, args.players or MESSAGE_PLAYERS)
    if rows and "skipped" in rows[0]:
        return rows
    rows += bench_paced(args.games or 1, args.seed, args.players or PACED_PLAYERS)
    if args.name == "messages":  # the capacity runs many games at once: not in "all"
        rows.append(bench_capacity(args.seed))
    return rows
