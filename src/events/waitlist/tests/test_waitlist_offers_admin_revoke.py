"""/event-admin/{event_id}/waitlist-offers (docs/spec/waitlist-design.md): revoking and reactivating an offer,
and what cancelling an event does to its offers.
"""

from datetime import timedelta

import pytest
from django.utils import timezone

from events.core.tests.event_admin_support import dispatched
from events.core.tests.factories import fill_with_rsvps
from events.models import EventWaitList, WaitlistOffer
from events.waitlist import services as waitlist_service
from events.waitlist.tests.waitlist_offers_admin_support import (
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

__all__ = ["dispatched"]  # fixtures, imported for pytest


# -- revoke -----------------------------------------------------------------------------------
@pytest.mark.django_db
class TestRevoke:
    def test_a_pending_offer_is_revoked_and_the_next_batch_enqueued(
        self, api, dispatched, django_capture_on_commit_callbacks
    ) -> None:
        event = _event()
        offer = _offer(event)
        with django_capture_on_commit_callbacks(execute=True):
            response = _owner(api, event).post(_url(event, f"/{offer.pk}/revoke"))
        assert response.status_code == 200, response.content
        assert response.json()["status"] == "revoked"
        assert response.json()["revoked_reason"] == "organizer"
        offer.refresh_from_db()
        assert (offer.status, offer.revoked_reason) == (Status.REVOKED, Reason.ORGANIZER)
        assert dispatched.event_ids == [event.pk]

    @pytest.mark.parametrize("status", [Status.CLAIMED, Status.EXPIRED, Status.REVOKED], ids=str)
    def test_only_pending_offers_can_be_revoked(self, api, dispatched, status) -> None:
        event = _event()
        offer = _offer(event, status=status)
        before = _everything()
        response = _owner(api, event).post(_url(event, f"/{offer.pk}/revoke"))
        assert response.status_code == 404
        assert _everything() == before

    def test_an_offer_of_another_event_is_a_404(self, api, dispatched) -> None:
        event = _event()
        foreign = _offer(_event(event.organization))
        response = _owner(api, event).post(_url(event, f"/{foreign.pk}/revoke"))
        assert response.status_code == 404
        foreign.refresh_from_db()
        assert foreign.status == Status.PENDING

    def test_a_revoked_user_is_skipped_by_processing_until_reactivated(
        self, api, dispatched
    ) -> None:
        event = _event(max_attendees=1)
        first, second = _entry(event), _entry(event)
        EventWaitList.objects.filter(pk=first.pk).update(
            created_at=timezone.now() - timedelta(hours=1)
        )
        assert waitlist_service.process_waitlist_for_event(event.pk).offers_created == 1
        offer = WaitlistOffer.objects.get(event=event, status=Status.PENDING)
        assert offer.user_id == first.user_id
        assert _owner(api, event).post(_url(event, f"/{offer.pk}/revoke")).status_code == 200
        # The seat goes to the second in line although the first is still at the head.
        waitlist_service.process_waitlist_for_event(event.pk)
        second_offer = WaitlistOffer.objects.get(event=event, status=Status.PENDING)
        assert second_offer.user_id == second.user_id
        EventWaitList.objects.filter(pk=second.pk).delete()  # revokes (entry_deleted)
        assert waitlist_service.process_waitlist_for_event(event.pk).status == "no_eligible_users"
        response = _owner(api, event).post(_url(event, f"/{offer.pk}/reactivate"))
        assert response.status_code == 200, response.content
        # Reactivated, the user is an ordinary member again: a lapse puts them back in line.
        WaitlistOffer.objects.filter(pk=offer.pk).update(status=Status.EXPIRED)
        assert waitlist_service.process_waitlist_for_event(event.pk).offers_created == 1
        assert (
            WaitlistOffer.objects.get(event=event, status=Status.PENDING).user_id == first.user_id
        )


# -- reactivate -------------------------------------------------------------------------------
@pytest.mark.django_db
class TestReactivate:
    @pytest.mark.parametrize(
        "fields",
        [
            pytest.param({"status": Status.EXPIRED}, id="expired"),
            pytest.param(
                {"status": Status.REVOKED, "revoked_reason": Reason.ORGANIZER}, id="revoked"
            ),
        ],
    )
    def test_an_expired_or_revoked_offer_is_pending_again_and_notified(
        self, api, django_capture_on_commit_callbacks, fields
    ) -> None:
        event = _event()
        offer = _offer(
            event,
            expires_at=timezone.now() - timedelta(hours=1),
            notified_at=timezone.now() - timedelta(hours=3),
            **fields,
        )
        before = timezone.now()
        with django_capture_on_commit_callbacks(execute=True):
            response = _owner(api, event).post(_url(event, f"/{offer.pk}/reactivate"), {})
        assert response.status_code == 200, response.content
        body = response.json()
        assert body["id"] == str(offer.pk) and body["status"] == "pending"
        assert body["revoked_reason"] == "" and body["is_cutoff_batch"] is False
        assert _at(body["expires_at"]) >= before + WINDOW
        assert _spot_notices(offer.user) == 1
        offer.refresh_from_db()
        assert offer.notified_at is not None and offer.notified_at >= before

    def test_the_body_may_be_left_out_or_carry_an_expiry(self, api) -> None:
        event = _event(waitlist_time_window=None)
        offer = _offer(event, status=Status.EXPIRED)
        missing = _owner(api, event).post(_url(event, f"/{offer.pk}/reactivate"))
        assert missing.status_code == 400 and "expires_at" in missing.json()["errors"]
        deadline = (timezone.now() + timedelta(hours=6)).replace(microsecond=0)
        response = _owner(api, event).post(
            _url(event, f"/{offer.pk}/reactivate"), {"expires_at": deadline.isoformat()}
        )
        assert response.status_code == 200
        offer.refresh_from_db()
        assert offer.expires_at == deadline and offer.status == Status.PENDING

    @pytest.mark.parametrize(
        "deadline",
        [
            pytest.param(lambda e: timezone.now(), id="now"),
            pytest.param(lambda e: e.start + timedelta(minutes=1), id="after-start"),
        ],
    )
    def test_an_expiry_outside_the_useful_span_is_a_400(self, api, deadline) -> None:
        event = _event()
        offer = _offer(event, status=Status.EXPIRED)
        before = _everything()
        response = _owner(api, event).post(
            _url(event, f"/{offer.pk}/reactivate"), {"expires_at": deadline(event).isoformat()}
        )
        assert response.status_code == 400
        assert _everything() == before

    @pytest.mark.parametrize("status", [Status.PENDING, Status.CLAIMED], ids=str)
    def test_only_expired_or_revoked_offers_come_back(self, api, status) -> None:
        event = _event()
        offer = _offer(event, status=status)
        before = _everything()
        assert _owner(api, event).post(_url(event, f"/{offer.pk}/reactivate")).status_code == 404
        assert _everything() == before

    def test_an_offer_of_another_event_is_a_404(self, api) -> None:
        event = _event()
        foreign = _offer(_event(event.organization), status=Status.EXPIRED)
        assert _owner(api, event).post(_url(event, f"/{foreign.pk}/reactivate")).status_code == 404
        foreign.refresh_from_db()
        assert foreign.status == Status.EXPIRED

    def test_a_user_who_left_the_queue_cannot_be_reactivated(self, api) -> None:
        event = _event()
        offer = _offer(event, status=Status.EXPIRED)
        EventWaitList.objects.filter(event=event, user=offer.user).delete()
        before = _everything()
        response = _owner(api, event).post(_url(event, f"/{offer.pk}/reactivate"))
        assert response.status_code == 409
        assert response.json()["code"] == "not_on_waitlist"
        assert _everything() == before

    def test_reactivating_that_would_overcommit_is_a_409_with_a_hint(self, api) -> None:
        event = _event(max_attendees=2)
        fill_with_rsvps(event, 1)
        _offer(event)
        offer = _offer(event, status=Status.EXPIRED)
        before = _everything()
        response = _owner(api, event).post(_url(event, f"/{offer.pk}/reactivate"))
        assert response.status_code == 409
        assert response.json()["code"] == "capacity"
        assert "revoke a pending offer" in response.json()["detail"]
        assert _everything() == before

    def test_a_user_with_another_pending_offer_is_a_409(self, api) -> None:
        event = _event()
        old = _offer(event, status=Status.EXPIRED)
        _offer(event, old.user)
        response = _owner(api, event).post(_url(event, f"/{old.pk}/reactivate"))
        assert response.status_code == 409
        assert response.json()["code"] == "pending_offer_exists"


# -- cancelling the event ---------------------------------------------------------------------
@pytest.mark.django_db
class TestEventCancelled:
    def test_cancelling_revokes_pending_offers_with_event_cancelled(
        self, api, django_capture_on_commit_callbacks
    ) -> None:
        event = _event(max_attendees=1)
        pending = _offer(event)
        claimed = _offer(event, status=Status.CLAIMED)
        expired = _offer(event, status=Status.EXPIRED)
        with django_capture_on_commit_callbacks(execute=True):
            response = _owner(api, event).post(f"/event-admin/{event.pk}/status/cancelled")
        assert response.status_code == 200, response.content
        pending.refresh_from_db()
        assert (pending.status, pending.revoked_reason) == (Status.REVOKED, Reason.EVENT_CANCELLED)
        claimed.refresh_from_db()
        expired.refresh_from_db()
        assert (claimed.status, expired.status) == (Status.CLAIMED, Status.EXPIRED)

    def test_the_users_stay_eligible_when_the_event_is_reopened(
        self, api, django_capture_on_commit_callbacks
    ) -> None:
        event = _event(max_attendees=1)
        pending = _offer(event)
        assert (
            _owner(api, event).post(f"/event-admin/{event.pk}/status/cancelled").status_code == 200
        )
        with django_capture_on_commit_callbacks(execute=True):  # un-cancel → a pass (eager)
            response = _owner(api, event).post(f"/event-admin/{event.pk}/status/open")
        assert response.status_code == 200
        assert (
            WaitlistOffer.objects.filter(event=event, user=pending.user, status=Status.PENDING)
            .exclude(pk=pending.pk)
            .exists()
        )
