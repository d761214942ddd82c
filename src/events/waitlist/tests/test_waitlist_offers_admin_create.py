"""POST /event-admin/{event_id}/waitlist-offers (docs/spec/waitlist-design.md): staff make an offer to a queue
member, and what it refuses.
"""

import uuid
from datetime import timedelta

import pytest
from django.utils import timezone

from events.core.tests.factories import fill_with_rsvps
from events.models import Event, EventWaitList, WaitlistOffer
from events.waitlist import services as waitlist_service
from events.waitlist.tests.waitlist_builders import OFFER_FIELDS
from events.waitlist.tests.waitlist_offers_admin_support import (
    SPOT,
    WINDOW,
    Reason,
    Status,
    _at,
    _entry,
    _event,
    _everything,
    _offer,
    _owner,
    _spot_notices,
    _url,
)
from notifications.models import Notification


# -- create -----------------------------------------------------------------------------------
@pytest.mark.django_db
class TestCreate:
    def test_an_offer_for_a_queue_entry_defaults_to_now_plus_the_window(
        self, api, django_capture_on_commit_callbacks
    ) -> None:
        event = _event()
        entry = _entry(event)
        before = timezone.now()
        with django_capture_on_commit_callbacks(execute=True):
            response = _owner(api, event).post(_url(event), {"waitlist_entry_id": str(entry.pk)})
        assert response.status_code == 201, response.content
        body = response.json()
        assert set(body) == OFFER_FIELDS
        assert body["status"] == "pending" and body["is_cutoff_batch"] is False
        assert body["user"]["id"] == str(entry.user_id)
        assert before + WINDOW <= _at(body["expires_at"]) <= timezone.now() + WINDOW
        offer = WaitlistOffer.objects.get(pk=body["id"])
        assert offer.status == Status.PENDING and offer.notified_at is not None

    def test_the_user_hears_of_the_offer_only_after_the_commit(
        self, api, django_capture_on_commit_callbacks
    ) -> None:
        event = _event()
        entry = _entry(event)
        with django_capture_on_commit_callbacks(execute=False) as callbacks:
            response = _owner(api, event).post(_url(event), {"waitlist_entry_id": str(entry.pk)})
        assert response.status_code == 201
        assert _spot_notices(entry.user) == 0
        for callback in callbacks:
            callback()
        assert _spot_notices(entry.user) == 1
        notice = Notification.objects.get(user=entry.user, notification_type=SPOT)
        assert notice.context["offer_id"] == response.json()["id"]
        assert notice.context["is_cutoff_batch"] is False

    def test_an_explicit_expiry_is_kept(self, api) -> None:
        event = _event()
        entry = _entry(event)
        deadline = (timezone.now() + timedelta(days=2)).replace(microsecond=0)
        body = {"waitlist_entry_id": str(entry.pk), "expires_at": deadline.isoformat()}
        response = _owner(api, event).post(_url(event), body)
        assert response.status_code == 201
        assert WaitlistOffer.objects.get(pk=response.json()["id"]).expires_at == deadline

    def test_the_default_deadline_never_passes_the_start(self, api) -> None:
        event = _event(start=timezone.now() + timedelta(minutes=30))
        response = _owner(api, event).post(
            _url(event), {"waitlist_entry_id": str(_entry(event).pk)}
        )
        assert response.status_code == 201
        assert WaitlistOffer.objects.get(pk=response.json()["id"]).expires_at == event.start

    def test_without_a_window_the_expiry_is_required(self, api) -> None:
        event = _event(waitlist_time_window=None)
        entry = _entry(event)
        before = _everything()
        response = _owner(api, event).post(_url(event), {"waitlist_entry_id": str(entry.pk)})
        assert response.status_code == 400
        assert "expires_at" in response.json()["errors"]
        assert _everything() == before
        deadline = timezone.now() + timedelta(hours=5)
        body = {"waitlist_entry_id": str(entry.pk), "expires_at": deadline.isoformat()}
        assert _owner(api, event).post(_url(event), body).status_code == 201

    @pytest.mark.parametrize(
        "deadline",
        [
            pytest.param(lambda e: timezone.now() - timedelta(minutes=1), id="past"),
            pytest.param(lambda e: e.start + timedelta(seconds=1), id="after-start"),
            pytest.param(lambda e: e.rsvp_before + timedelta(minutes=1), id="after-rsvp-deadline"),
        ],
    )
    def test_an_expiry_outside_the_useful_span_is_a_400(self, api, deadline) -> None:
        start = timezone.now() + timedelta(days=3)
        event = _event(start=start, rsvp_before=start - timedelta(days=1))
        entry = _entry(event)
        before = _everything()
        body = {"waitlist_entry_id": str(entry.pk), "expires_at": deadline(event).isoformat()}
        response = _owner(api, event).post(_url(event), body)
        assert response.status_code == 400, response.content
        assert "expires_at" in response.json()["errors"]
        assert _everything() == before

    def test_a_naive_expiry_is_a_422(self, api) -> None:
        event = _event()
        body = {"waitlist_entry_id": str(_entry(event).pk), "expires_at": "2030-01-01T10:00:00"}
        assert _owner(api, event).post(_url(event), body).status_code == 422

    def test_a_user_with_a_pending_offer_gets_no_second_one(self, api) -> None:
        event = _event()
        held = _offer(event)
        entry = EventWaitList.objects.get(event=event, user=held.user)
        before = _everything()
        response = _owner(api, event).post(_url(event), {"waitlist_entry_id": str(entry.pk)})
        assert response.status_code == 409
        assert response.json()["code"] == "pending_offer_exists"
        assert _everything() == before

    def test_a_lapsed_pending_offer_does_not_block_a_new_one(self, api) -> None:
        event = _event()
        lapsed = _offer(event, expires_at=timezone.now() - timedelta(minutes=5))
        entry = EventWaitList.objects.get(event=event, user=lapsed.user)
        response = _owner(api, event).post(_url(event), {"waitlist_entry_id": str(entry.pk)})
        assert response.status_code == 201, response.content
        lapsed.refresh_from_db()
        assert lapsed.status == Status.EXPIRED

    def test_an_offer_that_would_overcommit_is_a_409_with_a_hint(self, api) -> None:
        event = _event(max_attendees=3)
        fill_with_rsvps(event, 2)
        _offer(event)  # the third seat is held
        entry = _entry(event)
        before = _everything()
        response = _owner(api, event).post(_url(event), {"waitlist_entry_id": str(entry.pk)})
        assert response.status_code == 409
        assert response.json()["code"] == "capacity"
        assert "revoke a pending offer" in response.json()["detail"]
        assert _everything() == before

    def test_cutoff_and_lapsed_offers_hold_no_seat(self, api) -> None:
        event = _event(max_attendees=3)
        fill_with_rsvps(event, 2)
        _offer(event, is_cutoff_batch=True, expires_at=event.start)
        _offer(event, expires_at=timezone.now() - timedelta(minutes=1))
        entry = _entry(event)
        response = _owner(api, event).post(_url(event), {"waitlist_entry_id": str(entry.pk)})
        assert response.status_code == 201, response.content

    def test_admin_offers_are_never_cutoff_offers(self, api) -> None:
        event = _event()
        Event.objects.filter(pk=event.pk).update(
            waitlist_cutoff_date=timezone.now() - timedelta(hours=1)
        )
        response = _owner(api, event).post(
            _url(event), {"waitlist_entry_id": str(_entry(event).pk)}
        )
        assert response.status_code == 201
        assert response.json()["is_cutoff_batch"] is False

    @pytest.mark.parametrize(
        "state",
        [
            pytest.param({"status": Event.Status.CLOSED}, id="event-closed"),
            pytest.param({"status": Event.Status.CANCELLED}, id="event-cancelled"),
            pytest.param({"waitlist_open": False}, id="waitlist-closed"),
            pytest.param({"max_attendees": 0}, id="unlimited-capacity"),
            pytest.param({"rsvp_before": timezone.now() - timedelta(hours=1)}, id="rsvps-closed"),
        ],
    )
    def test_an_offer_of_no_use_is_refused(self, api, state) -> None:
        event = _event()
        entry = _entry(event)
        Event.objects.filter(pk=event.pk).update(**state)
        before = _everything()
        response = _owner(api, event).post(_url(event), {"waitlist_entry_id": str(entry.pk)})
        assert response.status_code == 409, response.content
        assert response.json()["code"] == "offers_not_applicable"
        assert _everything() == before

    def test_an_entry_of_another_event_is_a_404(self, api) -> None:
        event = _event()
        sibling = _event(event.organization)
        foreign_entry = _entry(sibling)
        before = _everything()
        response = _owner(api, event).post(
            _url(event), {"waitlist_entry_id": str(foreign_entry.pk)}
        )
        assert response.status_code == 404
        unknown = _owner(api, event).post(_url(event), {"waitlist_entry_id": str(uuid.uuid4())})
        assert unknown.status_code == 404
        assert _everything() == before

    def test_an_offer_ends_an_organisers_soft_skip(self, api) -> None:
        """Re-offered: once that new offer lapses the user is back in the normal rotation."""
        event = _event(max_attendees=1)
        entry = _entry(event)
        revoked = _offer(event, entry.user, status=Status.REVOKED, revoked_reason=Reason.ORGANIZER)
        WaitlistOffer.objects.filter(pk=revoked.pk).update(
            created_at=timezone.now() - timedelta(hours=1)
        )
        assert waitlist_service.process_waitlist_for_event(event.pk).status == "no_eligible_users"
        response = _owner(api, event).post(_url(event), {"waitlist_entry_id": str(entry.pk)})
        assert response.status_code == 201
        WaitlistOffer.objects.filter(pk=response.json()["id"]).update(status=Status.EXPIRED)
        result = waitlist_service.process_waitlist_for_event(event.pk)
        assert result.offers_created == 1
        assert WaitlistOffer.objects.filter(
            event=event, user=entry.user, status=Status.PENDING
        ).exists()
