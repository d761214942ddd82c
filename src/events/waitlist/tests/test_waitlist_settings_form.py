"""GET/PATCH /event-admin/{event_id}/waitlist-settings: reading and updating the form, and
the validation of its fields.
"""

from datetime import datetime, timedelta
from typing import Any

import pytest

from events.core.tests.event_admin_support import dispatched, snapshot
from events.core.tests.factories import make_event, make_org
from events.models import Event, EventSeries
from events.waitlist.schemas.settings_and_offers import WaitlistSettingsSchema
from events.waitlist.services.settings import WAITLIST_SETTINGS_FIELDS
from events.waitlist.tests.waitlist_settings_support import (
    Status,
    _active_event,
    _offer,
    _patch,
    _url,
)

__all__ = ["dispatched"]  # fixtures, imported for pytest


def _settings(event: Event) -> dict[str, Any]:
    return dict(Event.objects.filter(pk=event.pk).values(*WAITLIST_SETTINGS_FIELDS).get())


# -- the form ----------------------------------------------------------------------------------
def test_the_schema_is_the_fields_of_seed_tables_and_the_party_settings() -> None:
    assert tuple(WaitlistSettingsSchema.model_fields) == WAITLIST_SETTINGS_FIELDS
    defaults = WaitlistSettingsSchema().model_dump()
    assert defaults == {
        "waitlist_open": False,
        "waitlist_time_window": None,
        "waitlist_batch_size": 0,
        "waitlist_cutoff_date": None,
        "waitlist_lottery_mode": False,
        "waitlist_max_party_size": 1,
        "waitlist_party_policy": "strict",
    }


@pytest.mark.django_db
class TestRead:
    def test_a_new_event_has_the_default_settings(self, api) -> None:
        event = make_event(make_org())
        response = api(event.organization.owner).get(_url(event))
        assert response.status_code == 200
        assert response.json() == WaitlistSettingsSchema().model_dump(mode="json")

    def test_durations_are_iso_8601_and_times_carry_an_offset(self, api) -> None:
        event = _active_event(waitlist_batch_size=3, waitlist_lottery_mode=True)
        cutoff = (event.start - timedelta(hours=6)).replace(microsecond=0)
        Event.objects.filter(pk=event.pk).update(waitlist_cutoff_date=cutoff)
        body = api(event.organization.owner).get(_url(event)).json()
        assert body["waitlist_time_window"] == "PT2H"
        assert body["waitlist_batch_size"] == 3 and body["waitlist_lottery_mode"] is True
        assert body["waitlist_open"] is True
        assert datetime.fromisoformat(body["waitlist_cutoff_date"]) == cutoff


@pytest.mark.django_db
class TestUpdate:
    def test_only_the_fields_sent_change(self, api) -> None:
        event = _active_event(waitlist_batch_size=2)
        before: dict[str, Any] = dict(Event.objects.values().get(pk=event.pk))
        response = _patch(
            api, event, {"waitlist_time_window": "PT3H", "waitlist_lottery_mode": True}
        )
        assert response.status_code == 200, response.content
        assert response.json()["waitlist_time_window"] == "PT3H"
        assert response.json()["waitlist_batch_size"] == 2
        after: dict[str, Any] = dict(Event.objects.values().get(pk=event.pk))
        assert {k for k in after if after[k] != before[k]} == {
            "waitlist_time_window",
            "waitlist_lottery_mode",
            "updated_at",
        }
        assert after["waitlist_time_window"] == timedelta(hours=3)

    def test_the_matrix_row_batched_fifo_with_cutoff_is_accepted(self, api) -> None:
        event = make_event(make_org(), max_attendees=10)
        cutoff = event.start - timedelta(hours=6)
        body = {
            "waitlist_open": True,
            "waitlist_time_window": "PT2H",
            "waitlist_batch_size": 5,
            "waitlist_cutoff_date": cutoff.isoformat(),
            "waitlist_lottery_mode": True,
        }
        assert _patch(api, event, body).status_code == 200
        assert _settings(event) == {
            "waitlist_open": True,
            "waitlist_time_window": timedelta(hours=2),
            "waitlist_batch_size": 5,
            "waitlist_cutoff_date": cutoff,
            "waitlist_lottery_mode": True,
            "waitlist_max_party_size": 1,
            "waitlist_party_policy": "strict",
        }

    def test_null_clears_the_window_and_the_cutoff_back_to_legacy_mode(self, api) -> None:
        event = _active_event()
        Event.objects.filter(pk=event.pk).update(
            waitlist_cutoff_date=event.start - timedelta(hours=1)
        )
        response = _patch(api, event, {"waitlist_time_window": None, "waitlist_cutoff_date": None})
        assert response.status_code == 200, response.content
        settings = _settings(event)
        assert settings["waitlist_time_window"] is None and settings["waitlist_cutoff_date"] is None

    def test_an_empty_body_changes_nothing(self, api) -> None:
        event = _active_event()
        before = snapshot()
        response = _patch(api, event, {})
        assert response.status_code == 200
        assert response.json()["waitlist_time_window"] == "PT2H"
        assert snapshot() == before

    def test_a_series_occurrence_is_marked_modified(self, api) -> None:
        org = make_org()
        series = EventSeries.objects.create(organization=org, name="Weekly", slug="weekly")
        occurrence = make_event(org, event_series=series, occurrence_index=1)
        assert _patch(api, occurrence, {"waitlist_batch_size": 3}).status_code == 200
        occurrence.refresh_from_db()
        assert occurrence.is_modified is True


def _cutoff_at_start(event: Event) -> dict[str, Any]:
    return {"waitlist_time_window": "PT2H", "waitlist_cutoff_date": event.start.isoformat()}


def _cutoff_after_start(event: Event) -> dict[str, Any]:
    later = event.start + timedelta(minutes=1)
    return {"waitlist_time_window": "PT2H", "waitlist_cutoff_date": later.isoformat()}


def _cutoff_without_window(event: Event) -> dict[str, Any]:
    return {"waitlist_cutoff_date": (event.start - timedelta(hours=1)).isoformat()}


@pytest.mark.django_db
class TestValidation:
    """Every refusal answers with field errors and writes nothing (no offer revoked either)."""

    @pytest.mark.parametrize(
        ("body", "field"),
        [
            pytest.param(
                lambda e: {"waitlist_time_window": "PT59M"},
                "waitlist_time_window",
                id="window-under-1h",
            ),
            pytest.param(
                lambda e: {"waitlist_time_window": "P7DT1S"},
                "waitlist_time_window",
                id="window-over-7d",
            ),
            pytest.param(
                _cutoff_without_window, "waitlist_cutoff_date", id="cutoff-without-window"
            ),
            pytest.param(_cutoff_at_start, "waitlist_cutoff_date", id="cutoff-at-start"),
            pytest.param(_cutoff_after_start, "waitlist_cutoff_date", id="cutoff-after-start"),
            pytest.param(
                lambda e: {"waitlist_open": False, "waitlist_time_window": "PT10M"},
                "waitlist_time_window",
                id="close-with-a-bad-window",
            ),
        ],
    )
    def test_the_rules_of_event_clean_answer_400(
        self, api, dispatched, django_capture_on_commit_callbacks, body, field
    ) -> None:
        event = make_event(make_org(), max_attendees=5, waitlist_open=True)
        offer = _offer(event)
        before = snapshot()
        with django_capture_on_commit_callbacks(execute=True):
            response = _patch(api, event, body(event))
        assert response.status_code == 400, response.content
        assert response.json()["code"] == "invalid"
        assert field in response.json()["errors"]
        assert snapshot() == before
        offer.refresh_from_db()
        assert offer.status == Status.PENDING
        assert dispatched.event_ids == []

    def test_removing_the_window_under_a_cutoff_is_refused(self, api) -> None:
        event = _active_event()
        Event.objects.filter(pk=event.pk).update(
            waitlist_cutoff_date=event.start - timedelta(hours=1)
        )
        response = _patch(api, event, {"waitlist_time_window": None})
        assert response.status_code == 400
        assert "waitlist_cutoff_date" in response.json()["errors"]
        assert _settings(event)["waitlist_time_window"] == timedelta(hours=2)

    @pytest.mark.parametrize(
        "body",
        [
            pytest.param({"waitlist_batch_size": -1}, id="negative-batch"),
            pytest.param({"waitlist_batch_size": "many"}, id="batch-not-a-number"),
            pytest.param({"waitlist_open": "yes"}, id="bool-as-string"),
            pytest.param({"waitlist_open": None}, id="open-null"),
            pytest.param({"waitlist_time_window": "two hours"}, id="window-not-a-duration"),
            pytest.param(
                {"waitlist_cutoff_date": "2030-01-01T00:00:00"}, id="cutoff-without-offset"
            ),
            pytest.param({"max_attendees": 3}, id="not-a-waitlist-field"),
        ],
    )
    def test_shape_violations_answer_422(self, api, body) -> None:
        event = _active_event()
        before = snapshot()
        response = _patch(api, event, body)
        assert response.status_code == 422, response.content
        assert response.json()["code"] and response.json()["errors"]
        assert snapshot() == before

    def test_the_boundaries_one_hour_and_seven_days_are_allowed(self, api) -> None:
        event = make_event(make_org())
        assert _patch(api, event, {"waitlist_time_window": "PT1H"}).status_code == 200
        assert _patch(api, event, {"waitlist_time_window": "P7D"}).status_code == 200
        assert _settings(event)["waitlist_time_window"] == timedelta(days=7)
