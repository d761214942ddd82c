"""Extra dates (RDATE) of a series over HTTP: added dates materialise like rule dates,
appear in `rrule_string` and the feed, are never drift; removing one cancels its
occurrence; refused input writes nothing; every route checks its permission.

"Now" is pinned to 1 January 2026; the series is "Mondays 10:00 Europe/Vienna" from
5 January with an 8-week window.
"""

from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from typing import Any

import icalendar
import pytest
import recurring_ical_events
import time_machine

from events.core.tests.factories import make_org, make_staff
from events.models import Event, EventSeries
from events.series.tests.recurrence_builders import (
    expand_rule_text,
    generate,
    occurrences,
    published_series,
    series_admin_path,
    starts,
    utc,
)

pytestmark = pytest.mark.django_db

NEW_YEAR = utc(2026, 1, 1, 12)
#: Wednesday 14 January 2026, 18:30 in Vienna: not a date of the Monday rule.
WEDNESDAY = utc(2026, 1, 14, 17, 30)
#: Far beyond the 8-week window.
AUTUMN = utc(2026, 10, 7, 16)


@pytest.fixture(autouse=True)
def clock() -> Iterator[Any]:
    with time_machine.travel(NEW_YEAR, tick=False) as traveller:
        yield traveller


def _add(client: Any, org: Any, series: EventSeries, start: datetime) -> Any:
    return client.post(series_admin_path(org, series, "/extra-dates"), {"start": start.isoformat()})


def _remove(client: Any, org: Any, series: EventSeries, start: datetime) -> Any:
    return client.post(
        series_admin_path(org, series, "/extra-dates/remove"), {"start": start.isoformat()}
    )


class TestAdd:
    def test_a_date_inside_the_window_is_materialised_at_once(self, api: Any, org: Any) -> None:
        series = published_series(org)
        before = starts(series)
        response = _add(api(org.owner), org, series, WEDNESDAY)
        assert response.status_code == 200, response.json()
        assert response.json()["rdates"] == [WEDNESDAY.isoformat()]
        assert starts(series) == sorted([*before, WEDNESDAY])
        extra = next(event for event in occurrences(series) if event.start == WEDNESDAY)
        assert extra.status == Event.Status.OPEN
        assert extra.slug.endswith("-2026-01-14")

    def test_the_same_date_twice_is_a_no_op(self, api: Any, org: Any) -> None:
        series = published_series(org)
        client = api(org.owner)
        _add(client, org, series, WEDNESDAY)
        again = _add(client, org, series, WEDNESDAY.astimezone(timezone(timedelta(hours=5))))
        assert again.status_code == 200, again.json()
        assert again.json()["rdates"] == [WEDNESDAY.isoformat()]
        assert starts(series).count(WEDNESDAY) == 1

    def test_a_date_beyond_the_window_waits_for_the_pass_that_reaches_it(
        self, api: Any, org: Any, clock: Any
    ) -> None:
        series = published_series(org)
        response = _add(api(org.owner), org, series, AUTUMN)
        assert response.status_code == 200, response.json()
        assert AUTUMN not in starts(series)
        clock.move_to(AUTUMN - timedelta(weeks=4))
        generate(series)
        assert starts(series).count(AUTUMN) == 1

    def test_rrule_string_carries_the_date_as_rdate_in_the_rules_zone(
        self, api: Any, org: Any
    ) -> None:
        series = published_series(org)
        client = api(org.owner)
        _add(client, org, series, WEDNESDAY)
        rrule = _add(client, org, series, AUTUMN).json()["recurrence_rule"]["rrule_string"]
        assert rrule.splitlines()[-1] == (
            "RDATE;TZID=Europe/Vienna:20260114T183000,20261007T180000"
        )
        public = api(None).get(f"/event-series/{series.pk}").json()["rrule_string"]
        assert public == rrule

    def test_rrule_string_expands_to_rule_dates_and_extra_dates(self, api: Any, org: Any) -> None:
        """The text is valid RFC 5545: a calendar library expands it to exactly the
        series' recurrence set."""
        series = published_series(org)
        client = api(org.owner)
        _add(client, org, series, WEDNESDAY)
        rrule = _add(client, org, series, AUTUMN).json()["recurrence_rule"]["rrule_string"]
        window = (utc(2026, 1, 1), utc(2026, 12, 31))
        got = expand_rule_text(rrule, *window)
        rule = EventSeries.objects.get(pk=series.pk).recurrence_rule
        assert rule is not None
        assert got == rule.get_occurrences(*window)
        assert WEDNESDAY in got and AUTUMN in got

    def test_the_feed_lists_the_extra_occurrence(self, api: Any, org: Any) -> None:
        series = published_series(org)
        _add(api(org.owner), org, series, WEDNESDAY)
        feed = api(None).get(f"/event-series/{series.pk}/calendar.ics").content
        calendar = icalendar.Calendar.from_ical(feed)
        expanded = recurring_ical_events.of(calendar).between(utc(2026, 1, 1), utc(2027, 1, 1))
        assert WEDNESDAY in {component["DTSTART"].dt for component in expanded}

    def test_an_extra_date_is_never_drift(self, api: Any, org: Any) -> None:
        series = published_series(org)
        client = api(org.owner)
        _add(client, org, series, WEDNESDAY)
        assert client.get(series_admin_path(org, series, "/drift")).json() == {
            "stale_occurrences": []
        }
        client.post(series_admin_path(org, series, "/cancel-stale"))
        extra = next(event for event in occurrences(series) if event.start == WEDNESDAY)
        assert extra.status == Event.Status.OPEN

    def test_a_rule_date_is_refused_and_nothing_is_written(self, api: Any, org: Any) -> None:
        series = published_series(org)
        monday = occurrences(series)[1].start
        response = _add(api(org.owner), org, series, monday)
        assert response.status_code == 400
        assert response.json()["code"] == "already_an_occurrence"
        assert EventSeries.objects.get(pk=series.pk).rdates == []

    def test_a_cancelled_date_is_refused(self, api: Any, org: Any) -> None:
        series = published_series(org)
        client = api(org.owner)
        monday = occurrences(series)[1].start
        client.post(
            series_admin_path(org, series, "/cancel-occurrence"),
            {"occurrence_date": monday.isoformat()},
        )
        response = _add(client, org, series, monday)
        assert response.status_code == 400
        assert response.json()["code"] == "already_an_occurrence"

    def test_a_past_date_is_refused(self, api: Any, org: Any) -> None:
        series = published_series(org)
        response = _add(api(org.owner), org, series, NEW_YEAR - timedelta(hours=1))
        assert response.status_code == 400
        assert "start" in response.json()["errors"]
        assert EventSeries.objects.get(pk=series.pk).rdates == []

    def test_a_paused_series_takes_no_date(self, api: Any, org: Any) -> None:
        series = published_series(org)
        client = api(org.owner)
        client.post(series_admin_path(org, series, "/pause"))
        response = _add(client, org, series, WEDNESDAY)
        assert response.status_code == 409
        assert response.json()["code"] == "series_paused"
        assert WEDNESDAY not in starts(series)

    @pytest.mark.parametrize(
        "body",
        [
            {},
            {"start": "2026-01-14T18:30:00"},
            {"start": "soon"},
            {"start": WEDNESDAY.isoformat(), "x": 1},
        ],
    )
    def test_a_malformed_body_is_4xx(self, api: Any, org: Any, body: dict[str, Any]) -> None:
        series = published_series(org)
        response = api(org.owner).post(series_admin_path(org, series, "/extra-dates"), body)
        assert 400 <= response.status_code < 500
        assert EventSeries.objects.get(pk=series.pk).rdates == []


class TestRemove:
    def test_removing_a_materialised_date_cancels_its_occurrence(self, api: Any, org: Any) -> None:
        series = published_series(org)
        client = api(org.owner)
        _add(client, org, series, WEDNESDAY)
        response = _remove(client, org, series, WEDNESDAY)
        assert response.status_code == 200, response.json()
        assert response.json()["rdates"] == []
        assert "RDATE" not in response.json()["recurrence_rule"]["rrule_string"]
        extra = next(event for event in occurrences(series) if event.start == WEDNESDAY)
        assert extra.status == Event.Status.CANCELLED
        rule_dates = [event for event in occurrences(series) if event.start != WEDNESDAY]
        assert {event.status for event in rule_dates} == {Event.Status.OPEN}

    def test_a_removed_date_is_not_generated_again(self, api: Any, org: Any) -> None:
        series = published_series(org)
        client = api(org.owner)
        _add(client, org, series, AUTUMN)
        _remove(client, org, series, AUTUMN)
        generate(series, until_override=AUTUMN + timedelta(days=1))
        assert AUTUMN not in starts(series)

    def test_removing_a_date_that_is_not_an_extra_date_is_400(self, api: Any, org: Any) -> None:
        series = published_series(org)
        monday = occurrences(series)[1]
        response = _remove(api(org.owner), org, series, monday.start)
        assert response.status_code == 400
        assert response.json()["code"] == "not_an_extra_date"
        monday.refresh_from_db()
        assert monday.status == Event.Status.OPEN


ROUTES = ["/extra-dates", "/extra-dates/remove"]


class TestPermissions:
    @pytest.mark.parametrize("suffix", ROUTES)
    def test_anonymous_is_401(self, api: Any, org: Any, suffix: str) -> None:
        series = published_series(org)
        response = api(None).post(
            series_admin_path(org, series, suffix), {"start": WEDNESDAY.isoformat()}
        )
        assert response.status_code == 401

    @pytest.mark.parametrize("suffix", ROUTES)
    def test_staff_without_edit_event_series_is_403(self, api: Any, org: Any, suffix: str) -> None:
        series = published_series(org)
        staff = make_staff(org, create_event=True)
        response = api(staff).post(
            series_admin_path(org, series, suffix), {"start": WEDNESDAY.isoformat()}
        )
        assert response.status_code == 403
        assert EventSeries.objects.get(pk=series.pk).rdates == []

    @pytest.mark.parametrize("suffix", ROUTES)
    def test_another_organisations_series_is_404(self, api: Any, org: Any, suffix: str) -> None:
        other = published_series(make_org())
        path = f"/organization-admin/{org.slug}/event-series/{other.pk}{suffix}"
        response = api(org.owner).post(path, {"start": WEDNESDAY.isoformat()})
        assert response.status_code == 404

    def test_staff_with_edit_event_series_may_add(self, api: Any, org: Any) -> None:
        series = published_series(org)
        staff = make_staff(org, edit_event_series=True)
        assert _add(api(staff), org, series, WEDNESDAY).status_code == 200
