"""A series change racing generation passes, on PostgreSQL row locks.

The change plans under the series lock, so a pass that ran first is part of its plan and
a pass that runs after it sees the new rule: never a date twice, whoever wins.
"""

from datetime import timedelta
from functools import partial

import pytest
import time_machine

from events.models import Event, EventSeries
from events.series import services as recurrence_service
from events.series.services import SeriesChange
from events.series.tests.recurrence_builders import make_rule, make_series, occurrences, utc
from events.series.tests.test_recurrence_race import race

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def fresh(series: EventSeries) -> EventSeries:
    return EventSeries.objects.select_related("recurrence_rule", "template_event").get(pk=series.pk)


def generate(series: EventSeries) -> list[Event]:
    return recurrence_service.generate_series_events(fresh(series))


def change(series: EventSeries) -> object:
    body = SeriesChange(
        rule_changes={"weekdays": [0, 2], "dtstart": utc(2026, 1, 5, 10)},
        generation_window_weeks=10,
        stale="cancel",
    )
    return recurrence_service.apply_series_change(fresh(series), body)


def test_a_change_racing_generation_passes_never_doubles_a_date():
    with time_machine.travel(utc(2026, 1, 1, 12), tick=False):
        rule = make_rule(dtstart=utc(2026, 1, 5, 9), weekdays=[0])
        series = make_series(rule=rule, template={"end": utc(2026, 1, 5, 10)}, auto_publish=True)
        generate(series)
        EventSeries.objects.filter(pk=series.pk).update(last_generated_until=None)
        results = race(partial(change, series), *[partial(generate, series)] * 3)
        assert not [r for r in results if isinstance(r, Exception)], results
        live = [e for e in occurrences(series) if e.status != Event.Status.CANCELLED]
        days = [e.start.date() for e in live]
        assert len(days) == len(set(days))
        assert {(e.start.hour, e.end - e.start) for e in live} == {(10, timedelta(hours=1))}
        assert {e.start.weekday() for e in live} == {0, 2}
        EventSeries.objects.filter(pk=series.pk).update(last_generated_until=None)
        assert generate(series) == []
