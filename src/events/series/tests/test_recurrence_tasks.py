"""The daily fan-out, the per-series task's retry policy, and the beat schedule."""

import pytest
import time_machine
from django.db import InterfaceError, OperationalError, ProgrammingError
from django_celery_beat.models import PeriodicTask

from common import outbox
from common.models import OutboxMessage
from events.core.tests.factories import make_org
from events.models import EventSeries
from events.series import services as recurrence_service
from events.series import tasks
from events.series.tests.recurrence_builders import make_series, occurrences, utc

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _eager_retries():
    """Celery runs an eager task's retries inline but re-reads `task_eager_propagates` for
    each retry, so with propagation on the first retry would surface as an exception;
    `EagerResult.get()` still re-raises the final error."""
    from encore.celery import app

    before = app.conf.task_eager_propagates
    app.conf.task_eager_propagates = False
    yield
    app.conf.task_eager_propagates = before


@pytest.fixture
def flaky(monkeypatch):
    """`generate_for_series_id` raising the queued errors, then returning 3."""

    def install(*errors: BaseException):
        calls: list[str] = []
        queue = list(errors)

        def fake(series_id):
            calls.append(str(series_id))
            if queue:
                raise queue.pop(0)
            return 3

        monkeypatch.setattr(recurrence_service, "generate_for_series_id", fake)
        return calls

    return install


def run_single(series_id: str = "00000000-0000-0000-0000-000000000001"):
    return tasks.generate_single_series_events_task.apply(args=(series_id,)).get()


class DriverError(Exception):
    """Stands for the psycopg error Django wraps (it carries the SQLSTATE)."""

    def __init__(self, message: str, sqlstate: str | None) -> None:
        super().__init__(message)
        self.sqlstate = sqlstate


def pg_error(sqlstate: str | None, message: str = "boom") -> OperationalError:
    error = OperationalError(message)
    error.__cause__ = DriverError(message, sqlstate)
    return error


# -- fan-out ---------------------------------------------------------------------------------------
def test_the_daily_task_dispatches_one_task_per_active_series(sent_tasks):
    active = [make_series(), make_series()]
    make_series(is_active=False)
    EventSeries.objects.create(organization=make_org(), name="Plain", slug="plain")
    dispatched = tasks.generate_recurring_events_task.apply().get()
    sent = [args[0] for args in sent_tasks.named("events.generate_single_series_events")]
    assert sorted(sent) == sorted(dispatched) == sorted(str(s.pk) for s in active)


def test_a_refused_dispatch_does_not_stop_the_others_and_waits_in_the_outbox(monkeypatch):
    first, second = make_series(), make_series()
    sent: list[str] = []

    def apply_async(args: tuple[str], kwargs: dict, **options: object) -> None:
        if args[0] == str(min(first.pk, second.pk)):
            raise ConnectionError("broker down")
        sent.append(args[0])

    monkeypatch.setattr(tasks.generate_single_series_events_task, "apply_async", apply_async)
    # One publish refused, the broker otherwise up: no pause after the refusal, which
    # would keep the others in the outbox too (common.circuit).
    monkeypatch.setattr(outbox.BROKER, "pause", 0.0)
    dispatched = tasks.generate_recurring_events_task.apply().get()
    assert dispatched == sent == [str(max(first.pk, second.pk))]
    kept = OutboxMessage.objects.get()
    assert (kept.task_name, kept.args) == (
        "events.generate_single_series_events",
        [str(min(first.pk, second.pk))],
    )


def test_the_single_task_generates_the_series():
    series = make_series()
    with time_machine.travel(utc(2026, 1, 1, 12), tick=False):
        assert run_single(str(series.pk)) == 8
    assert len(occurrences(series)) == 8


def test_a_vanished_series_creates_nothing():
    assert run_single() == 0


# -- retries -----------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "error",
    [
        pg_error("40P01", "deadlock detected"),
        pg_error("55P03", "canceling statement due to lock timeout"),
        pg_error("08006", "connection failure"),
        pg_error(None, "server closed the connection unexpectedly"),
        OperationalError("database is locked"),
        InterfaceError("connection already closed"),
    ],
)
def test_transient_database_errors_are_retried(flaky, error):
    calls = flaky(error, error)
    assert run_single() == 3
    assert len(calls) == 3


def test_retries_stop_after_three(flaky):
    deadlock = pg_error("40P01", "deadlock detected")
    calls = flaky(*[deadlock] * 5)
    with pytest.raises(OperationalError):
        run_single()
    assert len(calls) == 1 + tasks.SERIES_MAX_RETRIES


@pytest.mark.parametrize(
    "error",
    [
        ProgrammingError("column does not exist"),
        recurrence_service.NotARecurringSeries(),
        ValueError("bad rule"),
        pg_error("42P01", 'relation "events_event" does not exist'),
        OperationalError("no such table: events_event"),
    ],
)
def test_programming_errors_fail_at_once(flaky, error):
    calls = flaky(error)
    with pytest.raises(type(error)):
        run_single()
    assert len(calls) == 1


# -- schedule ----------------------------------------------------------------------------------------
def test_the_daily_generation_runs_at_04_00_utc():
    periodic = PeriodicTask.objects.select_related("crontab").get(
        task="events.generate_recurring_events"
    )
    crontab = periodic.crontab
    assert periodic.enabled
    assert (crontab.minute, crontab.hour, crontab.day_of_week, str(crontab.timezone)) == (
        "0",
        "4",
        "*",
        "UTC",
    )
