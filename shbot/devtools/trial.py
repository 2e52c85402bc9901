"""An end-to-end trial of the bot as real groups use it: ``python -m shbot.devtools.trial``.

Serves the fake Bot API (:class:`~.trial_api.TrialAPI`, Telegram's flood limits on) over
HTTP, starts ``python -m shbot run`` against it in polling mode, and has three groups play at
the same moment at a human pace: English with 5 players (one never opens the private chat),
Japanese with 7 (``/lang ja``), French with 10 awkward names. In the middle the bot is killed
with SIGKILL and started again on the same store; what players press meanwhile is delivered
after the restart. Each group also tries bad input once. Prints what was measured
(:mod:`.trial_report`) and exits non-zero when a game did not finish.

Not imported by the bot: a developer's tool, like the benchmarks.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import secrets
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from shbot.i18n import translator
from shbot.storage import Store, open_store

from .http_api import serve
from .trial_api import BotProcess, TrialAPI, bot_env
from .trial_play import GroupPlay, user
from .trial_report import group_report, overall_lines, winners

FRENCH_NAMES = [
    ("<b>Zoé</b>", None),
    ("&amp;", "&lt;i&gt;"),
    ("\u200fسارة", "\u200f"),
    ("👩\u200d👩\u200d👧\u200d👦 Famille", "🇫🇷"),
    ("Élodie", "O'Brien & Co"),
    ("</i><script>", None),
    ("\u202eevil\u202c", None),
    ("François", "<a href='x'>"),
    ("Zoë 名前", "\u200b"),
    ("Jean-Luc", "{name}"),
]
JAPANESE_NAMES = ["さくら", "ハルト", "ゆい", "蓮", "美咲", "大翔", "葵"]


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m shbot.devtools.trial", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--store", choices=("sqlite", "redis"), default="sqlite")
    parser.add_argument(
        "--kill-at", type=float, default=150.0, help="seconds after the start (0: never kill)"
    )
    parser.add_argument("--down", type=float, default=5.0, help="seconds the bot stays dead")
    parser.add_argument("--budget", type=float, default=720.0, help="seconds for the games")
    parser.add_argument("--latency", type=float, default=0.03, help="Bot API round trip")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workdir", type=Path, help="where the store and stderr go")
    return parser.parse_args(argv)


def groups(api: TrialAPI, store: Store, seed: int) -> list[GroupPlay]:
    en = [user(n, "en") for n in ("Alice", "Bob", "Carol", "Dave", "Eve")]
    ja = [user(n, "ja") for n in JAPANESE_NAMES]
    fr = [user(first, "fr", last) for first, last in FRENCH_NAMES]
    return [
        GroupPlay("EN", "en", en, api, store, silent=4, seed=seed),
        GroupPlay("JA", "ja", ja, api, store, bot_admin=False, seed=seed + 1),
        GroupPlay("FR", "fr", fr, api, store, seed=seed + 2),
    ]


@contextlib.contextmanager
def store_env(kind: str, workdir: Path) -> Iterator[dict[str, str]]:
    if kind == "sqlite":
        yield {"SHBOT_DB": str(workdir / "shbot.sqlite3")}
        return
    from .redis_server import redis_url

    with redis_url() as (url, _):
        yield {"REDIS_URL": url, "SHBOT_REDIS_PREFIX": f"trial{secrets.token_hex(3)}:"}


async def wait_until(check: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise TimeoutError(what)
        await asyncio.sleep(0.1)


def call_lines(api: TrialAPI, start: float, end: float) -> list[str]:
    return [
        f"    t={c.time:.2f} {c.method} chat={c.chat_id} {c.status} "
        f"{(c.description or c.shown_text().splitlines()[0] if c.shown_text() else '')[:70]!r}"
        for c in api.calls
        if start <= c.time <= end and c.method.lower() != "getupdates"
    ]


async def killer(api: TrialAPI, bot: BotProcess, at: float, down: float) -> tuple[float, float]:
    """SIGKILL the bot ``at`` seconds from now, just after it was handed a press; start it
    again ``down`` seconds later. Returns (kill time, restart time) on the loop's clock."""
    loop = asyncio.get_running_loop()
    await asyncio.sleep(at)
    deadline = loop.time() + 20
    while loop.time() < deadline:
        if loop.time() - api.last_served < 0.15:
            break
        await asyncio.sleep(0.02)
    killed = loop.time()
    await bot.kill()
    pending = len(api.updates)
    await asyncio.sleep(down)
    print(f"killed at t={killed:.2f} with {pending} updates unconfirmed; restarting", flush=True)
    await bot.start()
    return killed, loop.time()


async def trial(args: argparse.Namespace) -> int:
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="shbot-trial-"))
    workdir.mkdir(parents=True, exist_ok=True)
    loop = asyncio.get_running_loop()
    with store_env(args.store, workdir) as values:
        api = TrialAPI(latency=args.latency)
        port = free_port()
        server = serve(api, port)
        # A long poll cut short by a kill or by the end of the run is logged as a 500: noise.
        logging.getLogger("tornado.access").setLevel(logging.CRITICAL)
        bot = BotProcess(workdir, bot_env(workdir, f"http://127.0.0.1:{port}", values))
        store = open_store(
            values.get("REDIS_URL"),
            values.get("SHBOT_DB"),
            **({"prefix": values["SHBOT_REDIS_PREFIX"]} if "REDIS_URL" in values else {}),
        )
        down: tuple[float, float] | None = None
        try:
            await bot.start()
            await wait_until(lambda: api.polls > 0, 60, "the bot never polled")
            print(f"bot polling (workdir {workdir}); t0={loop.time():.2f}", flush=True)
            plays = groups(api, store, args.seed)
            deadline = loop.time() + args.budget

            async def one(play: GroupPlay) -> None:
                await play.lobby()
                await play.play(deadline)

            tasks = [asyncio.create_task(one(p)) for p in plays]
            kill = None
            if args.kill_at > 0:
                kill = asyncio.create_task(killer(api, bot, args.kill_at, args.down))
            results = await asyncio.gather(*tasks, return_exceptions=True)
            for play, result in zip(plays, results, strict=True):
                if isinstance(result, BaseException):
                    play.note(f"the players gave up: {result!r}")
            if kill is not None:
                down = await kill
            await settle(api, plays, loop.time() + 240)
        finally:
            status = await bot.stop()
            server.stop()
            await store.close()
    return report(api, plays, bot, down, status)


async def settle(api: TrialAPI, plays: list[GroupPlay], deadline: float) -> None:
    """Wait until every group was told who won (the bot paces a group to 20 calls a minute,
    so the last messages of a game can come a minute after its last press), then until the
    bot has been quiet for 15 s."""
    loop = asyncio.get_running_loop()
    while loop.time() < deadline and not all(announced(api, p) for p in plays):
        await asyncio.sleep(0.5)
    while loop.time() < deadline:
        busy = [c for c in api.calls if c.method.lower() != "getupdates"]
        if not busy or loop.time() - busy[-1].time > 15:
            return
        await asyncio.sleep(0.5)


def announced(api: TrialAPI, play: GroupPlay) -> bool:
    """The group got the game-over message (or its players gave up: nothing to wait for)."""
    if not play.done:
        return True
    won = winners(translator(play.lang))
    return any(
        c.ok and c.chat_id == play.chat_id and c.shown_text().startswith(won) for c in api.calls
    )


def report(
    api: TrialAPI,
    plays: list[GroupPlay],
    bot: BotProcess,
    down: tuple[float, float] | None,
    status: int | None,
) -> int:
    print()
    for play in plays:
        for note in play.notes:
            print(note)
    if down is not None:
        print(f"\n== kill -9 at t={down[0]:.2f}, restarted at t={down[1]:.2f}; calls around it:")
        print("\n".join(call_lines(api, down[0] - 3, down[0])))
        print("    --- restart")
        print("\n".join(call_lines(api, down[1], down[1] + 8)))
    reports = [group_report(api, play, down) for play in plays]
    for rep in reports:
        print("\n".join(rep.lines()))
    print("\n".join(overall_lines(api, plays, bot.stderr())))
    print(f"  bot exit status after SIGTERM: {status}; stderr files: {bot.runs}")
    return 0 if all(rep.winner for rep in reports) else 1


def free_port() -> int:
    from .redis_server import free_port as port

    return port()


def main(argv: list[str] | None = None) -> int:
    return asyncio.run(trial(parse_args(argv)))


if __name__ == "__main__":
    sys.exit(main())
