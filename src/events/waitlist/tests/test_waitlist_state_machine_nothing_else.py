"""The offer state machine of docs/spec/waitlist-design.md: no other transition by any path. A claimed offer
stays claimed, and only reactivate_admin_offer takes an expired or revoked offer back to
pending.

    EXPIRED/REVOKED → PENDING   reactivate_admin_offer
    CLAIMED → (nothing)
"""

from datetime import timedelta

import pytest
import time_machine

from accounts.tests.factories import make_user
from common.errors import NotFound
from events.core.services.event_manager import EventManager
from events.models import EventRSVP, EventWaitList, WaitlistOffer
from events.waitlist import services as waitlist_service
from events.waitlist.tests.waitlist_builders import (
    T0,
    WINDOW,
    Status,
    active_event,
    give_offer,
    reload,
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


# -- and nothing else -----------------------------------------------------------------------
def claimed_offer():
    event, user, offer = holder_of_offer()
    EventManager(user, reload(event)).rsvp(EventRSVP.Status.YES)
    offer = fetch(offer)
    assert offer.status == Status.CLAIMED
    return event, user, offer


def _sweep_long_after(api, event, user, offer):
    with time_machine.travel(T0 + timedelta(days=2), tick=False):
        waitlist_service.expire_waitlist_offers()


def _revoke(api, event, user, offer):
    assert admin(api, event).post(offer_url(offer, "revoke")).status_code == 404


def _reactivate(api, event, user, offer):
    assert admin(api, event).post(offer_url(offer, "reactivate")).status_code == 404


def _leave(api, event, user, offer):
    assert api(user).delete(f"/events/{event.pk}/waitlist/leave").status_code == 204


def _cancel_event(api, event, user, offer):
    assert admin(api, event).post(f"/event-admin/{event.pk}/status/cancelled").status_code == 200


def _close_waitlist(api, event, user, offer):
    response = admin(api, event).patch(
        f"/event-admin/{event.pk}/waitlist-settings", {"waitlist_open": False}
    )
    assert response.status_code == 200


def _register_again(api, event, user, offer):
    assert api(user).post(f"/events/{event.pk}/rsvp/no").status_code == 200
    assert api(user).post(f"/events/{event.pk}/rsvp/yes").status_code == 200


ATTEMPTS = [
    _sweep_long_after,
    _revoke,
    _reactivate,
    _leave,
    _cancel_event,
    _close_waitlist,
    _register_again,
]


class TestNoOtherTransition:
    @pytest.mark.parametrize("attempt", ATTEMPTS, ids=lambda f: f.__name__.strip("_"))
    def test_a_claimed_offer_never_changes(self, api, attempt, on_commit):
        event, user, offer = claimed_offer()
        before = (offer.status, offer.claimed_at, offer.expires_at, offer.revoked_reason)

        on_commit(lambda: attempt(api, event, user, offer))

        offer = fetch(offer)
        assert (offer.status, offer.claimed_at, offer.expires_at, offer.revoked_reason) == before

    @pytest.mark.parametrize("final", [Status.PENDING, Status.CLAIMED])
    def test_reactivating_a_pending_or_claimed_offer_is_not_found(self, api, final):
        event, _user, offer = holder_of_offer()
        WaitlistOffer.objects.filter(pk=offer.pk).update(status=final)

        with time_machine.travel(LATER, tick=False):
            response = admin(api, event).post(offer_url(offer, "reactivate"))

        assert response.status_code == 404
        offer = fetch(offer)
        assert (offer.status, offer.expires_at) == (final, T0 + WINDOW)

    @pytest.mark.parametrize("final", [Status.CLAIMED, Status.EXPIRED, Status.REVOKED])
    def test_revoking_anything_but_a_pending_offer_is_not_found(self, api, final):
        event, _user, offer = holder_of_offer()
        WaitlistOffer.objects.filter(pk=offer.pk).update(status=final)

        response = admin(api, event).post(offer_url(offer, "revoke"))

        assert response.status_code == 404
        offer = fetch(offer)
        assert (offer.status, offer.revoked_reason) == (final, "")

    def test_an_offer_of_another_event_is_not_found(self):
        _event, _user, offer = holder_of_offer()
        other = active_event(3)

        with pytest.raises(NotFound):
            waitlist_service.revoke_offer(other.pk, offer.pk)
        with pytest.raises(NotFound):
            waitlist_service.reactivate_admin_offer(other.pk, offer.pk)
        assert fetch(offer).status == Status.PENDING

    @pytest.mark.parametrize("final", [Status.EXPIRED, Status.REVOKED])
    def test_registering_never_claims_an_offer_that_is_no_longer_pending(
        self, api, on_commit, final
    ):
        event, user, offer = holder_of_offer()
        WaitlistOffer.objects.filter(pk=offer.pk).update(status=final)

        response = on_commit(lambda: api(user).post(f"/events/{event.pk}/rsvp/yes"))

        assert response.status_code == 200
        offer = fetch(offer)
        assert (offer.status, offer.claimed_at) == (final, None)

    def test_registering_never_claims_a_lapsed_pending_offer(self, api, on_commit):
        event, user, offer = holder_of_offer()

        with time_machine.travel(T0 + WINDOW + timedelta(minutes=1), tick=False):
            response = on_commit(lambda: api(user).post(f"/events/{event.pk}/rsvp/yes"))

        assert response.status_code == 200
        assert fetch(offer).claimed_at is None
        assert fetch(offer).status != Status.CLAIMED

    def test_the_sweeper_leaves_live_offers_pending(self):
        _event, _user, offer = holder_of_offer()

        with time_machine.travel(T0 + WINDOW - timedelta(minutes=1), tick=False):
            waitlist_service.expire_waitlist_offers()

        assert fetch(offer).status == Status.PENDING

    def test_an_admin_offer_cannot_double_a_pending_one(self):
        event, user, _offer = holder_of_offer()
        entry = EventWaitList.objects.get(event=event, user=user)

        with pytest.raises(waitlist_service.PendingOfferExists):
            waitlist_service.create_admin_offer(event.pk, entry.pk)

        assert WaitlistOffer.objects.filter(event=event, user=user).count() == 1

    def test_a_revoked_offer_is_not_revived_by_a_processing_pass(self):
        event, user, offer = holder_of_offer()
        waitlist_service.revoke_offer(event.pk, offer.pk)

        waitlist_service.process_waitlist_for_event(event.pk)

        assert fetch(offer).status == Status.REVOKED
        assert WaitlistOffer.objects.filter(event=event, user=user).count() == 1

    def test_no_pending_offer_for_someone_off_the_queue(self):
        event = active_event(3, attendees=1)
        stranger = make_user()
        give_offer(event, stranger, expires_at=T0 - timedelta(hours=1))
        WaitlistOffer.objects.filter(event=event, user=stranger).update(status=Status.EXPIRED)
        offer = WaitlistOffer.objects.get(event=event, user=stranger)

        with pytest.raises(waitlist_service.NotOnWaitlist):
            waitlist_service.reactivate_admin_offer(event.pk, offer.pk)

        assert fetch(offer).status == Status.EXPIRED
