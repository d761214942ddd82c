"""The offer state machine of docs/spec/waitlist-design.md: every allowed transition through its own path.

[*] → PENDING            process / create_admin_offer / reactivate_admin_offer
PENDING → CLAIMED        RSVP YES, checkout, box office
PENDING → EXPIRED        hourly sweeper, leave_waitlist
PENDING → REVOKED        organiser revoke, event cancelled, waitlist closed,
                         queue entry deleted (each with its `revoked_reason`)
"""

from datetime import timedelta

import pytest
import time_machine

from events.models import EventWaitList, WaitlistOffer
from events.ticketing.tests.ticket_helpers import cart
from events.waitlist import services as waitlist_service
from events.waitlist.tests.waitlist_builders import (
    T0,
    WINDOW,
    Reason,
    Status,
    active_event,
    active_ticketed_event,
    queue_in_order,
)
from events.waitlist.tests.waitlist_state_machine_support import (
    LATER,
    _at_t0,
    admin,
    fetch,
    holder_of_offer,
    offer_url,
    on_commit,
)

__all__ = ["_at_t0", "on_commit"]  # fixtures, imported for pytest


pytestmark = pytest.mark.django_db


# -- into PENDING ---------------------------------------------------------------------------
class TestIntoPending:
    def test_processing_creates_pending_offers(self):
        _event, _user, offer = holder_of_offer()

        assert (offer.status, offer.expires_at, offer.revoked_reason) == (
            Status.PENDING,
            T0 + WINDOW,
            "",
        )

    def test_an_admin_offer_is_pending_and_never_a_cutoff_offer(self, api, on_commit):
        cutoff = T0 - timedelta(hours=1)  # past the cutoff: still an ordinary offer
        event = active_event(3, attendees=1, waitlist_cutoff_date=cutoff)
        [user] = queue_in_order(event, 1)
        entry = EventWaitList.objects.get(event=event, user=user)

        response = on_commit(
            lambda: admin(api, event).post(
                f"/event-admin/{event.pk}/waitlist-offers", {"waitlist_entry_id": str(entry.pk)}
            )
        )

        assert response.status_code == 201, response.json()
        offer = WaitlistOffer.objects.get(pk=response.json()["id"])
        assert (offer.status, offer.is_cutoff_batch) == (Status.PENDING, False)
        assert offer.expires_at == T0 + WINDOW

    @pytest.mark.parametrize("final", [Status.EXPIRED, Status.REVOKED])
    def test_reactivate_brings_an_expired_or_revoked_offer_back(self, api, on_commit, final):
        event, _user, offer = holder_of_offer()
        WaitlistOffer.objects.filter(pk=offer.pk).update(
            status=final, revoked_reason=Reason.ORGANIZER if final == Status.REVOKED else ""
        )

        with time_machine.travel(LATER, tick=False):
            response = on_commit(lambda: admin(api, event).post(offer_url(offer, "reactivate")))

        assert response.status_code == 200, response.json()
        offer = fetch(offer)
        assert (offer.status, offer.revoked_reason) == (Status.PENDING, "")
        assert offer.expires_at == LATER + WINDOW


# -- PENDING → CLAIMED ------------------------------------------------------------------------
class TestClaimed:
    def test_by_rsvp_yes(self, api, on_commit):
        event, user, offer = holder_of_offer()

        response = on_commit(lambda: api(user).post(f"/events/{event.pk}/rsvp/yes"))

        assert response.status_code == 200
        offer = fetch(offer)
        assert (offer.status, offer.claimed_at) == (Status.CLAIMED, T0)
        assert not EventWaitList.objects.filter(event=event, user=user).exists()

    def test_by_checkout(self, api, on_commit):
        event, tier, _ = active_ticketed_event(3, sold=1, waitlist_batch_size=1)
        [user] = queue_in_order(event, 1)
        waitlist_service.process_waitlist_for_event(event.pk)

        response = on_commit(
            lambda: api(user).post(f"/events/{event.pk}/checkout", cart((tier, 1)))
        )

        assert response.status_code == 201
        assert WaitlistOffer.objects.get(event=event, user=user).status == Status.CLAIMED

    def test_by_a_box_office_sale(self, api, on_commit):
        event, tier, _ = active_ticketed_event(3, sold=1, waitlist_batch_size=1)
        [user] = queue_in_order(event, 1)
        waitlist_service.process_waitlist_for_event(event.pk)
        staff = event.organization.owner

        response = on_commit(
            lambda: api(staff).post(
                f"/event-admin/{event.pk}/box-office/sell",
                {"user_id": str(user.pk), "tier_id": str(tier.pk)},
            )
        )

        assert response.status_code == 201
        assert WaitlistOffer.objects.get(event=event, user=user).status == Status.CLAIMED


# -- PENDING → EXPIRED ------------------------------------------------------------------------
class TestExpired:
    def test_by_the_sweeper_once_the_deadline_is_reached(self):
        _event, _user, offer = holder_of_offer()

        with time_machine.travel(T0 + WINDOW - timedelta(seconds=1), tick=False):
            assert waitlist_service.expire_waitlist_offers().expired == 0
        with time_machine.travel(T0 + WINDOW, tick=False):
            assert waitlist_service.expire_waitlist_offers().expired == 1

        assert fetch(offer).status == Status.EXPIRED

    def test_by_leaving_the_queue(self, api, on_commit):
        event, user, offer = holder_of_offer()

        response = on_commit(lambda: api(user).delete(f"/events/{event.pk}/waitlist/leave"))

        assert response.status_code == 204
        offer = fetch(offer)
        assert (offer.status, offer.revoked_reason) == (Status.EXPIRED, "")


# -- PENDING → REVOKED ------------------------------------------------------------------------
class TestRevoked:
    def test_by_the_organiser(self, api, on_commit):
        event, _user, offer = holder_of_offer()

        response = on_commit(lambda: admin(api, event).post(offer_url(offer, "revoke")))

        assert response.status_code == 200
        offer = fetch(offer)
        assert (offer.status, offer.revoked_reason) == (Status.REVOKED, Reason.ORGANIZER)

    def test_by_cancelling_the_event(self, api, on_commit):
        event, _user, offer = holder_of_offer()

        response = on_commit(
            lambda: api(event.organization.owner).post(f"/event-admin/{event.pk}/status/cancelled")
        )

        assert response.status_code == 200
        offer = fetch(offer)
        assert (offer.status, offer.revoked_reason) == (Status.REVOKED, Reason.EVENT_CANCELLED)

    def test_by_closing_the_waitlist_through_the_event_patch(self, api, on_commit):
        event, _user, offer = holder_of_offer()

        response = on_commit(
            lambda: api(event.organization.owner).patch(
                f"/event-admin/{event.pk}", {"waitlist_open": False}
            )
        )

        assert response.status_code == 200
        offer = fetch(offer)
        assert (offer.status, offer.revoked_reason) == (Status.REVOKED, Reason.WAITLIST_CLOSED)

    def test_by_staff_deleting_the_queue_entry(self, api, on_commit):
        event, user, offer = holder_of_offer()
        entry = EventWaitList.objects.get(event=event, user=user)

        response = on_commit(
            lambda: api(event.organization.owner).delete(
                f"/event-admin/{event.pk}/waitlist/{entry.pk}"
            )
        )

        assert response.status_code == 204
        offer = fetch(offer)
        assert (offer.status, offer.revoked_reason) == (Status.REVOKED, Reason.ENTRY_DELETED)

    def test_by_any_deletion_of_the_queue_entry(self, on_commit):
        event, user, offer = holder_of_offer()

        on_commit(lambda: EventWaitList.objects.filter(event=event, user=user).delete())

        assert fetch(offer).revoked_reason == Reason.ENTRY_DELETED
