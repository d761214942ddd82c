"""GET/PATCH /event-admin/{event_id}/waitlist-settings, and the same close/trigger rule
on the event PATCH (seed-tables.md "Closing by any path", "Trigger sites")."""

import uuid
from datetime import datetime, timedelta
from typing import Any

import pytest
from django.utils import timezone

from accounts.tests.factories import make_user
from events.models import Event, EventSeries, EventWaitList, WaitlistOffer
from events.schema.waitlist import WaitlistSettingsSchema
from events.service import waitlist_service
from events.service.waitlist_settings_service import WAITLIST_SETTINGS_FIELDS
from events.tests.event_admin_support import dispatched, snapshot
from events.tests.factories import make_event, make_org

__all__ = ["dispatched"]

Status = WaitlistOffer.WaitlistOfferStatus
Reason = WaitlistOffer.RevokedReason


def _url(event: Event) -> str:
    return f"/event-admin/{event.pk}/waitlist-settings"


def _patch(api: Any, event: Event, body: dict[str, Any]) -> Any:
    return api(event.organization.owner).patch(_url(event), body)


def _settings(event: Event) -> dict[str, Any]:
    return dict(Event.objects.filter(pk=event.pk).values(*WAITLIST_SETTINGS_FIELDS).get())


def _active_event(**fields: Any) -> Event:
    fields = {
        "max_attendees": 5,
        "waitlist_open": True,
        "waitlist_time_window": timedelta(hours=2),
        **fields,
    }
    return make_event(make_org(), **fields)


def _offer(event: Event, user: Any = None, **fields: Any) -> WaitlistOffer:
    """A queue member with an offer in the given state (test setup, no capacity check)."""
    user = user or make_user()
    EventWaitList.objects.get_or_create(event=event, user=user)
    fields.setdefault("expires_at", timezone.now() + timedelta(hours=1))
    return WaitlistOffer.objects.create(event=event, user=user, batch_id=uuid.uuid4(), **fields)


# -- the form ----------------------------------------------------------------------------------
def test_the_schema_is_the_five_fields_of_seed_tables() -> None:
    assert tuple(WaitlistSettingsSchema.model_fields) == WAITLIST_SETTINGS_FIELDS
    defaults = WaitlistSettingsSchema().model_dump()
    assert defaults == {
        "waitlist_open": False,
        "waitlist_time_window": None,
        "waitlist_batch_size": 0,
        "waitlist_cutoff_date": None,
        "waitlist_lottery_mode": False,
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


# -- closing ----------------------------------------------------------------------------------
def _close_by_settings(api: Any, event: Event) -> Any:
    return _patch(api, event, {"waitlist_open": False})


def _close_by_event_patch(api: Any, event: Event) -> Any:
    return api(event.organization.owner).patch(f"/event-admin/{event.pk}", {"waitlist_open": False})


CLOSERS = [
    pytest.param(_close_by_settings, id="settings-patch"),
    pytest.param(_close_by_event_patch, id="event-patch"),
]


@pytest.mark.django_db
class TestClosing:
    @pytest.mark.parametrize("close", CLOSERS)
    def test_closing_revokes_pending_offers_with_waitlist_closed(self, api, close) -> None:
        event = _active_event()
        live, lapsed = (
            _offer(event),
            _offer(event, expires_at=timezone.now() - timedelta(minutes=1)),
        )
        claimed = _offer(event, status=Status.CLAIMED)
        expired = _offer(event, status=Status.EXPIRED)
        other_event_offer = _offer(_active_event())
        assert close(api, event).status_code == 200
        for offer in (live, lapsed):
            offer.refresh_from_db()
            assert (offer.status, offer.revoked_reason) == (Status.REVOKED, Reason.WAITLIST_CLOSED)
        for offer, status in (
            (claimed, Status.CLAIMED),
            (expired, Status.EXPIRED),
            (other_event_offer, Status.PENDING),
        ):
            offer.refresh_from_db()
            assert offer.status == status and offer.revoked_reason == ""
        # The queue itself stays: closing stops new joins and offers, it evicts nobody.
        assert EventWaitList.objects.filter(event=event).count() == 4

    @pytest.mark.parametrize("close", CLOSERS)
    def test_an_already_closed_waitlist_revokes_nothing(self, api, close) -> None:
        event = _active_event(waitlist_open=False)
        offer = _offer(event)  # e.g. left over from before a data fix: not ours to touch
        assert close(api, event).status_code == 200
        offer.refresh_from_db()
        assert offer.status == Status.PENDING

    @pytest.mark.parametrize("close", CLOSERS)
    def test_closed_out_users_stay_eligible_once_the_queue_reopens(
        self, api, close, django_capture_on_commit_callbacks
    ) -> None:
        event = _active_event(max_attendees=1)
        member = make_user()
        EventWaitList.objects.create(event=event, user=member)
        assert waitlist_service.process_waitlist_for_event(event.pk).offers_created == 1
        first = WaitlistOffer.objects.get(event=event, user=member)
        assert close(api, event).status_code == 200
        first.refresh_from_db()
        assert first.revoked_reason == Reason.WAITLIST_CLOSED
        assert waitlist_service.process_waitlist_for_event(event.pk).status == "disabled"
        with django_capture_on_commit_callbacks(execute=True):  # the pass runs (eager Celery)
            assert _patch(api, event, {"waitlist_open": True}).status_code == 200
        again = WaitlistOffer.objects.get(event=event, user=member, status=Status.PENDING)
        assert again.pk != first.pk


# -- triggers ---------------------------------------------------------------------------------
@pytest.mark.django_db
class TestTriggers:
    @pytest.mark.parametrize(
        "change",
        [
            pytest.param(
                ({"waitlist_open": True}, {"waitlist_time_window": "PT2H"}), id="active-mode-on"
            ),
            pytest.param(({"waitlist_open": False}, {"waitlist_open": True}), id="reopened"),
            pytest.param(
                ({"waitlist_time_window": timedelta(hours=2)}, {"waitlist_time_window": "PT5H"}),
                id="window",
            ),
            pytest.param(({}, {"waitlist_batch_size": 4}), id="batch-size"),
            pytest.param(
                (
                    {"waitlist_time_window": timedelta(hours=2)},
                    {"waitlist_cutoff_date": "2000-01-01T00:00:00Z"},
                ),
                id="cutoff",
            ),
        ],
    )
    @pytest.mark.parametrize(
        "path", ["/waitlist-settings", ""], ids=["settings-patch", "event-patch"]
    )
    def test_a_change_that_may_allow_a_batch_enqueues_one_pass(
        self, api, dispatched, django_capture_on_commit_callbacks, change, path
    ) -> None:
        """`initial` is the event before; `body` the PATCH that changes it."""
        initial, body = change
        event = make_event(make_org(), max_attendees=5, **initial)
        with django_capture_on_commit_callbacks(execute=True):
            response = api(event.organization.owner).patch(f"/event-admin/{event.pk}{path}", body)
        assert response.status_code == 200, response.content
        assert dispatched.event_ids == [event.pk]

    @pytest.mark.parametrize(
        "body",
        [
            pytest.param({"waitlist_open": False}, id="closed"),
            pytest.param({"waitlist_lottery_mode": True}, id="lottery"),
            pytest.param(
                {"waitlist_batch_size": 0, "waitlist_time_window": "PT2H"}, id="same-values"
            ),
        ],
    )
    @pytest.mark.parametrize(
        "path", ["/waitlist-settings", ""], ids=["settings-patch", "event-patch"]
    )
    def test_other_changes_enqueue_nothing(
        self, api, dispatched, django_capture_on_commit_callbacks, body, path
    ) -> None:
        event = _active_event()
        with django_capture_on_commit_callbacks(execute=True):
            response = api(event.organization.owner).patch(f"/event-admin/{event.pk}{path}", body)
        assert response.status_code == 200, response.content
        assert dispatched.event_ids == []

    def test_nothing_is_enqueued_before_the_commit(
        self, api, dispatched, django_capture_on_commit_callbacks
    ) -> None:
        event = make_event(make_org(), max_attendees=5)
        with django_capture_on_commit_callbacks(execute=False) as callbacks:
            assert _patch(api, event, {"waitlist_batch_size": 2}).status_code == 200
        assert dispatched.event_ids == []
        for callback in callbacks:
            callback()
        assert dispatched.event_ids == [event.pk]

    def test_turning_the_active_mode_on_offers_free_seats_at_once(
        self, api, django_capture_on_commit_callbacks
    ) -> None:
        event = make_event(make_org(), max_attendees=2, waitlist_open=True)
        members = [make_user() for _ in range(3)]
        joined = timezone.now() - timedelta(hours=1)
        for minute, member in enumerate(members):
            entry = EventWaitList.objects.create(event=event, user=member)
            EventWaitList.objects.filter(pk=entry.pk).update(
                created_at=joined + timedelta(minutes=minute)
            )
        with django_capture_on_commit_callbacks(execute=True):
            assert _patch(api, event, {"waitlist_time_window": "PT2H"}).status_code == 200
        offered = set(
            WaitlistOffer.objects.filter(event=event, status=Status.PENDING).values_list(
                "user_id", flat=True
            )
        )
        assert offered == {members[0].pk, members[1].pk}
