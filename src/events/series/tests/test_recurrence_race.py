"""Recurring series under contention, on PostgreSQL row locks.

Each thread has its own database connection (Django opens one per thread; each thread
closes it at the end) and a `threading.Barrier` releases them together. The series row
lock serialises generation passes and exdate writers.
"""

from collections import Counter
from collections.abc import Callable
from datetime import datetime
from functools import partial
from typing import Any

import pytest
import time_machine

from common.tests.racing import run_together
from events.models import Event, EventSeries
from events.series import services as recurrence_service
from events.series.tests.recurrence_builders import make_series, occurrences, starts, utc
from notifications.models import Notification, NotificationType

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

NEW_YEAR = utc(2026, 1, 1, 12)
MONDAYS = [utc(2026, 1, 5, 9) + (utc(2026, 1, 12) - utc(2026, 1, 5)) * week for week in range(8)]


def race(*jobs: Callable[[], Any]) -> list[Any]:
    """Run every job in its own thread, released together; returns results or exceptions."""
    return run_together(jobs)


def fresh(series: EventSeries) -> EventSeries:
    return EventSeries.objects.get(pk=series.pk)


def generate(series: EventSeries) -> list[Event]:
    return recurrence_service.generate_series_events(fresh(series))


def cancel(series: EventSeries, moment: datetime) -> object:
    return recurrence_service.cancel_occurrence(fresh(series), moment)


def test_concurrent_generation_passes_create_each_occurrence_once():
    with time_machine.travel(NEW_YEAR, tick=False):
        series = make_series(auto_publish=True)
        results = race(*[partial(generate, series)] * 8)
    assert not [r for r in results if isinstance(r, Exception)], results
    assert sorted(len(created) for created in results) == [0] * 7 + [8]
    assert starts(series) == MONDAYS
    assert Counter(e.occurrence_index for e in occurrences(series)) == Counter(range(1, 9))
    digests = Notification.objects.filter(
        notification_type=NotificationType.SERIES_EVENTS_GENERATED
    )
    assert list(digests.values_list("user_id", flat=True)) == [series.organization.owner_id]


def test_concurrent_cancellations_lose_no_exdate():
    with time_machine.travel(NEW_YEAR, tick=False):
        series = make_series()
        recurrence_service.generate_series_events(fresh(series))
        later = [utc(2026, 3, 2, 9), utc(2026, 3, 9, 9), utc(2026, 3, 16, 9), utc(2026, 3, 23, 9)]
        targets = MONDAYS + later  # 8 materialised, 4 not yet
        results = race(*[partial(cancel, series, moment) for moment in targets])
    assert not [r for r in results if isinstance(r, Exception)], results
    stored = EventSeries.objects.get(pk=series.pk).exdates
    assert sorted(stored) == sorted(recurrence_service.exdate_key(m) for m in targets)
    assert {e.status for e in occurrences(series)} == {Event.Status.CANCELLED}


def test_a_cancellation_racing_a_generation_pass_never_leaves_a_live_occurrence_on_it():
    target = utc(2026, 2, 23, 9)  # the last Monday of the first window
    for _attempt in range(3):
        with time_machine.travel(NEW_YEAR, tick=False):
            series = make_series()
            results = race(partial(generate, series), partial(cancel, series, target))
        assert not [r for r in results if isinstance(r, Exception)], results
        live = [e for e in occurrences(series) if e.start == target]
        assert all(e.status == Event.Status.CANCELLED for e in live)
        assert len(occurrences(series)) in (7, 8)
