"""Splits under contention, on PostgreSQL row locks: the old series' row lock makes a
second split, a generation pass or an extra date wait for the first split, and whichever
order the database picks, no date exists twice and the old part generates nothing after
`from`."""

from collections.abc import Iterator
from functools import partial
from typing import Any

import pytest
import time_machine

from common.errors import EncoreError
from events.models import Event, EventSeries
from events.series import services as recurrence_service
from events.series.tests.recurrence_builders import make_series, utc
from events.series.tests.test_recurrence_race import fresh, race

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

NEW_YEAR = utc(2026, 1, 1, 12)
FROM = utc(2026, 1, 21)
EXTRA = utc(2026, 2, 4, 17)


@pytest.fixture(autouse=True)
def clock() -> Iterator[Any]:
    with time_machine.travel(NEW_YEAR, tick=False) as traveller:
        yield traveller


def _series() -> EventSeries:
    series = make_series(auto_publish=True)
    recurrence_service.generate_series_events(fresh(series))
    return series


def _all_starts(series: EventSeries) -> list[Any]:
    ids = [series.pk, *EventSeries.objects.filter(continues=series).values_list("pk", flat=True)]
    return sorted(
        Event.objects.filter(event_series__in=ids, is_template=False)
        .exclude(status=Event.Status.CANCELLED)
        .values_list("start", flat=True)
    )


def _split(series: EventSeries) -> Any:
    return recurrence_service.split_series(fresh(series), FROM)


def test_two_splits_at_once_make_one_new_series() -> None:
    series = _series()
    before = _all_starts(series)
    results = race(partial(_split, series), partial(_split, series))
    errors = [result for result in results if isinstance(result, Exception)]
    assert len(errors) == 1 and isinstance(errors[0], EncoreError), results
    assert errors[0].status_code == 400
    assert EventSeries.objects.filter(continues=series).count() == 1
    assert _all_starts(series) == before


@pytest.mark.parametrize("attempt", range(3))
def test_a_split_racing_a_pass_and_an_extra_date_loses_and_doubles_nothing(attempt: int) -> None:
    series = _series()
    EventSeries.objects.filter(pk=series.pk).update(last_generated_until=None)  # work to do
    results = race(
        partial(_split, series),
        partial(lambda: recurrence_service.generate_series_events(fresh(series))),
        partial(lambda: recurrence_service.add_extra_date(fresh(series), EXTRA)),
    )
    assert not isinstance(results[0], Exception), results
    assert not isinstance(results[1], Exception), results
    starts = _all_starts(series)
    assert len(starts) == len(set(starts))
    old_after = Event.objects.filter(event_series=series, is_template=False, start__gte=FROM)
    assert not old_after.exists()
    if isinstance(results[2], Exception):  # the split came first: the date belongs to the new part
        assert getattr(results[2], "code", None) in ("series_paused", "series_continued")
    else:
        assert EXTRA in starts
