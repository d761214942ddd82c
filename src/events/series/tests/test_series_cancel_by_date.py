"""`cancel-occurrence` with a local date (issue 13, item 4).

`"2026-12-17"` once answered 422 "Input should have timezone info"; a local date in the
series' zone now names the one occurrence of that day (rule dates and extra dates
together), `ambiguous_date` when there are several, `not_an_occurrence` when none.
Instants the database or the rule expansion cannot hold are a 400, not a 422 or a 500.
"""

from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from django.utils import timezone

from events.models import Event, EventSeries, Organization
from events.series.tests.recurrence_builders import generate, make_rule, make_series, occurrences

pytestmark = pytest.mark.django_db
AUCKLAND = ZoneInfo("Pacific/Auckland")


def _next_monday_at(hour: int, minute: int, zone: ZoneInfo) -> datetime:
    today = timezone.now().astimezone(zone).date()
    monday = today + timedelta(days=7 - today.weekday())
    return datetime(monday.year, monday.month, monday.day, hour, minute, tzinfo=zone)


def auckland_mornings(org: Organization) -> EventSeries:
    """Mondays 07:30 in Auckland: Sunday evening in UTC, so the local and the UTC date differ."""
    dtstart = _next_monday_at(7, 30, AUCKLAND).astimezone(UTC)
    rule = make_rule(dtstart=dtstart, timezone="Pacific/Auckland", weekdays=[0])
    series = make_series(org, rule=rule, generation_window_weeks=4, auto_publish=True)
    generate(series)
    return EventSeries.objects.get(pk=series.pk)


def cancel(api: Any, org: Organization, series: EventSeries, value: Any) -> Any:
    path = f"/organization-admin/{org.slug}/event-series/{series.pk}/cancel-occurrence"
    return api(org.owner).post(path, {"occurrence_date": value})


def _local_day(event: Event) -> str:
    return event.start.astimezone(AUCKLAND).date().isoformat()


def test_a_local_date_cancels_that_days_occurrence(api: Any, org: Organization) -> None:
    series = auckland_mornings(org)
    target = occurrences(series)[1]
    assert target.start.date().isoformat() != _local_day(target)  # the zone matters
    response = cancel(api, org, series, _local_day(target))
    assert response.status_code == 200, response.json()
    assert response.json()["exdates"] == [target.start.astimezone(UTC).isoformat()]
    states = {event.pk: event.status for event in occurrences(series)}
    assert states[target.pk] == Event.Status.CANCELLED
    assert list(states.values()).count(Event.Status.CANCELLED) == 1


def test_the_utc_date_of_an_occurrence_is_not_its_local_date(api: Any, org: Organization) -> None:
    series = auckland_mornings(org)
    target = occurrences(series)[1]
    response = cancel(api, org, series, target.start.astimezone(UTC).date().isoformat())
    assert response.status_code == 400, response.json()
    assert response.json()["code"] == "not_an_occurrence"
    assert {event.status for event in occurrences(series)} == {Event.Status.OPEN}


def test_a_full_instant_still_works(api: Any, org: Organization) -> None:
    series = auckland_mornings(org)
    target = occurrences(series)[0]
    response = cancel(api, org, series, target.start.astimezone(AUCKLAND).isoformat())
    assert response.status_code == 200, response.json()
    target.refresh_from_db()
    assert target.status == Event.Status.CANCELLED


def test_a_date_with_a_rule_date_and_an_extra_date_is_ambiguous(
    api: Any, org: Organization
) -> None:
    series = auckland_mornings(org)
    target = occurrences(series)[2]
    evening = target.start + timedelta(hours=10)
    EventSeries.objects.filter(pk=series.pk).update(rdates=[evening.isoformat()])
    response = cancel(api, org, series, _local_day(target))
    assert response.status_code == 400, response.json()
    body = response.json()
    assert body["code"] == "ambiguous_date"
    assert body["occurrences"] == [
        target.start.astimezone(UTC).isoformat(),
        evening.astimezone(UTC).isoformat(),
    ]
    assert EventSeries.objects.get(pk=series.pk).exdates == []
    assert {event.status for event in occurrences(series)} == {Event.Status.OPEN}


def test_a_date_without_an_occurrence_is_400(api: Any, org: Organization) -> None:
    series = auckland_mornings(org)
    tuesday = occurrences(series)[0].start.astimezone(AUCKLAND).date() + timedelta(days=1)
    response = cancel(api, org, series, tuesday.isoformat())
    assert response.status_code == 400
    assert response.json()["code"] == "not_an_occurrence"
    assert EventSeries.objects.get(pk=series.pk).exdates == []


def test_cancelling_the_same_date_twice_is_harmless(api: Any, org: Organization) -> None:
    series = auckland_mornings(org)
    day = _local_day(occurrences(series)[0])
    assert cancel(api, org, series, day).status_code == 200
    again = cancel(api, org, series, day)
    assert again.status_code == 200, again.json()
    assert len(again.json()["exdates"]) == 1


@pytest.mark.parametrize(
    "value",
    [
        "9999-12-31T23:59:59-01:00",
        "9999-12-31T23:00:00+00:00",
        "0001-01-01T00:00:00+00:00",
        "2026-01-01T00:00:00+16:00",
        "9999-12-31",
        "0001-01-01",
    ],
)
def test_an_unrepresentable_date_is_400_and_changes_nothing(
    api: Any, org: Organization, value: str
) -> None:
    series = auckland_mornings(org)
    response = cancel(api, org, series, value)
    assert response.status_code == 400, response.json()
    assert response.json()["code"] == "invalid"
    assert EventSeries.objects.get(pk=series.pk).exdates == []


@pytest.mark.parametrize("value", ["17.12.2026", "2026-02-30", "2026-12-17T10:00:00"])
def test_a_malformed_date_is_a_schema_error(api: Any, org: Organization, value: str) -> None:
    series = auckland_mornings(org)
    response = cancel(api, org, series, value)
    assert response.status_code == 422, response.json()
    assert EventSeries.objects.get(pk=series.pk).exdates == []
