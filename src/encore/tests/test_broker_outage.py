"""Redis gone: a write still answers within a second; Redis back empty: noticed once.

docs/spec/quality.md ("A write made while Redis is unreachable answers within 1 s") and
ADR 0037. The broker and the cache point at a Redis that is gone in one of two ways: its
port refuses connections (stopped), or it accepts them and never answers (hung). The
write is an RSVP with its throttle on: the throttle's counters (cache) and the tasks it
publishes (broker) each meet the dead Redis.
"""

import socket
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from celery import current_app
from django.conf import settings as django_settings
from kombu import Connection

from accounts.tests.factories import make_user
from common import broker
from common.models import OutboxMessage
from common.tests.dispatch_recorder import SentTasks
from encore.tests.test_outbox_worker import own_redis
from events.core.tests.factories import make_event
from notifications.tests.servers import run_silent_server
from notifications.tests.test_worker_integration import publishing_to

WITHIN_SECONDS = 1.0


@contextmanager
def refusing_port() -> Iterator[int]:
    """A port nothing listens on (a stopped Redis)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    yield port


@pytest.fixture(params=["refused", "hung"])
def dead_redis(request: pytest.FixtureRequest) -> Iterator[str]:
    if request.param == "hung":  # accepts connections, never answers a byte
        with run_silent_server() as silent:
            yield f"redis://127.0.0.1:{silent.port}"
        return
    with refusing_port() as port:
        yield f"redis://127.0.0.1:{port}"


@pytest.mark.django_db
def test_a_write_answers_within_a_second_while_redis_is_gone(
    dead_redis: str,
    settings: Any,
    api: Any,
    monkeypatch: pytest.MonkeyPatch,
    django_capture_on_commit_callbacks: Any,
) -> None:
    settings.THROTTLE_ENABLED = True
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": f"{dead_redis}/1",
            "OPTIONS": django_settings.REDIS_CACHE_OPTIONS,
        }
    }
    events = [make_event(max_attendees=5) for _ in range(3)]
    assert api(None).get("/events").status_code == 200  # the API built: not what is timed
    took = []
    with publishing_to(f"{dead_redis}/0", monkeypatch):
        for event in events:
            started = time.monotonic()
            with django_capture_on_commit_callbacks(execute=True):
                answer = api(make_user()).post(f"/events/{event.pk}/rsvp/yes")
            took.append(time.monotonic() - started)
            assert answer.status_code == 200, answer.content

    print(f"writes with Redis gone ({dead_redis}): {[round(t, 3) for t in took]} s")
    assert max(took) < WITHIN_SECONDS, took
    # What the writes sent is kept for the flush, not lost: a confirmation each.
    kept = OutboxMessage.objects.filter(task_name="events.send_rsvp_confirmation", sent_at=None)
    assert kept.count() == 3


@pytest.mark.worker
def test_a_broker_that_came_back_empty_is_noticed_once(
    monkeypatch: pytest.MonkeyPatch, sent_tasks: SentTasks
) -> None:
    with own_redis() as redis_server, publishing_to(redis_server.url, monkeypatch):
        assert broker.came_back_empty()  # never seen before: as after a deployment
        assert broker.check() == []  # holds its data now

        redis_server.stop()
        redis_server.start()  # no persistence: back empty

        assert broker.check() == django_settings.RECOVERY_TASKS_AFTER_BROKER_LOSS
        assert broker.check() == []
    assert sent_tasks.names == [
        "events.recover_lost_waitlist_tasks",
        "events.resend_lost_rsvp_confirmations",
        "notifications.redispatch_pending_deliveries",
    ]


def test_a_filesystem_broker_never_came_back_empty(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The embedded broker of `make run` (kombu's filesystem transport) keeps its messages
    as files and has no Redis client: there is nothing to notice, nothing to recover."""
    folders = {
        name: str(tmp_path / name)
        for name in ("data_folder_in", "data_folder_out", "control_folder")
    }
    for folder in folders.values():
        Path(folder).mkdir()
    embedded = Connection("filesystem://localhost//", transport_options=folders)
    monkeypatch.setattr(current_app, "connection_for_write", lambda: embedded)

    assert broker.came_back_empty() is False
