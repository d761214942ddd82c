"""This and following (`POST .../event-series/{id}/split`) over HTTP: the old series ends
before `from`, the new one takes over with the same Event rows; after both generate, no
date is there twice and none is lost; both iCalendar feeds expand (icalendar +
recurring-ical-events) to the dates the API lists; the query count does not grow with
the occurrences moved; refused input writes nothing; permissions are checked.

"Now" is pinned to 1 January 2026; the series is "Mondays 10:00 Europe/Vienna" from
5 January, 8-week window, auto-published: Jan 5, 12, 19, 26, Feb 2, 9, 16, 23.
"""

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import icalendar
import pytest
import recurring_ical_events
import time_machine
from django.db import connection
from django.test.utils import CaptureQueriesContext

from accounts.models import User
from events.core.tests.factories import make_org, make_staff
from events.models import Event, EventRSVP, EventSeries, RecurrenceRule
from events.series.tests.recurrence_builders import (
    generate,
    make_rule,
    occurrences,
    published_series,
    series_admin_path,
    starts,
    utc,
)

pytestmark = pytest.mark.django_db

NEW_YEAR = utc(2026, 1, 1, 12)
#: Wednesday 21 January, midnight UTC: between the Mondays of the 19th and the 26th.
WEDNESDAY = utc(2026, 1, 21)
MONDAY_26 = utc(2026, 1, 26, 9)


@pytest.fixture(autouse=True)
def clock() -> Iterator[Any]:
    with time_machine.travel(NEW_YEAR, tick=False) as traveller:
        yield traveller


def _split(client: Any, org: Any, series: EventSeries, **body: Any) -> Any:
    body.setdefault("from", WEDNESDAY.isoformat())
    return client.post(series_admin_path(org, series, "/split"), body)


def _weekly_mondays(until: datetime) -> list[datetime]:
    rule = make_rule()
    return rule.get_occurrences(NEW_YEAR, until)


def _api_starts(api: Any, series_id: str) -> dict[str, datetime]:
    body = api(None).get(f"/event-series/{series_id}").json()
    return {
        item["id"]: datetime.fromisoformat(item["start"]).astimezone(UTC)
        for item in body["occurrences"]
    }


def _feed(api: Any, series_id: str) -> dict[str, datetime]:
    """UID → start, as a calendar application expands the feed."""
    response = api(None).get(f"/event-series/{series_id}/calendar.ics")
    assert response.status_code == 200
    calendar = icalendar.Calendar.from_ical(response.content)
    expanded = recurring_ical_events.of(calendar).between(utc(2025, 1, 1), utc(2028, 1, 1))
    return {
        str(component["UID"]).removesuffix("@encore"): component["DTSTART"].dt.astimezone(UTC)
        for component in expanded
    }


class TestSplit:
    def test_the_old_series_ends_before_from_and_the_new_one_takes_over(
        self, api: Any, org: Any
    ) -> None:
        series = published_series(org)
        before = {event.start: event.pk for event in occurrences(series)}
        response = _split(api(org.owner), org, series)
        assert response.status_code == 201, response.json()
        old, new = response.json()["old"], response.json()["new"]
        assert old["id"] == str(series.pk)
        until = RecurrenceRule.objects.get(series=series).until
        assert until == WEDNESDAY - timedelta(microseconds=1)  # the last instant before
        assert datetime.fromisoformat(old["recurrence_rule"]["until"]) < WEDNESDAY
        assert datetime.fromisoformat(new["recurrence_rule"]["dtstart"]) == MONDAY_26
        assert new["continues_id"] == str(series.pk)
        assert (old["is_active"], new["is_active"]) == (False, True)
        assert new["template_event"]["name"] == old["template_event"]["name"]
        assert new["template_event"]["id"] != old["template_event"]["id"]
        assert starts(series) == [start for start in sorted(before) if start < WEDNESDAY]
        moved = occurrences(EventSeries.objects.get(pk=new["id"]))
        assert {event.start: event.pk for event in moved} == {
            start: pk for start, pk in before.items() if start > WEDNESDAY
        }

    def test_attendees_keep_their_places(self, api: Any, org: Any) -> None:
        series = published_series(org)
        event = next(event for event in occurrences(series) if event.start == MONDAY_26)
        guest = User.objects.create_user(email="guest@example.org", password="x")
        EventRSVP.objects.create(event=event, user=guest, status=EventRSVP.Status.YES)
        Event.objects.filter(pk=event.pk).update(attendee_count=1)
        new_id = _split(api(org.owner), org, series).json()["new"]["id"]
        event.refresh_from_db()
        assert str(event.event_series_id) == new_id
        assert EventRSVP.objects.filter(event=event, user=guest).count() == 1
        assert event.attendee_count == 1

    def test_after_generating_no_date_is_there_twice_and_none_is_lost(
        self, api: Any, org: Any, clock: Any
    ) -> None:
        series = published_series(org)
        new_id = _split(api(org.owner), org, series).json()["new"]["id"]
        clock.move_to(utc(2026, 2, 20))  # before the cursor: nothing falls into the past
        generate(series)
        generate(EventSeries.objects.get(pk=new_id))
        both = Event.objects.filter(
            event_series__in=[series.pk, new_id], is_template=False
        ).values_list("start", flat=True)
        all_starts = sorted(both)
        assert len(all_starts) == len(set(all_starts))
        assert all_starts == _weekly_mondays(utc(2026, 2, 20) + timedelta(weeks=8, seconds=1))
        assert max(starts(series)) < WEDNESDAY

    def test_both_feeds_expand_to_the_dates_the_api_lists(
        self, api: Any, org: Any, clock: Any
    ) -> None:
        series = published_series(org)
        moved_ids = {str(event.pk) for event in occurrences(series) if event.start > WEDNESDAY}
        new_id = _split(api(org.owner), org, series).json()["new"]["id"]
        clock.move_to(utc(2026, 2, 20))
        generate(EventSeries.objects.get(pk=new_id))
        for series_id in (str(series.pk), new_id):
            assert _feed(api, series_id) == _api_starts(api, series_id)
        assert moved_ids <= set(_feed(api, new_id))  # UIDs of moved occurrences unchanged
        assert not moved_ids & set(_feed(api, str(series.pk)))

    def test_the_old_series_generates_nothing_more_even_resumed(
        self, api: Any, org: Any, clock: Any
    ) -> None:
        series = published_series(org)
        client = api(org.owner)
        _split(client, org, series)
        assert client.post(series_admin_path(org, series, "/resume")).json()["is_active"] is True
        clock.move_to(utc(2026, 6, 1))
        assert generate(series) == []
        assert max(starts(series)) < WEDNESDAY

    def test_a_new_cadence_keeps_stale_occurrences_by_default(self, api: Any, org: Any) -> None:
        series = published_series(org)
        client = api(org.owner)
        response = _split(client, org, series, recurrence={"weekdays": [2]})
        assert response.status_code == 201, response.json()
        new = EventSeries.objects.get(pk=response.json()["new"]["id"])
        mondays = [event for event in occurrences(new) if event.start.weekday() == 0]
        assert len(mondays) == 5
        assert {event.status for event in mondays} == {Event.Status.OPEN}
        drift = client.get(series_admin_path(org, new, "/drift")).json()["stale_occurrences"]
        assert sorted(drift) == sorted(str(event.pk) for event in mondays)
        wednesdays = [event.start for event in occurrences(new) if event.start.weekday() == 2]
        assert wednesdays and min(wednesdays) == utc(2026, 1, 21, 9)

    def test_stale_cancel_cancels_the_moved_occurrences_off_the_new_rule(
        self, api: Any, org: Any
    ) -> None:
        series = published_series(org)
        response = _split(api(org.owner), org, series, recurrence={"weekdays": [2]}, stale="cancel")
        assert response.status_code == 201, response.json()
        new = EventSeries.objects.get(pk=response.json()["new"]["id"])
        by_day = {(event.start.weekday(), event.status) for event in occurrences(new)}
        assert by_day == {(0, Event.Status.CANCELLED), (2, Event.Status.OPEN)}
        assert {event.status for event in occurrences(series)} == {Event.Status.OPEN}

    def test_template_edits_reach_the_new_template_and_the_moved_occurrences(
        self, api: Any, org: Any
    ) -> None:
        series = published_series(org)
        edited = next(event for event in occurrences(series) if event.start == MONDAY_26)
        Event.objects.filter(pk=edited.pk).update(name="Special", is_modified=True)
        response = _split(api(org.owner), org, series, template={"name": "Pilates"})
        assert response.status_code == 201, response.json()
        assert response.json()["new"]["template_event"]["name"] == "Pilates"
        assert response.json()["old"]["template_event"]["name"] != "Pilates"
        new = EventSeries.objects.get(pk=response.json()["new"]["id"])
        names = {event.start: event.name for event in occurrences(new)}
        assert names.pop(MONDAY_26) == "Special"
        assert set(names.values()) == {"Pilates"}
        assert "Pilates" not in {event.name for event in occurrences(series)}

    def test_a_counted_series_keeps_its_total(self, api: Any, org: Any, clock: Any) -> None:
        series = published_series(org, rule=make_rule(count=6))
        response = _split(api(org.owner), org, series)
        assert response.json()["new"]["recurrence_rule"]["count"] == 3
        clock.move_to(utc(2026, 3, 1))
        new = EventSeries.objects.get(pk=response.json()["new"]["id"])
        generate(new)
        assert len(starts(series)) + len(starts(new)) == 6

    def test_extra_dates_from_then_on_move_with_the_new_series(self, api: Any, org: Any) -> None:
        series = published_series(org)
        client = api(org.owner)
        early, late = utc(2026, 1, 14, 17), utc(2026, 2, 4, 17)
        client.post(series_admin_path(org, series, "/extra-dates"), {"start": early.isoformat()})
        client.post(series_admin_path(org, series, "/extra-dates"), {"start": late.isoformat()})
        body = _split(client, org, series).json()
        assert body["old"]["rdates"] == [early.isoformat()]
        assert body["new"]["rdates"] == [late.isoformat()]
        assert (
            "RDATE;TZID=Europe/Vienna:20260204T180000"
            in (body["new"]["recurrence_rule"]["rrule_string"])
        )
        new = EventSeries.objects.get(pk=body["new"]["id"])
        assert late in starts(new)
        assert client.get(series_admin_path(org, new, "/drift")).json() == {"stale_occurrences": []}

    def test_the_query_count_does_not_grow_with_the_occurrences(self, api: Any, org: Any) -> None:
        small = published_series(org, generation_window_weeks=4)
        large = published_series(org, generation_window_weeks=20)
        assert len(occurrences(large)) > 3 * len(occurrences(small)) > 0
        client = api(org.owner)
        counts = []
        for series in (small, large):
            with CaptureQueriesContext(connection) as captured:
                assert _split(client, org, series).status_code == 201
            counts.append(len(captured))
        assert counts[0] == counts[1]


class TestRefused:
    @pytest.mark.parametrize(
        ("body", "status"),
        [
            ({"from": (NEW_YEAR - timedelta(hours=1)).isoformat()}, 400),
            ({"from": utc(2026, 1, 3).isoformat()}, 400),  # before the series starts
            ({"from": "2026-01-21T00:00:00"}, 422),  # no offset
            ({"from": "next week"}, 422),
            ({"stale": "maybe"}, 422),
            ({"template": {"start": "2026-02-01T10:00:00+00:00"}}, 422),
            ({"recurrence": {"weekdays": [9]}}, 400),
            ({"recurrence": {"count": 2, "until": "2026-06-01T00:00:00+00:00"}}, 400),
            ({"recurrence": {"until": "2026-01-22T00:00:00+00:00"}}, 400),  # no date left
            ({"recurrence": {"frequency": None}}, 400),
            ({"unknown": 1}, 422),
        ],
        ids=[
            "from_in_the_past",
            "from_before_dtstart",
            "naive_from",
            "not_a_date",
            "bad_stale",
            "template_start",
            "bad_weekday",
            "two_ends",
            "no_date_left",
            "cleared_frequency",
            "unknown_field",
        ],
    )
    def test_is_4xx_and_writes_nothing(
        self, api: Any, org: Any, body: dict[str, Any], status: int
    ) -> None:
        series = published_series(org)
        before = starts(series)
        response = _split(api(org.owner), org, series, **body)
        assert response.status_code == status, response.json()
        assert EventSeries.objects.count() == 1
        assert RecurrenceRule.objects.get(series=series).until is None
        assert starts(series) == before

    def test_missing_from_is_422(self, api: Any, org: Any) -> None:
        series = published_series(org)
        response = api(org.owner).post(series_admin_path(org, series, "/split"), {})
        assert response.status_code == 422
        assert EventSeries.objects.count() == 1


class TestPermissions:
    def test_anonymous_is_401(self, api: Any, org: Any) -> None:
        assert _split(api(None), org, published_series(org)).status_code == 401

    def test_staff_without_edit_event_series_is_403(self, api: Any, org: Any) -> None:
        series = published_series(org)
        staff = make_staff(org, create_event=True, delete_event_series=True)
        assert _split(api(staff), org, series).status_code == 403
        assert EventSeries.objects.count() == 1

    def test_another_organisations_series_is_404(self, api: Any, org: Any) -> None:
        other = published_series(make_org())
        path = f"/organization-admin/{org.slug}/event-series/{other.pk}/split"
        response = api(org.owner).post(path, {"from": WEDNESDAY.isoformat()})
        assert response.status_code == 404
        assert EventSeries.objects.count() == 1

    def test_staff_with_edit_event_series_may_split(self, api: Any, org: Any) -> None:
        series = published_series(org)
        staff = make_staff(org, edit_event_series=True)
        assert _split(api(staff), org, series).status_code == 201
