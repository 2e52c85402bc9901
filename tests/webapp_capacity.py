"""How many Mini App event streams one bot process holds (issue 34): not a test, a
measurement, run by hand on loopback only:

    python -m tests.webapp_capacity [--steps 250,500,1000,2000] [--users 1]

A server process (``serve``: the bot over the fake Bot API, its Mini App, one 5-player
game whose group has ``--users`` members watching) and this process opening bare event
streams in steps. At each step: the server's resident memory, then three presses of the
game, each timed from the press to the bot's answer (the callback), and until every open
stream has received the change. Streams of one user by default, as in the issue (the caps
are lifted for the measurement). Bounded: at most the steps given, 60 s a step.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import resource
import sys
import tempfile
import time
import zlib
from pathlib import Path
from typing import Any

from shbot.bot import callbacks as cb
from shbot.storage import open_store
from tests.botplay import RandomPlay, next_turn, open_game
from tests.harness import make_user, make_users
from tests.webapp_bot import signed, webapp, webapp_bot


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


async def serve(users: int) -> None:
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    store = open_store(sqlite_path=str(Path(tempfile.mkdtemp()) / "shbot.sqlite3"))
    async with webapp_bot(store) as bot:
        app = webapp(bot)
        for name, value in (("max_streams", 10**6), ("streams_per_user", 10**6)):
            if hasattr(app, name):
                setattr(app, name, value)
        if hasattr(app.server, "max_connections"):
            app.server.max_connections = 10**6  # type: ignore[union-attr]
        players = make_users(5)
        watchers = [make_user(f"W{i}") for i in range(users)]
        group = bot.h.group(creator=players[0], members=[*players[1:], *watchers])
        await open_game(bot, players, group=group)
        by_id = {u.id: u for u in players}
        strategy = RandomPlay(3)
        inits = [signed(bot, u) for u in watchers]
        say({"port": app.port, "chat": group.id, "inits": inits, "rss": rss_mb()})
        loop = asyncio.get_running_loop()
        reader = asyncio.StreamReader()
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
        while line := (await reader.readline()).decode().strip():
            if line == "rss":
                say({"rss": rss_mb()})
            elif line == "press":
                turn = await next_turn(bot, group, by_id)
                assert turn is not None
                op, arg = strategy.choose(turn)
                data = cb.game_data(turn.table.gid, turn.table.step, op, arg)
                started = time.monotonic()
                await bot.h.press(turn.user, turn.message, data=data)
                say({"answered": time.monotonic() - started})
                await bot.settle()
                say({"settled": True})
    await store.close()


def say(what: dict[str, Any]) -> None:
    print(json.dumps(what), flush=True)


async def open_stream(port: int, chat: int, init: str) -> tuple[Any, Any, bool]:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(
        f"GET /table/api/events?chat={chat} HTTP/1.1\r\nHost: x\r\nAuthorization: tma {init}\r\n"
        "Accept-Encoding: gzip\r\n\r\n".encode()  # as a browser asks
    )
    head = await reader.readuntil(b"\r\n\r\n")
    assert b" 200 " in head.split(b"\r\n")[0], head[:60]
    return reader, writer, b"content-encoding: gzip" in head.lower()


async def events(reader: asyncio.StreamReader, gzip: bool, seen: list[float], i: int) -> None:
    """Note when stream ``i`` last received a view (its chunks, gunzipped if need be)."""
    inflate = zlib.decompressobj(16 + zlib.MAX_WBITS) if gzip else None
    while True:
        size = int((await reader.readuntil(b"\r\n")).strip(), 16)
        if size == 0:
            return
        chunk = (await reader.readexactly(size + 2))[:-2]
        if inflate is not None:
            chunk = inflate.decompress(chunk)
        if b"data: " in chunk:
            seen[i] = time.monotonic()


async def measure(steps: list[int], users: int) -> None:
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    server = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "tests.webapp_capacity", "serve", "--users", str(users),
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
    )  # fmt: skip
    assert server.stdout is not None and server.stdin is not None

    async def ask(line: str) -> dict[str, Any]:
        assert server.stdin is not None and server.stdout is not None
        server.stdin.write(f"{line}\n".encode())
        await server.stdin.drain()
        return dict(json.loads(await server.stdout.readline()))

    hello = json.loads(await server.stdout.readline())
    base = hello["rss"]
    print(f"server up: RSS {base:.1f} MB, port {hello['port']}")
    streams: list[Any] = []
    seen: list[float] = []
    tasks = []
    try:
        for target in steps:
            while len(streams) < target:
                batch = min(100, target - len(streams))
                opened = await asyncio.gather(
                    *(
                        open_stream(hello["port"], hello["chat"], hello["inits"][i % users])
                        for i in range(len(streams), len(streams) + batch)
                    )
                )
                for reader, writer, gzip in opened:
                    seen.append(0.0)
                    tasks.append(asyncio.ensure_future(events(reader, gzip, seen, len(seen) - 1)))
                    streams.append(writer)
            await asyncio.sleep(1.0)
            rss = (await ask("rss"))["rss"]
            answered, fanout = [], []
            for _ in range(3):
                sent = time.monotonic()
                answered.append((await ask("press"))["answered"])
                async with asyncio.timeout(60):
                    while min(seen) < sent:
                        await asyncio.sleep(0.005)
                fanout.append(max(seen) - sent)
                await server.stdout.readline()  # settled
            per = (rss - base) * 1024 / target
            print(
                f"{target:5d} streams: RSS {rss:7.1f} MB (+{per:5.1f} KB a stream); press "
                f"answered in max {1000 * max(answered):6.0f} ms; every stream had it in max "
                f"{1000 * max(fanout):6.0f} ms",
                flush=True,
            )
    finally:
        for task in tasks:
            task.cancel()
        for writer in streams:
            writer.close()
        server.stdin.close()
        try:
            await asyncio.wait_for(server.wait(), 30)
        except TimeoutError:
            server.kill()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("role", nargs="?", default="measure", choices=["measure", "serve"])
    parser.add_argument("--steps", default="250,500,1000,2000")
    parser.add_argument("--users", type=int, default=1)
    args = parser.parse_args()
    if args.role == "serve":
        asyncio.run(serve(args.users))
    else:
        asyncio.run(measure([int(s) for s in args.steps.split(",")], args.users))


if __name__ == "__main__":
    main()
