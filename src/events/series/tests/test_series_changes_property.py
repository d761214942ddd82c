"""Preview equals apply: over random rules, edits, changes and clock positions, the dates
the preview says are created, the occurrences it says move and those it says go stale
are exactly what the PATCH's service then does (and a rescan afterwards adds nothing).

Each example runs in its own savepoint, rolled back at its end. Scale it up with
`HYPOTHESIS_SERIES_EXAMPLES=300`.
"""

import os
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
import time_machine
from django.db import transaction
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from events.core.services import event_service
from events.models import Event, EventSeries
from events.series import services as recurrence_service
from events.series.services import SeriesChange
from events.series.tests.recurrence_builders import generate, make_rule, make_series, occurrences

EXAMPLES = int(os.environ.get("HYPOTHESIS_SERIES_EXAMPLES", "30"))
ZONES = ("Europe/Vienna", "UTC", "America/New_York")
WEEKDAYS = st.lists(st.integers(0, 6), min_size=1, max_size=4, unique=True).map(sorted)


@st.composite
def scenarios(draw: st.DrawFn) -> dict:
    zone = draw(st.sampled_from(ZONES))
    day = draw(st.dates(datetime(2026, 1, 1).date(), datetime(2026, 11, 30).date()))
    hour = draw(st.integers(0, 23))
    dtstart = datetime(day.year, day.month, day.day, hour, tzinfo=ZoneInfo(zone)).astimezone(UTC)
    frequency = draw(st.sampled_from(["daily", "weekly", "weekly"]))
    rule = {
        "frequency": frequency,
        "interval": draw(st.integers(1, 2)),
        "weekdays": draw(WEEKDAYS) if frequency == "weekly" else [],
        "timezone": zone,
    }
    weeks = draw(st.integers(1, 8))
    change: dict = {}
    rule_changes: dict = {}
    if draw(st.booleans()):
        rule_changes["weekdays"] = draw(WEEKDAYS)
    if draw(st.booleans()):
        rule_changes["interval"] = draw(st.integers(1, 3))
    if draw(st.booleans()):
        shift = timedelta(hours=draw(st.integers(-30, 30)))
        rule_changes["dtstart"] = dtstart + shift
    if draw(st.booleans()):
        rule_changes["timezone"] = draw(st.sampled_from(ZONES))
    if draw(st.booleans()):
        change["duration"] = timedelta(minutes=draw(st.integers(15, 600)))
    if draw(st.booleans()):
        change["generation_window_weeks"] = draw(st.integers(1, 10))
    change["rule_changes"] = rule_changes
    change["stale"] = draw(st.sampled_from(["keep", "cancel"]))
    return {
        "dtstart": dtstart,
        "rule": rule,
        "weeks": weeks,
        "setup_at": dtstart - timedelta(hours=draw(st.integers(1, 72))),
        "later": timedelta(hours=draw(st.integers(0, weeks * 7 * 24))),
        "edited": draw(st.lists(st.integers(0, 60), max_size=3, unique=True)),
        "cancelled": draw(st.lists(st.integers(0, 60), max_size=2, unique=True)),
        "change": change,
    }


def _build(scenario: dict) -> EventSeries:
    series = make_series(
        rule=make_rule(dtstart=scenario["dtstart"], **scenario["rule"]),
        template={"end": scenario["dtstart"] + timedelta(hours=1)},
        generation_window_weeks=scenario["weeks"],
        auto_publish=True,
    )
    generate(series)
    return series


def _touch(series: EventSeries, scenario: dict) -> None:
    """Organisers' edits and cancellations before the change."""
    events = occurrences(series)
    for index in scenario["edited"]:
        if index < len(events):
            event_service.update_event(events[index], {"description": "Edited"})
    for index in scenario["cancelled"]:
        if index < len(events) and events[index].status != Event.Status.CANCELLED:
            recurrence_service.cancel_occurrence(_fresh(series), events[index].start)


def _fresh(series: EventSeries) -> EventSeries:
    return EventSeries.objects.select_related("recurrence_rule", "template_event").get(pk=series.pk)


def _check(series: EventSeries, change: SeriesChange) -> None:
    plan = recurrence_service.preview_series_change(_fresh(series), change)
    applied = recurrence_service.apply_series_change(_fresh(series), change)

    created = Event.objects.filter(pk__in=applied.created)
    assert sorted(e.start for e in created) == sorted(plan.created)
    assert len(applied.created) == len(plan.created)
    assert sorted(applied.moved) == sorted(move.event_id for move in plan.moved)
    after = {e.pk: e for e in occurrences(series)}
    for move in plan.moved:
        assert (after[move.event_id].start, after[move.event_id].end) == (
            move.start_to,
            move.end_to,
        )
    stale = sorted(entry.event_id for entry in plan.stale)
    if change.stale == "cancel":
        assert sorted(applied.cancelled) == stale
        assert {after[pk].status for pk in stale} <= {Event.Status.CANCELLED}
        assert recurrence_service.detect_cadence_drift(series) == []
    else:
        assert applied.cancelled == []
        assert sorted(recurrence_service.detect_cadence_drift(series)) == stale
    EventSeries.objects.filter(pk=series.pk).update(last_generated_until=None)
    assert generate(series) == [], "a rescan after the change found a date the plan missed"


@pytest.mark.django_db
@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(scenario=scenarios())
def test_preview_equals_what_apply_then_does(scenario: dict) -> None:
    with transaction.atomic():
        with time_machine.travel(scenario["setup_at"], tick=False) as clock:
            series = _build(scenario)
            clock.move_to(scenario["setup_at"] + scenario["later"])
            _touch(series, scenario)
            try:
                change = SeriesChange(**scenario["change"])
                recurrence_service.preview_series_change(_fresh(series), change)
            except Exception as refused:  # a random rule may be invalid: both refuse it
                event("refused by both")
                with pytest.raises(type(refused)):
                    recurrence_service.apply_series_change(_fresh(series), change)
            else:
                event("applied")
                _check(series, change)
        transaction.set_rollback(True)
