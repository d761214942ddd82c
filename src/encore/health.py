"""`/health/live` and `/health/ready`: what a load balancer and an orchestrator ask.

Liveness says only that this process answers (no dependency is asked), so a database
outage never makes an orchestrator restart healthy web processes. Readiness checks for
real what a request needs: the database answers a query, the broker accepts a
connection, the cache stores and returns a value, and the beat scheduler sent its
heartbeat recently (a stack without beat would look healthy while no offer ever
expires). Each check has a short timeout; the answer is JSON, 200 with every check, or
503 naming the failing ones. `/health` is the readiness answer: it was the one probe
before, and a probe that says "ok" with the database down is what issue 9 reports.

The checks run one after the other in the request's thread (so they use this thread's
database connection and leave none behind in a pool); django-health-check supplies the
database and cache probes and the error vocabulary.
"""

import dataclasses
import datetime
import inspect
import logging
from typing import Any

from asgiref.sync import async_to_sync
from django.conf import settings
from django.db import DatabaseError
from django.http import HttpRequest, JsonResponse
from django.utils import timezone
from django.utils.cache import add_never_cache_headers
from django.views.decorators.http import require_GET
from django_celery_beat.models import PeriodicTask
from health_check.base import HealthCheck
from health_check.checks import Cache, Database
from health_check.exceptions import HealthCheckException, ServiceUnavailable
from kombu import Connection

logger = logging.getLogger("encore.health")


@dataclasses.dataclass
class Broker(HealthCheck):
    """The Celery broker accepts a connection (Redis: a PING on a fresh connection)."""

    url: str = dataclasses.field(repr=False, default="")
    transport_options: dict[str, Any] = dataclasses.field(repr=False, default_factory=dict)
    connect_timeout: float = dataclasses.field(repr=False, default=2.0)

    def run(self) -> None:
        connection = Connection(
            self.url,
            transport_options=self.transport_options,
            connect_timeout=self.connect_timeout,
        )
        try:
            connection.ensure_connection(max_retries=0, timeout=max(int(self.connect_timeout), 1))
        except Exception as exc:  # kombu raises the transport's own errors
            raise ServiceUnavailable(f"broker unreachable ({type(exc).__name__})") from exc
        finally:
            connection.release()


@dataclasses.dataclass
class BeatHeartbeat(HealthCheck):
    """The beat sent its heartbeat (every 30 s) within `max_age` (django-celery-beat's
    `last_run_at`, written back after each send: CELERY_BEAT_SYNC_EVERY)."""

    max_age: datetime.timedelta = datetime.timedelta(minutes=10)

    def run(self) -> None:
        try:
            last_run_at = (
                PeriodicTask.objects.filter(name=settings.BEAT_HEARTBEAT_SCHEDULE, enabled=True)
                .values_list("last_run_at", flat=True)
                .first()
            )
        except DatabaseError as exc:
            raise ServiceUnavailable("cannot read the heartbeat: database unavailable") from exc
        if last_run_at is None:
            raise ServiceUnavailable("no heartbeat from the beat yet (is it running?)")
        age = timezone.now() - last_run_at
        if age > self.max_age:
            raise ServiceUnavailable(f"last heartbeat {int(age.total_seconds() // 60)} min ago")


def readiness_checks() -> dict[str, HealthCheck]:
    timeout = datetime.timedelta(seconds=settings.HEALTH_CHECK_TIMEOUT_SECONDS)
    return {
        "database": Database(),
        "broker": Broker(
            url=settings.CELERY_BROKER_URL,
            transport_options=dict(settings.CELERY_BROKER_TRANSPORT_OPTIONS),
            connect_timeout=timeout.total_seconds(),
        ),
        "cache": Cache(timeout=timeout),
        "beat": BeatHeartbeat(
            max_age=datetime.timedelta(minutes=settings.HEALTH_BEAT_MAX_AGE_MINUTES)
        ),
    }


def run_check(check: HealthCheck) -> str | None:
    """None when the check passed, else a short reason that names no secret."""
    try:
        if inspect.iscoroutinefunction(check.run):
            async_to_sync(check.run)()
        else:
            check.run()
    except HealthCheckException as exc:
        return exc.message
    except Exception:
        logger.exception("health check crashed", extra={"check": type(check).__name__})
        return "unexpected error"
    return None


@require_GET
def live(_request: HttpRequest) -> JsonResponse:
    return _never_cached(JsonResponse({"status": "ok"}))


@require_GET
def ready(_request: HttpRequest) -> JsonResponse:
    results = {name: run_check(check) for name, check in readiness_checks().items()}
    failing = [name for name, error in results.items() if error]
    body: dict[str, Any] = {
        "status": "unavailable" if failing else "ok",
        "checks": {
            name: {"ok": error is None, **({"error": error} if error else {})}
            for name, error in results.items()
        },
    }
    if failing:
        body["failing"] = failing
        logger.warning("not ready", extra={"failing": failing})
    return _never_cached(JsonResponse(body, status=503 if failing else 200))


def _never_cached(response: JsonResponse) -> JsonResponse:
    add_never_cache_headers(response)
    return response
