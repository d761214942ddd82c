"""Issue 13, item 7, replayed over HTTP: creation with a `duration`, `generate` with an
`until` in the past, the event PATCH on a series template, propagation and cancelled
occurrences."""

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from events.models import Event, EventSeries, RecurrenceRule
from events.series.tests.recurrence_builders import generate, make_rule, make_series, occurrences

pytestmark = pytest.mark.django_db


def _next_monday_10() -> Any:
    now = timezone.now().replace(hour=10, minute=0, second=0, microsecond=0)
    return now + timedelta(days=7 - now.weekday())


def create(api: Any, org: Any, **top: Any) -> Any:
    dtstart = _next_monday_10()
    event = top.pop("event", {"name": "Yoga"})
    body = {
        "event": event,
        "series_name": "Monday yoga",
        "recurrence": {"frequency": "weekly", "weekdays": [0], "dtstart": dtstart.isoformat()},
        "generation_window_weeks": 4,
        **top,
    }
    return api(org.owner).post(f"/organization-admin/{org.slug}/create-recurring-event", body)


def _nothing_written() -> bool:
    return not (
        EventSeries.objects.exists() or RecurrenceRule.objects.exists() or Event.objects.exists()
    )


class TestCreateWithDuration:
    @pytest.mark.parametrize(
        ("duration", "length"),
        [("PT1H30M", timedelta(minutes=90)), (45, timedelta(minutes=45)), ("P1D", timedelta(1))],
    )
    def test_every_occurrence_lasts_the_duration(
        self, api: Any, org: Any, duration: Any, length: timedelta
    ) -> None:
        response = create(api, org, duration=duration)
        assert response.status_code == 201, response.json()
        template = response.json()["template_event"]
        assert template["start"] == response.json()["recurrence_rule"]["dtstart"]
        series = EventSeries.objects.get(pk=response.json()["id"])
        assert occurrences(series)
        assert {event.end - event.start for event in occurrences(series)} == {length}

    def test_the_start_may_be_given_when_it_is_dtstart(self, api: Any, org: Any) -> None:
        event = {"name": "Yoga", "start": _next_monday_10().isoformat()}
        assert create(api, org, event=event, duration="PT1H").status_code == 201

    def test_a_start_other_than_dtstart_is_400(self, api: Any, org: Any) -> None:
        later = (_next_monday_10() + timedelta(hours=2)).isoformat()
        response = create(api, org, event={"name": "Yoga", "start": later}, duration="PT1H")
        assert response.status_code == 400
        assert _nothing_written()

    def test_an_end_still_works(self, api: Any, org: Any) -> None:
        end = (_next_monday_10() + timedelta(hours=2)).isoformat()
        response = create(api, org, event={"name": "Yoga", "end": end})
        assert response.status_code == 201, response.json()
        series = EventSeries.objects.get(pk=response.json()["id"])
        assert {e.end - e.start for e in occurrences(series)} == {timedelta(hours=2)}

    def test_without_end_or_duration_nothing_is_created(self, api: Any, org: Any) -> None:
        """Once every occurrence silently lasted 24 hours."""
        response = create(api, org)
        assert response.status_code == 400, response.json()
        assert "duration" in response.json()["errors"]
        assert _nothing_written()

    def test_end_and_duration_together_are_400(self, api: Any, org: Any) -> None:
        end = (_next_monday_10() + timedelta(hours=2)).isoformat()
        response = create(api, org, event={"name": "Yoga", "end": end}, duration="PT1H")
        assert response.status_code == 400
        assert _nothing_written()

    @pytest.mark.parametrize("duration", ["1h", "90 minutes", "P1M", "PT", "01:30:00", True])
    def test_an_unreadable_duration_names_the_accepted_forms(
        self, api: Any, org: Any, duration: Any
    ) -> None:
        response = create(api, org, duration=duration)
        assert response.status_code == 422, response.json()
        (message,) = response.json()["errors"]["duration"]
        assert "PT1H30M" in message and "minutes" in message
        assert _nothing_written()

    @pytest.mark.parametrize("duration", [0, -30, "PT0M", "P400D", "P999999999999999D", 10**30])
    def test_a_duration_out_of_bounds_is_400(self, api: Any, org: Any, duration: Any) -> None:
        response = create(api, org, duration=duration)
        assert response.status_code == 400, response.json()
        assert "duration" in response.json()["errors"]
        assert _nothing_written()


def _series(org: Any) -> EventSeries:
    rule = make_rule(dtstart=_next_monday_10(), timezone="UTC", weekdays=[0])
    series = make_series(org, rule=rule, generation_window_weeks=4, auto_publish=True)
    generate(series)
    return EventSeries.objects.get(pk=series.pk)


def base(org: Any, series: EventSeries) -> str:
    return f"/organization-admin/{org.slug}/event-series/{series.pk}"


class TestGenerateUntil:
    @pytest.mark.parametrize(
        "until", [timedelta(days=-1), timedelta(weeks=2)], ids=["before_now", "before_cursor"]
    )
    def test_an_until_in_the_past_is_400_and_the_cursor_stays(
        self, api: Any, org: Any, until: timedelta
    ) -> None:
        series = _series(org)
        cursor = series.last_generated_until
        assert cursor is not None and cursor > timezone.now() + timedelta(weeks=3)
        deleted = occurrences(series)[-1]
        deleted_start = deleted.start
        deleted.delete()
        response = api(org.owner).post(
            base(org, series) + "/generate", {"until": (timezone.now() + until).isoformat()}
        )
        assert response.status_code == 400, response.json()
        assert response.json()["code"] == "until_in_past"
        assert EventSeries.objects.get(pk=series.pk).last_generated_until == cursor
        generate(series)  # the next daily pass
        assert deleted_start not in {event.start for event in occurrences(series)}

    def test_an_until_after_the_cursor_generates(self, api: Any, org: Any) -> None:
        series = _series(org)
        until = timezone.now() + timedelta(weeks=8)
        response = api(org.owner).post(
            base(org, series) + "/generate", {"until": until.isoformat()}
        )
        assert response.status_code == 200, response.json()
        assert response.json()
        assert EventSeries.objects.get(pk=series.pk).last_generated_until == until


class TestEventPatchOfATemplate:
    def test_a_schedule_field_is_422_and_names_the_series_route(self, api: Any, org: Any) -> None:
        series = _series(org)
        template = Event.objects.get(event_series=series, is_template=True)
        response = api(org.owner).patch(
            f"/event-admin/{template.pk}",
            {
                "start": (template.start + timedelta(hours=1)).isoformat(),
                "requires_ticket": True,
                "rsvp_before": template.start.isoformat(),
            },
        )
        assert response.status_code == 422, response.json()
        body = response.json()
        assert body["code"] == "is_series_template"
        assert sorted(body["errors"]) == ["rsvp_before", "start"]
        assert body["series_route"] == f"/api{base(org, series)}"
        fresh = Event.objects.get(pk=template.pk)
        assert (fresh.start, fresh.requires_ticket) == (template.start, template.requires_ticket)

    def test_propagatable_fields_still_change_the_template(self, api: Any, org: Any) -> None:
        series = _series(org)
        response = api(org.owner).patch(
            f"/event-admin/{series.template_event_id}", {"name": "Pilates", "max_attendees": 9}
        )
        assert response.status_code == 200, response.json()
        template = Event.objects.get(event_series=series, is_template=True)
        assert (template.name, template.max_attendees) == ("Pilates", 9)

    def test_an_occurrence_keeps_its_own_schedule_edits(self, api: Any, org: Any) -> None:
        series = _series(org)
        event = occurrences(series)[0]
        later = event.start + timedelta(hours=1)
        response = api(org.owner).patch(
            f"/event-admin/{event.pk}",
            {"start": later.isoformat(), "end": (later + timedelta(hours=1)).isoformat()},
        )
        assert response.status_code == 200, response.json()


class TestPropagationSkipsCancelled:
    @pytest.mark.parametrize("scope", ["future_unmodified", "all_future"])
    def test_a_cancelled_occurrence_keeps_its_name(self, api: Any, org: Any, scope: str) -> None:
        series = _series(org)
        cancelled = occurrences(series)[1]
        client = api(org.owner)
        cancel = client.post(
            base(org, series) + "/cancel-occurrence",
            {"occurrence_date": cancelled.start.isoformat()},
        )
        assert cancel.status_code == 200
        response = client.patch(base(org, series) + f"/template?propagate={scope}", {"name": "New"})
        assert response.status_code == 200, response.json()
        names = {event.pk: event.name for event in occurrences(series)}
        assert names.pop(cancelled.pk) == cancelled.name != "New"
        assert set(names.values()) == {"New"}
