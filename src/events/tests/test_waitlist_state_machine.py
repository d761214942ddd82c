"""The offer state machine of seed 000: every allowed transition through its own path,
and no other transition by any path.

    [*] → PENDING            process / create_admin_offer / reactivate_admin_offer
    PENDING → CLAIMED        RSVP YES, checkout, box office
    PENDING → EXPIRED        hourly sweeper, leave_waitlist
    PENDING → REVOKED        organiser revoke, event cancelled, waitlist closed,
                             queue entry deleted (each with its `revoked_reason`)
    EXPIRED/REVOKED → PENDING   reactivate_admin_offer
    CLAIMED → (nothing)
"""

from collections.abc import Callable
from datetime import timedelta

import pytest
import time_machine

from accounts.tests.factories import make_user
from common.errors import NotFound
from events.models import EventRSVP, EventWaitList, WaitlistOffer
from events.service import waitlist_service
from events.service.event_manager.manager import EventManager
from events.tests.ticket_helpers import cart
from events.tests.waitlist_builders import (
    T0,
    WINDOW,
    Reason,
    Status,
    active_event,
    active_ticketed_event,
    give_offer,
    queue_in_order,
    reload,
)

pytestmark = pytest.mark.django_db

LATER = T0 + timedelta(minutes=10)


@pytest.fixture(autouse=True)
def _at_t0():
    with time_machine.travel(T0, tick=False):
        yield


@pytest.fixture
def on_commit(django_capture_on_commit_callbacks):
    """Run a step and everything it leaves for after the commit (eager Celery included)."""

    def run(step: Callable[[], object]) -> object:
        with django_capture_on_commit_callbacks(execute=True):
            return step()

    return run


def holder_of_offer(capacity: int = 3, attendees: int = 1, **fields):
    """An event with one queued user holding a PENDING offer made by the processor."""
    event = active_event(capacity, attendees=attendees, waitlist_batch_size=1, **fields)
    [user] = queue_in_order(event, 1)
    result = waitlist_service.process_waitlist_for_event(event.pk)
    assert result.status == "ok"
    return event, user, WaitlistOffer.objects.get(event=event, user=user)


def admin(api, event):
    """The organisation's owner: every staff permission."""
    return api(event.organization.owner)


def offer_url(offer: WaitlistOffer, action: str) -> str:
    return f"/event-admin/{offer.event_id}/waitlist-offers/{offer.pk}/{action}"


def fetch(offer: WaitlistOffer) -> WaitlistOffer:
    offer.refresh_from_db()
    return offer


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
