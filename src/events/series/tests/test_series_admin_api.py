"""/organization-admin/{slug} recurring series routes: success paths, refused input that
writes nothing, and the permission matrix of every route."""

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import time_machine
from django.utils import timezone

from events.core.tests.factories import make_org, make_staff
from events.models import Event, EventSeries, RecurrenceRule
from events.series.tests.recurrence_builders import generate, make_rule, make_series, occurrences

pytestmark = pytest.mark.django_db


def _next_monday_10() -> Any:
    now = timezone.now().replace(hour=10, minute=0, second=0, microsecond=0)
    return now + timedelta(days=7 - now.weekday())


def create_body(**recurrence: Any) -> dict[str, Any]:
    dtstart = _next_monday_10()
    rule = {"frequency": "weekly", "weekdays": [0], "dtstart": dtstart.isoformat()}
    rule.update(recurrence)
    return {
        "event": {"name": "Yoga", "start": dtstart.isoformat()},
        "duration": "PT1H",
        "series_name": "Monday yoga",
        "recurrence": rule,
        "generation_window_weeks": 4,
    }


def _future_series(org: Any, **fields: Any) -> EventSeries:
    rule = make_rule(dtstart=_next_monday_10(), timezone="UTC", weekdays=[0])
    series = make_series(org, rule=rule, generation_window_weeks=4, **fields)
    generate(series)
    return series


def base(org: Any, series: EventSeries) -> str:
    return f"/organization-admin/{org.slug}/event-series/{series.pk}"


class TestCreate:
    # A Wednesday: the next four Mondays lie inside the four-week window. (Unpinned, a
    # Monday morning saw only three: the fourth fell a few hours past the window.)
    @time_machine.travel(datetime(2031, 5, 7, 12, tzinfo=UTC), tick=False)
    def test_owner_creates_a_series_with_its_first_occurrences(self, api: Any, org: Any) -> None:
        response = api(org.owner).post(
            f"/organization-admin/{org.slug}/create-recurring-event", create_body()
        )
        assert response.status_code == 201, response.json()
        body = response.json()
        assert body["recurrence_rule"]["frequency"] == "weekly"
        assert body["recurrence_rule"]["rrule_string"].splitlines()[-1].startswith("RRULE:")
        assert body["template_event"]["name"] == "Yoga"
        assert body["last_generated_until"] is not None
        series = EventSeries.objects.get(pk=body["id"])
        assert [e.start.date().isoformat() for e in occurrences(series)] == [
            "2031-05-12",
            "2031-05-19",
            "2031-05-26",
            "2031-06-02",
        ]

    @pytest.mark.parametrize(
        "recurrence",
        [
            {"count": 3, "until": "2099-01-01T00:00:00+00:00"},
            {"frequency": "monthly", "weekdays": [], "monthly_type": "day"},
            {"timezone": "Mars/Olympus"},
        ],
        ids=["count_and_until", "monthly_day_without_day", "bad_timezone"],
    )
    def test_inconsistent_rule_is_400_and_writes_nothing(
        self, api: Any, org: Any, recurrence: dict[str, Any]
    ) -> None:
        response = api(org.owner).post(
            f"/organization-admin/{org.slug}/create-recurring-event", create_body(**recurrence)
        )
        assert response.status_code == 400, response.json()
        assert response.json()["errors"]
        assert not EventSeries.objects.exists()
        assert not RecurrenceRule.objects.exists()
        assert not Event.objects.exists()

    @pytest.mark.parametrize("weeks", [0, 53])
    def test_window_out_of_bounds_is_400(self, api: Any, org: Any, weeks: int) -> None:
        body = {**create_body(), "generation_window_weeks": weeks}
        response = api(org.owner).post(
            f"/organization-admin/{org.slug}/create-recurring-event", body
        )
        assert response.status_code == 400
        assert "generation_window_weeks" in response.json()["errors"]
        assert not EventSeries.objects.exists()


class TestManage:
    def test_detail_has_the_api_shape(self, api: Any, org: Any) -> None:
        series = _future_series(org)
        body = api(org.owner).get(base(org, series)).json()
        assert set(body) == {
            "id", "name", "slug", "description", "is_active", "auto_publish",
            "generation_window_weeks", "exdates", "rdates", "continues_id", "last_generated_until",
            "recurrence_rule", "template_event",
        }  # fmt: skip
        assert set(body["template_event"]) == {"id", "name", "slug", "start", "end"}

    def test_template_patch_propagates_to_future_unmodified(self, api: Any, org: Any) -> None:
        series = _future_series(org)
        response = api(org.owner).patch(
            base(org, series) + "/template?propagate=future_unmodified", {"name": "Pilates"}
        )
        assert response.status_code == 200, response.json()
        assert {event.name for event in occurrences(series)} == {"Pilates"}

    def test_template_patch_with_unknown_field_is_422_and_changes_nothing(
        self, api: Any, org: Any
    ) -> None:
        series = _future_series(org)
        response = api(org.owner).patch(
            base(org, series) + "/template?propagate=all_future",
            {"name": "Pilates", "start": timezone.now().isoformat()},
        )
        assert response.status_code == 422
        assert "Pilates" not in {event.name for event in Event.objects.all()}

    def test_recurrence_patch_regenerates_in_the_same_call(self, api: Any, org: Any) -> None:
        series = _future_series(org)
        mondays = len(occurrences(series))
        response = api(org.owner).patch(
            base(org, series) + "/recurrence", {"recurrence": {"weekdays": [0, 2]}}
        )
        assert response.status_code == 200, response.json()
        assert response.json()["recurrence_rule"]["weekdays"] == [0, 2]
        assert response.json()["last_generated_until"] is not None
        created = response.json()["last_change"]["created"]
        assert mondays - 1 <= len(created) <= mondays + 1  # the Wednesdays of the window
        assert len(occurrences(series)) == mondays + len(created)

    @pytest.mark.parametrize("weeks", [0, 53])
    def test_recurrence_patch_bad_window_is_400(self, api: Any, org: Any, weeks: int) -> None:
        series = _future_series(org)
        response = api(org.owner).patch(
            base(org, series) + "/recurrence", {"generation_window_weeks": weeks}
        )
        assert response.status_code == 400
        assert EventSeries.objects.get(pk=series.pk).generation_window_weeks == 4

    def test_recurrence_patch_refuses_clearing_dtstart(self, api: Any, org: Any) -> None:
        series = _future_series(org)
        response = api(org.owner).patch(
            base(org, series) + "/recurrence", {"recurrence": {"dtstart": None}}
        )
        assert response.status_code == 400
        assert "recurrence.dtstart" in response.json()["errors"]

    def test_cancel_occurrence_excludes_and_cancels(self, api: Any, org: Any) -> None:
        series = _future_series(org)
        first = occurrences(series)[0]
        response = api(org.owner).post(
            base(org, series) + "/cancel-occurrence", {"occurrence_date": first.start.isoformat()}
        )
        assert response.status_code == 200, response.json()
        assert len(response.json()["exdates"]) == 1
        first.refresh_from_db()
        assert first.status == Event.Status.CANCELLED

    def test_cancel_a_non_occurrence_is_400(self, api: Any, org: Any) -> None:
        series = _future_series(org)
        odd = occurrences(series)[0].start + timedelta(hours=1)
        response = api(org.owner).post(
            base(org, series) + "/cancel-occurrence", {"occurrence_date": odd.isoformat()}
        )
        assert response.status_code == 400
        assert response.json()["code"] == "not_an_occurrence"
        assert EventSeries.objects.get(pk=series.pk).exdates == []

    def test_drift_and_cancel_stale(self, api: Any, org: Any) -> None:
        series = _future_series(org)
        client = api(org.owner)
        client.patch(base(org, series) + "/recurrence", {"recurrence": {"weekdays": [1]}})
        stale = client.get(base(org, series) + "/drift").json()["stale_occurrences"]
        assert sorted(stale) == sorted(
            str(e.pk) for e in occurrences(series) if e.start.weekday() == 0
        )
        response = client.post(base(org, series) + "/cancel-stale")
        assert response.status_code == 200
        assert sorted(response.json()["cancelled"]) == sorted(stale)
        assert client.get(base(org, series) + "/drift").json() == {"stale_occurrences": []}

    def test_generate_until_returns_the_new_occurrences(self, api: Any, org: Any) -> None:
        series = _future_series(org)
        until = timezone.now() + timedelta(weeks=10)
        response = api(org.owner).post(
            base(org, series) + "/generate", {"until": until.isoformat()}
        )
        assert response.status_code == 200, response.json()
        assert 5 <= len(response.json()) <= 7
        assert all(item["event_series_id"] == str(series.pk) for item in response.json())

    def test_generate_beyond_52_weeks_is_400(self, api: Any, org: Any) -> None:
        series = _future_series(org)
        before = len(occurrences(series))
        until = timezone.now() + timedelta(weeks=53)
        response = api(org.owner).post(
            base(org, series) + "/generate", {"until": until.isoformat()}
        )
        assert response.status_code == 400
        assert len(occurrences(series)) == before

    def test_pause_resume_and_template_event(self, api: Any, org: Any) -> None:
        series = _future_series(org)
        client = api(org.owner)
        assert client.post(base(org, series) + "/pause").json()["is_active"] is False
        assert client.post(base(org, series) + "/resume").json()["is_active"] is True
        template = client.get(base(org, series) + "/template-event").json()
        assert template["id"] == str(series.template_event_id)

    def test_delete_pauses_and_cancels_future_occurrences(self, api: Any, org: Any) -> None:
        series = _future_series(org)
        response = api(org.owner).delete(base(org, series))
        assert response.status_code == 204
        assert EventSeries.objects.get(pk=series.pk).is_active is False
        assert {event.status for event in occurrences(series)} == {Event.Status.CANCELLED}


ROUTES = [
    ("get", ""),
    ("patch", "/template"),
    ("patch", "/recurrence"),
    ("post", "/cancel-occurrence"),
    ("post", "/cancel-stale"),
    ("post", "/generate"),
    ("post", "/pause"),
    ("post", "/resume"),
    ("get", "/drift"),
    ("get", "/template-event"),
    ("delete", ""),
]
BODIES = {
    "/template": {"name": "X"},
    "/recurrence": {"auto_publish": True},
    "/cancel-occurrence": {"occurrence_date": "2030-01-07T10:00:00+00:00"},
}


def _call(client: Any, method: str, path: str, suffix: str) -> Any:
    if method in ("get", "delete"):
        return getattr(client, method)(path)
    return getattr(client, method)(path, BODIES.get(suffix, {}))


class TestPermissions:
    @pytest.mark.parametrize(("method", "suffix"), ROUTES)
    def test_anonymous_is_401(self, api: Any, org: Any, method: str, suffix: str) -> None:
        series = _future_series(org)
        assert _call(api(None), method, base(org, series) + suffix, suffix).status_code == 401

    @pytest.mark.parametrize(("method", "suffix"), ROUTES)
    def test_default_staff_is_403(self, api: Any, org: Any, method: str, suffix: str) -> None:
        series = _future_series(org)
        staff = make_staff(org)
        response = _call(api(staff), method, base(org, series) + suffix, suffix)
        assert response.status_code == 403

    @pytest.mark.parametrize(("method", "suffix"), ROUTES)
    def test_another_organisations_series_is_404(
        self, api: Any, org: Any, method: str, suffix: str
    ) -> None:
        other = _future_series(make_org())
        path = f"/organization-admin/{org.slug}/event-series/{other.pk}" + suffix
        assert _call(api(org.owner), method, path, suffix).status_code == 404

    def test_staff_with_edit_event_series_may_read_but_not_delete(self, api: Any, org: Any) -> None:
        series = _future_series(org)
        staff = make_staff(org, edit_event_series=True)
        assert api(staff).get(base(org, series)).status_code == 200
        assert api(staff).delete(base(org, series)).status_code == 403

    def test_create_anonymous_401_default_staff_403(self, api: Any, org: Any) -> None:
        path = f"/organization-admin/{org.slug}/create-recurring-event"
        assert api(None).post(path, create_body()).status_code == 401
        assert api(make_staff(org)).post(path, create_body()).status_code == 403
        assert api(make_staff(org, create_event=True)).post(path, create_body()).status_code == 201
