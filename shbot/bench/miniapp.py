"""``python -m shbot bench miniapp``: a press on the Mini App's page to the page showing it.

The bot with its Mini App on loopback (the real Application and Tornado server, over the
fake Bot API, pacing off). Each 7-player game is played by its players from the page: every
move and claim the game asks for is posted to ``/api/act`` as the page posts it (signed
initData), and timed until the presser's own event stream (open all game long, as the page
keeps it) delivers the view that follows. Lobby steps go through the chat as usual. Also
the process's memory per open event stream: ``--games`` streams more of one watcher.
Targets: p95 under 100 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import time
from typing import Any

from shbot.bench.common import ms, rss_mb
from shbot.bench.registry import Row, register

TARGET_P95_MS = 100.0
GAMES = 3
PLAYERS = 7
EXTRA_STREAMS = 300  # opened at the end to weigh one stream
LOBBY_OPS = ("j", "l", "s")  # join, leave, start: callbacks.JOIN, LEAVE, START


class Stream:
    """One page's event stream: the arrival time of each view."""

    def __init__(self, client: Any, url: str, init: str) -> None:
        self.arrived: list[float] = []
        self.ready = asyncio.Event()
        self.task = asyncio.ensure_future(self._read(client, url, init))

    async def _read(self, client: Any, url: str, init: str) -> None:
        headers = {"Authorization": f"tma {init}"}
        async with client.stream("GET", url, headers=headers, timeout=None) as response:
            async for line in response.aiter_lines():
                if line.startswith("data: "):
                    self.arrived.append(time.perf_counter())
                    self.ready.set()

    async def after(self, start: float, timeout: float = 5.0) -> float:
        """Seconds from ``start`` to the first view that arrived after it."""
        deadline = time.perf_counter() + timeout
        while time.perf_counter() < deadline:
            later = [t for t in self.arrived if t > start]
            if later:
                return later[0] - start
            await asyncio.sleep(0.0005)
        raise TimeoutError("the page never showed the press")


async def bench_miniapp(games: int, seed: int = 0) -> list[Row]:
    import httpx

    from shbot.bench.common import bench_store
    from shbot.bot import callbacks as cb
    from shbot.bot.app import build_application
    from shbot.bot.config import Config
    from shbot.devtools.driver import Driver, GameRun, NotReady, make_users
    from shbot.devtools.fake_telegram import FakeBotAPI
    from shbot.webapp.auth import init_data

    fake = FakeBotAPI()
    config = Config(
        token=fake.token,
        timers="off",
        webapp_url="https://bench.example.org/table/",
        webapp_listen="127.0.0.1",
        webapp_port=0,
    )
    latencies: list[float] = []
    async with bench_store("sqlite") as store:
        app = build_application(config, store, request=fake, menus=False)
        app.bot._rate_limiter = None
        svc = app.bot_data["svc"]
        svc.outbox.pacer.enabled = False
        web = app.bot_data["webapp"]
        async with Driver(app, fake, store) as driver:
            port = await web.start("127.0.0.1", 0)
            base = f"http://127.0.0.1:{port}/table/api"
            limits = httpx.Limits(max_connections=2000, max_keepalive_connections=100)
            async with httpx.AsyncClient(limits=limits) as client:
                web.presses.burst = web.presses.rate = 1e9  # one client posts for seven
                for g in range(games):
                    run = GameRun(driver, make_users(PLAYERS), seed + g)
                    streams: dict[int, Stream] = {}
                    inits = {u.id: init_data(fake.token, u.to_dict()) for u in run.users}
                    while not run.done:
                        try:
                            payload = await run.next_update()
                        except NotReady:
                            await driver.settle(60)
                            continue
                        if payload is None:
                            break
                        query: dict[str, Any] = payload.get("callback_query") or {}
                        press = cb.parse(query.get("data"))
                        lobby = not isinstance(press, cb.GamePress) or press.op in LOBBY_OPS
                        chat = None if lobby else await store.player_chat(query["from"]["id"])
                        if chat is None:  # the lobby: through the chat
                            await driver.feed(payload)
                            continue
                        user = query["from"]["id"]
                        url = f"{base}/events?chat={chat}"
                        if user not in streams:
                            streams[user] = Stream(client, url, inits[user])
                            await asyncio.wait_for(streams[user].ready.wait(), 10)
                        start = time.perf_counter()
                        response = await client.post(
                            f"{base}/act?chat={chat}",
                            headers={"Authorization": f"tma {inits[user]}"},
                            content=json.dumps({"data": query["data"], "id": f"b{len(latencies)}"}),
                        )
                        response.raise_for_status()
                        latencies.append(await streams[user].after(start))
                        await driver.settle(60)
                    for stream in streams.values():
                        stream.task.cancel()
                # Memory per stream: more streams of one player of a running game.
                run = GameRun(driver, make_users(PLAYERS), seed + games)
                while await store.player_chat(run.users[0].id) is None:
                    payload = await run.next_update()
                    assert payload is not None
                    await driver.feed(payload)
                chat = await store.player_chat(run.users[0].id)
                web.streams_per_user = web.max_streams = 10**6
                init = init_data(fake.token, run.users[0].to_dict())
                before = rss_mb()[0]
                extra = [
                    Stream(client, f"{base}/events?chat={chat}", init) for _ in range(EXTRA_STREAMS)
                ]
                await asyncio.wait_for(asyncio.gather(*(s.ready.wait() for s in extra)), 60)
                after = rss_mb()[0]
                for stream in extra:
                    stream.task.cancel()
            await web.stop()
    p50 = statistics.median(latencies)
    p95 = statistics.quantiles(latencies, n=20)[-1]
    return [
        {
            "bench": "miniapp",
            "games": games,
            "presses": len(latencies),
            "p50_ms": round(ms(p50), 2),
            "p95_ms": round(ms(p95), 2),
            "max_ms": round(ms(max(latencies)), 2),
            "kb_per_stream": round(1024 * (after - before) / EXTRA_STREAMS, 1),
            "ok": ms(p95) < TARGET_P95_MS,
        }
    ]


def _table(rows: list[Row]) -> str:
    r = rows[0]
    return (
        f"{r['presses']} presses from the page in {r['games']} games: to the page showing "
        f"them p50 {r['p50_ms']} ms, p95 {r['p95_ms']} ms, max {r['max_ms']} ms "
        f"(target p95 < {TARGET_P95_MS:.0f} ms){'' if r['ok'] else '  MISSED'}; "
        f"{r['kb_per_stream']} KB per open event stream"
    )


@register(
    "miniapp",
    "Mini App: a press on the page to the page showing it; memory per stream",
    _table,
    drives_the_bot=True,
)
def _miniapp(args: argparse.Namespace) -> list[Row]:
    return asyncio.run(bench_miniapp(args.games or GAMES, args.seed))
