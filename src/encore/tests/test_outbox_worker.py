"""A password reset requested while the broker is down is answered 202 and sent once the
broker is back: kept in the outbox, published by `common.flush_outbox`, consumed by a real
worker, delivered to a real SMTP server (aiosmtpd).

The broker is a `redis-server` of this test's own (port 18500-18599), stopped and started
again; PostgreSQL, so the worker process sees the committed rows.
"""

import json
import socket
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import IO

import pytest
from django.test import Client

from accounts.tests.factories import make_user
from common.models import OutboxMessage
from common.tasks import flush_outbox
from notifications.tests.servers import run_smtp_server
from notifications.tests.test_worker_integration import (
    _forget_broker_connections,
    publishing_to,
    running_worker,
    wait_until_ready,
)

PORTS = range(18500, 18600)


def free_port_in_range() -> int:
    for port in PORTS:
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) != 0:
                return port
    pytest.fail("no free port in 18500-18599 for the test's own Redis")


class OwnRedis:
    """`redis-server` on a port of its own, no persistence (as .ci/run starts it)."""

    def __init__(self, port: int, directory: str) -> None:
        self.port = port
        self.directory = directory
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.process = subprocess.Popen(
            ["redis-server", "--bind", "127.0.0.1", "--port", str(self.port), "--save", "",
             "--appendonly", "no", "--dir", self.directory],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            with socket.socket() as probe:
                if probe.connect_ex(("127.0.0.1", self.port)) == 0:
                    return
            time.sleep(0.05)
        pytest.fail(f"redis-server did not start on port {self.port}")

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            self.process.wait(timeout=10)
            self.process = None


@contextmanager
def own_redis() -> Iterator[OwnRedis]:
    with tempfile.TemporaryDirectory() as directory:
        server = OwnRedis(free_port_in_range(), directory)
        server.start()
        try:
            yield server
        finally:
            server.stop()


def wait_for(condition: Callable[[], bool], timeout: float, log: IO[str]) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.2)
    log.seek(0)
    pytest.fail(f"not reached within {timeout}s; worker output:\n{log.read()[-4000:]}")


def consumers_reconnected(log: IO[str]) -> bool:
    log.seek(0)
    return log.read().count("Connected to redis://") >= 2


@pytest.mark.worker
@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_reset_requested_while_the_broker_is_down_is_sent_once_it_is_back(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    user = make_user("forgot@example.com")
    with (
        own_redis() as broker,
        run_smtp_server() as smtp,
        running_worker(broker.url, smtp) as log,
        publishing_to(broker.url, monkeypatch),
    ):
        wait_until_ready(log)
        broker.stop()

        started = time.monotonic()
        response = Client().post(
            "/api/auth/password-reset",
            data=json.dumps({"email": user.email}),
            content_type="application/json",
        )
        answered_in = time.monotonic() - started

        assert response.status_code == 202
        assert answered_in < 5, "the request does not wait for the broker"
        kept = OutboxMessage.objects.get()
        assert (kept.task_name, kept.args, kept.sent_at) == (
            "accounts.send_password_reset",
            [user.email],
            None,
        )
        assert flush_outbox()["published"] == 0  # the beat's run while it is still down

        broker.start()
        wait_for(lambda: consumers_reconnected(log), 60, log)
        _forget_broker_connections()
        assert flush_outbox() == {"published": 1, "waiting": 0, "dropped": 0}
        wait_for(lambda: len(smtp.messages) == 1, 60, log)
        assert flush_outbox()["published"] == 0
        time.sleep(1)  # a duplicate would have arrived by now

    (message,) = smtp.messages
    assert message["To"] == user.email
    assert message["Subject"] == "Reset your Encore password"
