"""The recurrence PATCH and its preview over HTTP: one body, one plan, one call.

Replays issue 13's bugs: `recurrence.dtstart` and a duration were a 422, and a cadence
change took three calls with both schedules side by side (32 events for 16 dates).
"""

from datetime import datetime, timedelta
from typing import Any

import pytest
import time_machine

from events.core.tests.factories import make_org, make_staff
from events.models import Event, EventSeries
from events.series.services import rule_of, template_of
from events.series.tests.recurrence_builders import (
    generate,
    make_rule,
    make_series,
    occurrences,
    utc,
)

pytestmark = pytest.mark.django_db

#: Mon/Wed/Fri 10:00 UTC from Monday 5 January 2026.
MONDAY = utc(2026, 1, 5, 10)


@pytest.fixture
def clock():
    with time_machine.travel(utc(2026, 1, 1, 12), tick=False) as traveller:
        yield traveller


def mwf_series(org: Any, weeks: int = 4) -> EventSeries:
    rule = make_rule(dtstart=MONDAY, timezone="UTC", weekdays=[0, 2, 4])
    series = make_series(
        org,
        rule=rule,
        template={"end": MONDAY + timedelta(hours=1)},
        generation_window_weeks=weeks,
        auto_publish=True,
    )
    generate(series)
    return series


def url(org: Any, series: EventSeries, suffix: str) -> str:
    return f"/organization-admin/{org.slug}/event-series/{series.pk}{suffix}"


def live(series: EventSeries) -> list[Event]:
    return [e for e in occurrences(series) if e.status != Event.Status.CANCELLED]


def snapshot(series: EventSeries) -> tuple:
    fresh = EventSeries.objects.get(pk=series.pk)
    rule, template = rule_of(fresh), template_of(fresh)
    return (
        [(e.pk, e.start, e.end, e.status, e.scheduled_start) for e in occurrences(series)],
        rule.rrule_string,
        fresh.exdates,
        fresh.last_generated_until,
        template.start,
        template.end,
    )


class TestOneCallTurnover:
    def test_cadence_change_with_cancel_leaves_one_event_per_date(self, api, org, clock):
        series = mwf_series(org)
        old = {e.pk for e in occurrences(series)}
        body = {"recurrence": {"weekdays": [1, 3]}, "stale": "cancel"}
        response = api(org.owner).patch(url(org, series, "/recurrence"), body)
        assert response.status_code == 200, response.json()
        change = response.json()["last_change"]
        assert set(change["cancelled"]) == {str(pk) for pk in old}
        assert change["moved"] == []
        events = live(series)
        assert {e.start.weekday() for e in events} == {1, 3}
        assert sorted(str(e.pk) for e in events) == sorted(change["created"])
        assert response.json()["recurrence_rule"]["weekdays"] == [1, 3]

    def test_keep_is_the_default_and_drift_lists_the_kept_dates(self, api, org, clock):
        series = mwf_series(org)
        client = api(org.owner)
        response = client.patch(url(org, series, "/recurrence"), {"recurrence": {"weekdays": [0]}})
        assert response.status_code == 200, response.json()
        assert response.json()["last_change"]["cancelled"] == []
        drift = client.get(url(org, series, "/drift")).json()["stale_occurrences"]
        kept = [e for e in live(series) if e.start.weekday() != 0]
        assert sorted(drift) == sorted(str(e.pk) for e in kept)

    def test_time_of_day_and_duration_in_one_patch(self, api, org, clock):
        series = mwf_series(org)
        body = {"recurrence": {"dtstart": "2026-01-05T18:30:00+00:00"}, "duration": 90}
        response = api(org.owner).patch(url(org, series, "/recurrence"), body)
        assert response.status_code == 200, response.json()
        assert len(response.json()["last_change"]["moved"]) == len(occurrences(series))
        assert {(e.start.hour, e.start.minute) for e in occurrences(series)} == {(18, 30)}
        assert {e.end - e.start for e in occurrences(series)} == {timedelta(minutes=90)}
        assert response.json()["template_event"]["end"] == "2026-01-05T20:00:00Z"

    @pytest.mark.parametrize("duration", ["PT1H30M", 90])
    def test_duration_as_iso_or_minutes(self, api, org, clock, duration):
        series = mwf_series(org)
        response = api(org.owner).patch(url(org, series, "/recurrence"), {"duration": duration})
        assert response.status_code == 200, response.json()
        assert {e.end - e.start for e in occurrences(series)} == {timedelta(minutes=90)}


class TestRefusals:
    @pytest.mark.parametrize(
        ("body", "status"),
        [
            ({"duration": "1h"}, 422),
            ({"duration": True}, 422),
            ({"duration": 0}, 400),
            ({"duration": None}, 400),
            ({"stale": "maybe"}, 422),
            ({"recurrence": {"dtstart": "2026-01-05T10:00:00"}}, 422),
            ({"recurrence": {"dtstart": None}}, 400),
            ({"recurrence": {"weekdays": [9]}, "stale": "cancel"}, 400),
            ({"recurrence": {"until": "2025-01-01T00:00:00Z"}}, 400),
            ({"generation_window_weeks": 60}, 400),
        ],
        ids=[
            "duration_1h", "duration_bool", "duration_zero", "duration_null", "stale_unknown",
            "naive_dtstart", "null_dtstart", "bad_weekday", "until_before_dtstart", "window",
        ],
    )  # fmt: skip
    @pytest.mark.parametrize("route", ["/recurrence", "/preview"])
    @pytest.mark.usefixtures("clock")
    def test_bad_input_is_4xx_and_changes_nothing(self, api, org, body, status, route):
        series = mwf_series(org)
        before = snapshot(series)
        client = api(org.owner)
        call = client.patch if route == "/recurrence" else client.post
        response = call(url(org, series, route), body)
        assert response.status_code == status, response.json()
        assert response.json()["code"] == "invalid"
        assert snapshot(series) == before

    def test_the_1h_refusal_names_the_accepted_forms(self, api, org, clock):
        series = mwf_series(org)
        response = api(org.owner).patch(url(org, series, "/recurrence"), {"duration": "1h"})
        assert "PT1H30M" in str(response.json()["errors"])
        assert "minutes" in str(response.json()["errors"])


class TestPreview:
    def test_preview_answers_the_plan_and_writes_nothing(self, api, org, clock):
        series = mwf_series(org)
        before = snapshot(series)
        body = {"recurrence": {"weekdays": [0, 1], "dtstart": "2026-01-05T11:00:00Z"}}
        response = api(org.owner).post(url(org, series, "/preview"), body)
        assert response.status_code == 200, response.json()
        plan = response.json()
        assert snapshot(series) == before
        mondays = [e for e in occurrences(series) if e.start.weekday() == 0]
        assert sorted(m["event_id"] for m in plan["moved"]) == sorted(str(e.pk) for e in mondays)
        assert set(plan["moved"][0]) == {"event_id", "from", "to", "end", "attendees"}
        assert {m["to"][11:16] for m in plan["moved"]} == {"11:00"}
        stale = [e for e in occurrences(series) if e.start.weekday() in (2, 4)]
        assert sorted(s["event_id"] for s in plan["stale"]) == sorted(str(e.pk) for e in stale)
        assert set(plan["stale"][0]) == {"event_id", "start", "attendees", "queued"}
        assert plan["created"]  # the Tuesdays at 11:00
        assert {start[11:16] for start in plan["created"]} == {"11:00"}

        applied = api(org.owner).patch(url(org, series, "/recurrence"), body).json()
        assert sorted(applied["last_change"]["moved"]) == sorted(
            m["event_id"] for m in plan["moved"]
        )
        created = Event.objects.filter(pk__in=applied["last_change"]["created"])
        assert sorted(e.start for e in created) == sorted(
            datetime.fromisoformat(start) for start in plan["created"]
        )

    @pytest.mark.parametrize("weeks", [10, 52])
    def test_preview_query_count_is_fixed(self, api, org, clock, weeks, django_assert_num_queries):
        series = mwf_series(org, weeks=weeks)
        assert len(occurrences(series)) >= 3 * weeks - 1
        client = api(org.owner)
        body = {"recurrence": {"weekdays": [1, 3]}}
        with django_assert_num_queries(PREVIEW_QUERIES):
            response = client.post(url(org, series, "/preview"), body)
        assert response.status_code == 200
        assert len(response.json()["stale"]) == len(occurrences(series))


#: The caller, the organisation, the caller's access to it, the series with its rule and
#: template, the occurrences with their queue lengths: whatever their number.
PREVIEW_QUERIES = 5


class TestPermissions:
    BODY = {"recurrence": {"weekdays": [1]}}

    def test_anonymous_is_401(self, api, org, clock):
        series = mwf_series(org)
        assert api(None).post(url(org, series, "/preview"), self.BODY).status_code == 401

    def test_staff_without_edit_event_series_is_403(self, api, org, clock):
        series = mwf_series(org)
        response = api(make_staff(org)).post(url(org, series, "/preview"), self.BODY)
        assert response.status_code == 403

    def test_another_organisations_series_is_404(self, api, org, clock):
        other = mwf_series(make_org())
        path = f"/organization-admin/{org.slug}/event-series/{other.pk}/preview"
        assert api(org.owner).post(path, self.BODY).status_code == 404

    def test_staff_with_edit_event_series_may_preview_and_apply(self, api, org, clock):
        series = mwf_series(org)
        staff = make_staff(org, edit_event_series=True)
        assert api(staff).post(url(org, series, "/preview"), self.BODY).status_code == 200
        response = api(staff).patch(url(org, series, "/recurrence"), self.BODY)
        assert response.status_code == 200
