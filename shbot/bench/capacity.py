"""``bench capacity``: how many concurrent 7-player games one bot token serves at people's
pace, and what breaks first beyond that (:mod:`.capacity_sim` plays the groups,
:mod:`.capacity_bot` is the bot and the fake Bot API that counts Telegram's limits).

Each count of games is one run on a virtual clock: the groups open their games over a ramp
(``RAMP`` seconds), then ``--minutes`` are measured. Beyond ``SAMPLE`` groups a run simulates
``SAMPLE`` of them against the same share of the token (each group's share of the token's 30
calls a second is what it would be with all of them; said in the table). With ``--find`` the
largest count that holds (p95 within 3 s, no deadline fired by a late prompt, no 429) is
found by bisection between the counts listed.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import time

from shbot.bench.registry import Row, register

COUNTS = (100, 300, 1000, 3000, 10000)
MINUTES = 8.0  # measured, after the ramp
RAMP = 240.0  # seconds over which the groups open their games
SAMPLE = 100_000  # groups simulated at most; beyond, that many on their share of the token
#: From this many games on, a shorter run: the ramp and the window below (the token is far
#: past its capacity there: every figure is the backlog's, which a longer run only grows).
LARGE, LARGE_RAMP, LARGE_MINUTES = 3000, 120.0, 4.0
P95_TARGET = 3.0  # seconds from a tap to the group's screen
STARVED = 120.0  # a group waiting this long for a prompt starves (a whole step's time)


def quantile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def run_games(
    games: int,
    minutes: float,
    seed: int,
    sample: int = SAMPLE,
    *,
    ramp: float = RAMP,
    timers: str = "normal",
) -> Row:
    """``games`` concurrent games (``sample`` of them simulated at most) opened over ``ramp``
    seconds, then measured for ``minutes``, with the groups' ``timers``."""
    from shbot.bench.capacity_bot import capacity_bot, watching
    from shbot.bench.capacity_sim import Simulation
    from shbot.devtools.fake_queries import most_within

    groups = min(games, sample)
    share = groups / games
    loop = asyncio.get_running_loop()
    cpu = time.process_time()
    async with capacity_bot(share, seed, timers) as driver:
        sim = Simulation(driver, groups, seed, ramp)
        end = ramp + minutes * 60
        with watching(sim.acked, sim.committed, sim.deadline):
            rng = random.Random(seed)
            for group in sim.groups.values():
                sim.later(rng.uniform(0, ramp), group.open)
            await asyncio.sleep(end - loop.time())
            sim.unshown(end)
            figures, fake = sim.figures, driver.fake
            sim.close()
            await driver.svc.outbox.close()
    taps = [t for t in figures.taps.all if t.owed]
    visible = [(end if t.visible is None else min(t.visible, end)) - t.time for t in taps]
    complete = [(end if t.complete is None else min(t.complete, end)) - t.time for t in taps]
    stepped = {id(t) for t in figures.steps}
    steps = [(end if t.visible is None else min(t.visible, end)) - t.time for t in figures.steps]
    progress = [v for t, v in zip(taps, visible, strict=True) if id(t) not in stepped]
    chats = [c for c in fake.calls if c.chat_id is not None and ramp <= c.time < end]
    made = [c for c in chats if c.status == 200 and c.method != "answerCallbackQuery"]
    waits = figures.prompt_waits
    row: Row = {
        "bench": "capacity",
        "games": games,
        "simulated": groups,
        "token_share": round(share, 4),
        "ramp_minutes": ramp / 60,
        "minutes": minutes,
        "taps": len(taps),
        "p50": round(quantile(visible, 0.5), 2),
        "p95": round(quantile(visible, 0.95), 2),
        "max": round(max(visible, default=0.0), 1),
        "p95_complete": round(quantile(complete, 0.95), 1),
        "step_p95": round(quantile(steps, 0.95), 1),
        "progress_p95": round(quantile(progress, 0.95), 1),  # taps that changed no step
        "prompt_p95": round(quantile(waits, 0.95), 1),
        "prompt_max": round(max(waits, default=0.0), 1),
        "groups_starved": sum(1 for w in figures.worst_wait.values() if w > STARVED),
        # A sample's busiest 1/share seconds: what the whole token makes in its busiest second.
        "busiest_second": round(most_within([c.time for c in made], 1.0 / share)),
        "calls_per_game": round(len(made) / groups, 1),
        "calls_per_round": round(len(made) / max(1, figures.rounds), 1),
        "rounds_per_game": round(figures.rounds / groups, 2),
        "answers_per_game": round(
            sum(1 for c in fake.calls if c.method == "answerCallbackQuery" and c.time >= ramp)
            / groups,
            1,
        ),
        "429s": sum(1 for c in chats if c.status == 429),
        "deadlines_fired": figures.fired,
        "fired_unshown": figures.fired_unshown,
        "postponed": figures.postponed,
        "games_over": figures.games_over,
        "cpu_s": round(time.process_time() - cpu, 1),
    }
    row["breaks"] = breaks(row)
    return row


def breaks(row: Row) -> list[str]:
    """What fails at this count, in the order it matters to the players."""
    out = []
    if row["deadlines_fired"]:
        out.append(f"{row['deadlines_fired']} deadlines fired by a late prompt")
    if row["groups_starved"]:
        out.append(f"{row['groups_starved']} groups waited over {STARVED:.0f} s for a prompt")
    if row["p95"] > P95_TARGET:
        out.append(f"p95 {row['p95']} s > {P95_TARGET:.0f} s")
    if row["429s"]:
        out.append(f"{row['429s']} 429s")
    return out


def run(games: int, minutes: float, seed: int, sample: int = SAMPLE) -> Row:
    """One count on a fresh virtual-time loop (looptime); shorter from ``LARGE`` games on."""
    import looptime

    ramp = RAMP
    if games >= LARGE:
        ramp, minutes = LARGE_RAMP, min(minutes, LARGE_MINUTES)
    with asyncio.Runner(loop_factory=lambda: looptime.new_event_loop(start=0.0)) as runner:
        return runner.run(run_games(games, minutes, seed, sample, ramp=ramp))


def find(rows: list[Row], minutes: float, seed: int, sample: int) -> Row | None:
    """The largest count that holds, by bisection between the largest count listed that
    holds and the smallest that does not (to within a tenth)."""
    good = [r for r in rows if not r["breaks"]]
    bad = [r for r in rows if r["breaks"]]
    if not good or not bad:
        return None
    lo = max(good, key=lambda r: r["games"])
    hi = min((r for r in bad if r["games"] > lo["games"]), key=lambda r: r["games"], default=None)
    if hi is None:
        return None
    best = lo
    while hi["games"] - best["games"] > max(10, best["games"] // 10):
        mid = (best["games"] + hi["games"]) // 2
        r = run(mid, minutes, seed, sample)
        if r["breaks"]:
            hi = r
        else:
            best = r
    return {**best, "bench": "capacity-found", "next_breaks": hi["games"]}


def table(rows: list[Row]) -> str:
    if rows and "skipped" in rows[0]:
        return f"skipped: {rows[0]['skipped']}"
    lines = [
        "concurrent 7-player games at people's pace on one token (virtual clock): tap -> the "
        "group's screen (s), a step's prompt shown (s), calls to chats",
        f"{'games':>6} {'sim':>5} {'min':>5} {'p50':>6} {'p95':>6} {'max':>6} {'prompt95':>8} "
        f"{'promptmax':>9} {'progress95':>10} {'busiest/s':>9} {'calls/game':>10} "
        f"{'calls/round':>11} {'429':>4} {'late dl':>7} {'held dl':>7}  breaks",
    ]
    counted = [r for r in rows if r["bench"] == "capacity"]
    for r in counted:
        span = f"{r['ramp_minutes']:g}+{r['minutes']:g}"
        lines.append(
            f"{r['games']:>6} {r['simulated']:>5} {span:>5} {r['p50']:>6} {r['p95']:>6} "
            f"{r['max']:>6} {r['prompt_p95']:>8} {r['prompt_max']:>9} {r['progress_p95']:>10} "
            f"{r['busiest_second']:>9} {r['calls_per_game']:>10} {r['calls_per_round']:>11} "
            f"{r['429s']:>4} {r['deadlines_fired']:>7} {r['postponed']:>7}  "
            + ("; ".join(r["breaks"]) or "-")
        )
    if counted:
        lines.append(
            "min: minutes of ramp (groups open their games) + minutes measured (shorter from "
            f"{LARGE:,} games); sim: groups simulated (all, unless --sample: then on their share "
            "of the token); progress95: taps that changed no step (vote counts); calls/game: "
            "in the measured minutes; late dl: deadlines fired by a late prompt; held dl: "
            "deadlines that found their prompt unshown and started the clock again"
        )
        broken = [r for r in counted if r["breaks"]]
        if broken:
            first = min(broken, key=lambda r: r["games"])
            lines.append(f"first to break: at {first['games']:,} games, {first['breaks'][0]}")
    lines += [
        f"largest count that holds: {r['games']:,} games (p95 {r['p95']} s, no late deadline; "
        f"{r['next_breaks']:,} breaks)"
        for r in rows
        if r["bench"] == "capacity-found"
    ]
    lines += [f"plot: {r['path']}" for r in rows if r["bench"] == "capacity-plot"]
    return "\n".join(lines)


def plot(rows: list[Row], path: str) -> str | None:
    """p95 against concurrent games, as a PNG at ``path``; None without matplotlib."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    points = sorted(
        (r["games"], r["p95"], r["p50"], max(r["prompt_p95"], 0.05))
        for r in rows
        if r["bench"] in ("capacity", "capacity-found")
    )
    games = [p[0] for p in points]
    fig, ax = plt.subplots(figsize=(7, 4.2), dpi=100)
    ax.plot(games, [p[1] for p in points], "o-", label="tap -> screen, p95")
    ax.plot(games, [p[2] for p in points], "s--", label="tap -> screen, p50", alpha=0.7)
    ax.plot(games, [p[3] for p in points], "^:", label="step's prompt shown, p95", alpha=0.8)
    ax.axhline(P95_TARGET, color="grey", linestyle=":", label=f"target {P95_TARGET:g} s")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("concurrent 7-player games (one bot token)")
    ax.set_ylabel("seconds")
    ax.set_title("bench capacity: people's pace, Telegram's limits")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return path


def _counts(args: argparse.Namespace) -> list[int]:
    games = getattr(args, "games", None)
    if games is None:
        return list(COUNTS)
    return [int(games)] if isinstance(games, int) else list(games)


@register(
    "capacity",
    "concurrent 7-player games at people's pace one token serves (100 to 10,000)",
    table,
    drives_the_bot=True,
)
def _capacity(args: argparse.Namespace) -> list[Row]:
    minutes = getattr(args, "minutes", None) or MINUTES
    sample = getattr(args, "sample", None) or SAMPLE
    rows = [run(n, minutes, args.seed, sample) for n in _counts(args)]
    if getattr(args, "find", False):
        found = find(rows, minutes, args.seed, sample)
        if found is not None:
            rows.append(found)
    if getattr(args, "plot", None):
        drawn = plot(rows, args.plot)
        rows.append({"bench": "capacity-plot", "path": drawn or "skipped: no matplotlib"})
    return rows
