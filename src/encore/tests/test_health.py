"""Liveness answers without asking anything; readiness asks the database, the broker, the
cache and the beat for real, and names what fails. (The database-stopped case runs in
the stack test, with a PostgreSQL of its own.)"""

import socket
from datetime import timedelta

import pytest
from django.conf import settings
from django.test import Client
from django.utils import timezone
from django_celery_beat.models import IntervalSchedule, PeriodicTask

pytestmark = pytest.mark.django_db


def beat_sent_heartbeat(ago: timedelta) -> None:
    """What a running beat leaves behind: its heartbeat schedule, stamped `ago`."""
    every, _ = IntervalSchedule.objects.get_or_create(every=30, period=IntervalSchedule.SECONDS)
    PeriodicTask.objects.update_or_create(
        name=settings.BEAT_HEARTBEAT_SCHEDULE,
        defaults={
            "task": "encore.beat_heartbeat",
            "interval": every,
            "last_run_at": timezone.now() - ago,
        },
    )


def unused_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_live_answers_200_json_without_any_dependency(settings) -> None:
    settings.CELERY_BROKER_URL = f"redis://127.0.0.1:{unused_port()}/1"

    response = Client().get("/health/live")

    assert response.status_code == 200
    assert response.json() == {"status": "ok"}
    assert "no-store" in response["Cache-Control"]


def test_ready_is_200_with_every_check_when_all_answer() -> None:
    beat_sent_heartbeat(timedelta(seconds=20))

    response = Client().get("/health/ready")

    assert response.status_code == 200, response.content
    body = response.json()
    assert body["status"] == "ok"
    assert body["checks"] == {
        name: {"ok": True} for name in ("database", "broker", "cache", "beat")
    }


def test_ready_is_503_naming_the_broker_when_its_port_is_closed(settings) -> None:
    beat_sent_heartbeat(timedelta(seconds=20))
    settings.CELERY_BROKER_URL = f"redis://127.0.0.1:{unused_port()}/1"
    settings.CELERY_BROKER_TRANSPORT_OPTIONS = {}

    response = Client().get("/health/ready")

    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "unavailable"
    assert body["failing"] == ["broker"]
    assert body["checks"]["broker"]["ok"] is False
    assert "broker unreachable" in body["checks"]["broker"]["error"]
    assert body["checks"]["database"] == {"ok": True}


def test_ready_is_503_naming_the_beat_when_its_heartbeat_is_stale(settings) -> None:
    settings.HEALTH_BEAT_MAX_AGE_MINUTES = 10
    beat_sent_heartbeat(timedelta(minutes=11))

    response = Client().get("/health/ready")

    assert response.status_code == 503
    assert response.json()["failing"] == ["beat"]
    assert "11 min ago" in response.json()["checks"]["beat"]["error"]


def test_ready_is_503_when_no_beat_ever_ran() -> None:
    PeriodicTask.objects.filter(name=settings.BEAT_HEARTBEAT_SCHEDULE).delete()

    response = Client().get("/health/ready")

    assert response.status_code == 503
    assert response.json()["failing"] == ["beat"]


def test_health_is_the_readiness_answer() -> None:
    """The old `/health` said "ok" with the database down; it now checks what ready does."""
    PeriodicTask.objects.filter(name=settings.BEAT_HEARTBEAT_SCHEDULE).delete()

    assert Client().get("/health").status_code == 503
    beat_sent_heartbeat(timedelta(seconds=5))
    assert Client().get("/health").status_code == 200


def test_probes_are_not_redirected_to_https_in_production(settings) -> None:
    """Load balancers probe over plain HTTP; the SSL redirect exempts the probes."""
    settings.SECURE_SSL_REDIRECT = True

    assert Client().get("/health/live").status_code == 200
    assert Client().get("/api/events").status_code == 301
