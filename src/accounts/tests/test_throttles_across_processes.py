"""The limits hold across processes: gunicorn with 3 workers on a shared Redis cache.

Wrong log-ins and writes are fired from a thread pool, each with a different
X-Forwarded-For, at a real `gunicorn -w 3`: the per-account and per-IP log-in limits and
the write throttle admit exactly their configured number, however the requests spread
over the workers. Each phase talks from its own loopback address (127.0.0.x), which the
server sees as REMOTE_ADDR, so the phases do not share a client counter.
"""

import http.client
import itertools
import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

import pytest
import redis

from common.tests.ports import free_port
from common.tests.redis_url import redis_cache_url, require_redis

pytestmark = [pytest.mark.worker, pytest.mark.own_processes, pytest.mark.timeout(120)]

SRC_DIR = Path(__file__).resolve().parents[2]
#: Chosen by the kernel: a fixed port collided with whatever else listened there.
PORT = free_port()
PER_ACCOUNT, PER_IP, WRITES_PER_MINUTE = 4, 6, 60  # small limits: each failure costs a hash
STRONG = "a-long-unusual-passphrase"
_spoofed = (f"203.0.113.{n % 250}, 198.51.100.{n % 200}" for n in itertools.count())


def server_env(cache_url: str, workdir: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    env.update(
        DJANGO_SETTINGS_MODULE="encore.settings",
        DJANGO_DEBUG="true",
        DJANGO_SECRET_KEY="throttle-test-" + "k" * 40,
        SQLITE_PATH=str(workdir / "encore.sqlite3"),
        ENCORE_VAR_DIR=str(workdir / "var"),
        CACHE_URL=cache_url,
        THROTTLE_ENABLED="true",
        TRUSTED_PROXY_COUNT="0",
        LOGIN_FAILURES_PER_ACCOUNT=str(PER_ACCOUNT),
        LOGIN_FAILURES_PER_IP=str(PER_IP),
        WRITE_THROTTLE_RATE=f"{WRITES_PER_MINUTE}/min",
    )
    return env


@contextmanager
def gunicorn(env: dict[str, str]) -> Iterator[IO[str]]:
    """`gunicorn -w 3` on PORT, its access log (with worker pids) in the yielded file.

    The schema is migrated while gunicorn boots (both mostly import Django): the first
    request is only sent once both are done.
    """
    command = [
        sys.executable, "-m", "gunicorn", "-w", "3", "-b", f"127.0.0.1:{PORT}", "--preload",
        "--access-logfile", "-", "--access-logformat", "pid=%(p)s %(s)s %(U)s",
        "encore.wsgi",
    ]  # fmt: skip
    with tempfile.TemporaryFile("w+") as log:
        migrate = subprocess.Popen(
            [sys.executable, "manage.py", "migrate", "accounts", "--noinput"],
            cwd=SRC_DIR, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        )  # fmt: skip
        server = subprocess.Popen(command, cwd=SRC_DIR, env=env, stdout=log, stderr=log)
        try:
            output, _ = migrate.communicate(timeout=60)
            if migrate.returncode != 0:
                pytest.fail(f"migrate failed:\n{output}")
            if not _listening(server, deadline=time.monotonic() + 30):
                log.seek(0)
                pytest.fail(f"gunicorn did not start on port {PORT}:\n{log.read()[-3000:]}")
            yield log
        finally:
            migrate.kill()
            server.send_signal(signal.SIGTERM)
            try:
                server.wait(timeout=15)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait(timeout=5)


def _listening(server: subprocess.Popen[Any], deadline: float) -> bool:
    while time.monotonic() < deadline:
        if server.poll() is not None:
            return False
        try:
            with socket.create_connection(("127.0.0.1", PORT), timeout=0.5):
                return True
        except OSError:
            time.sleep(0.2)
    return False


def post(path: str, body: dict[str, Any], source: str, xff: str | None = None) -> int:
    """POST from the loopback address `source`; the HTTP status."""
    connection = http.client.HTTPConnection(
        "127.0.0.1", PORT, timeout=20, source_address=(source, 0)
    )
    headers = {"Content-Type": "application/json"}
    if xff is not None:
        headers["X-Forwarded-For"] = xff
    try:
        connection.request("POST", f"/api{path}", json.dumps(body), headers)
        return connection.getresponse().status
    finally:
        connection.close()


def fire(requests: list[tuple[str, dict[str, Any], str, str]]) -> Counter[int]:
    with ThreadPoolExecutor(max_workers=8) as pool:
        return Counter(pool.map(lambda args: post(*args), requests))


def forget_counters(url: str) -> None:
    """Counters of an earlier run within the window would still be there."""
    client = redis.Redis.from_url(url)
    for key in client.scan_iter(match="*encore-rate:*", count=500):
        client.delete(key)


def test_log_in_limits_and_the_write_throttle_hold_across_three_workers() -> None:
    url = redis_cache_url()
    require_redis(url)
    forget_counters(url)
    started = time.monotonic()
    with tempfile.TemporaryDirectory() as workdir, gunicorn(server_env(url, Path(workdir))) as log:
        victim = {"email": "victim@example.com", "password": STRONG}
        created = post("/auth/register", victim, "127.0.0.5")
        assert created == 201

        account = fire(
            [("/auth/token/pair", {"email": "victim@example.com", "password": "wrong"},
              "127.0.0.2", next(_spoofed)) for _ in range(16)]
        )  # fmt: skip
        client_ip = fire(
            [("/auth/token/pair", {"email": f"guess{n}@example.com", "password": "wrong"},
              "127.0.0.3", next(_spoofed)) for n in range(16)]
        )  # fmt: skip
        writes = fire(
            [("/auth/token/refresh", {"refresh": "not.a.jwt"}, "127.0.0.4", next(_spoofed))
             for _ in range(100)]
        )  # fmt: skip
        owner_locked_out = post("/auth/token/pair", victim, "127.0.0.6")
        log.seek(0)
        access_log = log.read()
        took = time.monotonic() - started

    assert account == {401: PER_ACCOUNT, 429: 16 - PER_ACCOUNT}, access_log[-2000:]
    assert client_ip == {401: PER_IP, 429: 16 - PER_IP}, access_log[-2000:]
    assert writes == {401: WRITES_PER_MINUTE, 429: 100 - WRITES_PER_MINUTE}, access_log[-2000:]
    assert owner_locked_out == 429  # the account's limit, from a fresh address
    workers = set(re.findall(r"pid=<?(\d+)>? \d{3} /api/auth/token/", access_log))
    assert len(workers) >= 2, f"the requests all went to one worker:\n{access_log[-2000:]}"
    assert took < 60, f"the cross-process run took {took:.1f}s"
