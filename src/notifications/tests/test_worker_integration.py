"""A real Celery worker, a real Redis broker, a real SMTP server: on-commit dispatch
reaches the worker and the e-mail goes out. PostgreSQL only (the worker is another
process and must see the committed rows of the test database)."""

import os
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any, Protocol
from urllib.parse import quote

import kombu.pools
import pytest
import redis
from django.conf import settings
from django.db import connection, transaction

from accounts.models import User
from common.tests.redis_url import redis_broker_url
from encore.celery import app as celery_app
from notifications.models import Notification, NotificationDelivery, NotificationPreference
from notifications.signals import notification_requested
from notifications.tests.contexts import offer_context
from notifications.tests.servers import SmtpServer

SRC_DIR = Path(__file__).resolve().parents[2]
WORKER_TIMEOUT_SECONDS = 60


def broker_url() -> str:
    """This test process's broker database (`common.tests.redis_url.redis_broker_url`)."""
    return redis_broker_url(str(connection.settings_dict["NAME"]))


def require_redis(url: str) -> None:
    try:
        redis.Redis.from_url(url, socket_connect_timeout=2).ping()
    except redis.RedisError as exc:
        message = f"Redis is unreachable at {url} ({exc}); the worker test needs a real broker"
        if os.environ.get("CI"):
            pytest.fail(message + " and CI must run it")
        pytest.skip(message)


def worker_database_url() -> str:
    """The database pytest-django created (`test_<name>`), for the worker process."""
    db = connection.settings_dict
    credentials = quote(db["USER"] or "", safe="")
    if db["PASSWORD"]:
        credentials += ":" + quote(db["PASSWORD"], safe="")
    host = f"{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}"
    return f"postgres://{credentials}@{host}/{db['NAME']}"


class SmtpAddress(Protocol):
    host: str
    port: int


@contextmanager
def running_worker(
    url: str,
    smtp_server: SmtpAddress,
    *,
    queues: str | None = None,
    pool: Sequence[str] = ("--pool=solo",),
    name: str = "notifications-test",
    env: Mapping[str, str] | None = None,
) -> Iterator[IO[str]]:
    """`celery -A encore worker --pool=solo` on the test database; stopped in any case.
    `queues`: its `-Q` (every declared queue when None)."""
    environment = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "encore.settings",
        "DATABASE_URL": worker_database_url(),
        "CELERY_BROKER_URL": url,
        "CELERY_TASK_ALWAYS_EAGER": "false",
        "EMAIL_HOST": smtp_server.host,
        "EMAIL_PORT": str(smtp_server.port),
        "TELEGRAM_BOT_TOKEN": "",
        **(env or {}),
    }
    command = [
        sys.executable, "-m", "celery", "-A", "encore", "worker", *pool,
        "--loglevel=INFO", "--without-gossip", "--without-mingle", "--without-heartbeat",
        "-n", f"{name}-{uuid.uuid4().hex[:8]}@%h",
    ]  # fmt: skip
    if queues:
        command += ["-Q", queues]
    with tempfile.TemporaryFile("w+") as log:
        worker = subprocess.Popen(command, cwd=SRC_DIR, env=environment, stdout=log, stderr=log)
        try:
            yield log
        finally:
            worker.terminate()
            try:
                worker.wait(timeout=15)
            except subprocess.TimeoutExpired:
                worker.kill()
                worker.wait(timeout=5)


def wait_until_ready(log: IO[str], timeout: float = WORKER_TIMEOUT_SECONDS) -> None:
    """Until the worker logs that it consumes (Celery's "ready." line)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        log.seek(0)
        output = log.read()
        if " ready." in output:
            return
        time.sleep(0.2)
    pytest.fail(f"the worker did not start within {timeout}s:\n{output[-4000:]}")


@contextmanager
def publishing_to(url: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """This process sends tasks to `url` instead of running them eagerly (test settings)."""
    monkeypatch.setenv("CELERY_BROKER_URL", url)  # Celery reads it before its own config
    conf = celery_app.conf
    names = ("broker_url", "broker_transport_options", "task_always_eager")
    saved = {name: conf[name] for name in names}
    _forget_broker_connections()
    conf.update(
        broker_url=url,
        broker_transport_options=settings.REDIS_BROKER_TRANSPORT_OPTIONS,
        task_always_eager=False,
    )
    try:
        yield
    finally:
        _forget_broker_connections()
        conf.update(saved)


def _forget_broker_connections() -> None:
    """Celery and kombu keep the broker connection pools made on first use; close and
    drop them so the next publish connects to the broker configured now (as after a fork)."""
    kombu.pools.reset()
    celery_app._pool = None  # type: ignore[attr-defined]
    celery_app.amqp._producer_pool = None  # type: ignore[attr-defined]


def wait_for_final_status(notification: Notification, log: IO[str]) -> NotificationDelivery:
    deadline = time.monotonic() + WORKER_TIMEOUT_SECONDS
    while time.monotonic() < deadline:
        delivery = NotificationDelivery.objects.get(notification=notification, channel="email")
        if delivery.status in (
            NotificationDelivery.Status.SENT,
            NotificationDelivery.Status.FAILED,
        ):
            return delivery
        time.sleep(0.25)
    log.seek(0)
    pytest.fail(
        f"the e-mail delivery is still {delivery.status!r} after {WORKER_TIMEOUT_SECONDS}s "
        f"(did another worker on the same Redis database take the message?)\n"
        f"worker output:\n{log.read()[-4000:]}"
    )


@pytest.mark.worker
@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_real_worker_sends_the_email_dispatched_on_commit_and_nothing_rolled_back(
    user: User, smtp_server: SmtpServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = broker_url()
    require_redis(url)
    NotificationPreference.objects.create(user=user, enabled_channels=["in_app", "email"])

    with running_worker(url, smtp_server) as log, publishing_to(url, monkeypatch):
        with pytest.raises(RuntimeError), transaction.atomic():
            _notify(user)
            raise RuntimeError("rolled back: must reach nobody")
        with transaction.atomic():
            notification = _notify(user)
        delivery = wait_for_final_status(notification, log)
        log.seek(0)
        worker_output = log.read()

    # A waitlist offer: its e-mail goes by the time-critical task (queue `notify`).
    assert "notifications.deliver_critical[" in worker_output, worker_output
    assert "succeeded" in worker_output, worker_output
    assert (delivery.status, delivery.attempts, delivery.error) == ("sent", 1, "")
    assert Notification.objects.count() == 1  # the rolled-back one left no row behind
    (message,) = smtp_server.messages
    assert message["To"] == user.email
    text = message.get_body(("plain",))
    assert text is not None
    assert "Tue 3 Mar 2026, 19:00 CET" in text.get_content()
    in_app = NotificationDelivery.objects.get(notification=notification, channel="in_app")
    assert in_app.status == "sent"


def _notify(user: User) -> Any:
    ((_receiver, notification),) = notification_requested.send(
        sender=None,
        notification_type="waitlist_spot_available",
        user=user,
        context=offer_context(),
    )
    return notification
