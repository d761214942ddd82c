"""Cancelling tickets (holder, staff cancel, offline refund): seats come back, the waitlist
is nudged after the commit, and only the holder may give a ticket back."""

import pytest
from django.db import transaction

from accounts.tests.factories import make_user
from events.core.tests.factories import make_staff
from events.models import Event, Ticket
from events.ticketing.errors import AlreadyCancelled
from events.ticketing.services import cancellation as cancellation_service
from events.ticketing.tests.ticket_helpers import (
    assert_counters_true,
    buy,
    free_tier,
    offline_tier,
    ticketed_event,
)

pytestmark = pytest.mark.django_db


def cancel_url(event: Event, ticket: Ticket) -> str:
    return f"/events/{event.pk}/tickets/{ticket.pk}/cancel"


# -- the holder ------------------------------------------------------------------------------
def test_holder_cancels_own_ticket_freeing_its_seat_and_nudging_the_waitlist(
    api, user, dispatched, django_capture_on_commit_callbacks
):
    event = ticketed_event(max_attendees=2)
    tier = free_tier(event)
    keep, give_back = buy(event, tier, user, 2)

    with django_capture_on_commit_callbacks(execute=True):
        response = api(user).post(cancel_url(event, give_back))

    assert response.status_code == 200, response.json()
    body = response.json()
    assert body["id"] == str(give_back.pk)
    assert body["status"] == "cancelled"
    assert body["cancellation_reason"] == "user"
    assert body["cancelled_at"]
    assert dispatched == [event.pk]
    keep.refresh_from_db()
    assert keep.status == Ticket.Status.ACTIVE
    assert_counters_true(event)
    assert event.attendee_count == 1


def test_freed_seat_can_be_sold_again(api, user):
    event = ticketed_event(max_attendees=1)
    tier = free_tier(event)
    [ticket] = buy(event, tier, user)
    newcomer = make_user()
    full = api(newcomer).post(
        f"/events/{event.pk}/checkout", {"items": [{"tier_id": str(tier.pk), "count": 1}]}
    )
    assert full.status_code == 409

    api(user).post(cancel_url(event, ticket))
    again = api(newcomer).post(
        f"/events/{event.pk}/checkout", {"items": [{"tier_id": str(tier.pk), "count": 1}]}
    )

    assert again.status_code == 201
    assert_counters_true(event)


def test_pending_ticket_cancel_frees_its_seat_too(api, user):
    event = ticketed_event()
    tier = offline_tier(event)
    [ticket] = buy(event, tier, user)

    assert api(user).post(cancel_url(event, ticket)).status_code == 200

    assert_counters_true(event)
    assert event.attendee_count == 0


def test_another_users_ticket_is_not_found_and_untouched(api, user, dispatched):
    event = ticketed_event()
    tier = free_tier(event)
    [ticket] = buy(event, tier, make_user())

    response = api(user).post(cancel_url(event, ticket))

    assert response.status_code == 404
    ticket.refresh_from_db()
    assert ticket.status == Ticket.Status.ACTIVE
    assert dispatched == []
    assert_counters_true(event)


def test_ticket_under_another_events_path_is_not_found(api, user):
    event, other = ticketed_event(), ticketed_event()
    [ticket] = buy(event, free_tier(event), user)

    assert api(user).post(cancel_url(other, ticket)).status_code == 404

    ticket.refresh_from_db()
    assert ticket.status == Ticket.Status.ACTIVE


def test_cancelling_twice_is_409_already_cancelled_and_counts_once(api, user):
    event = ticketed_event()
    [ticket] = buy(event, free_tier(event), user)
    assert api(user).post(cancel_url(event, ticket)).status_code == 200

    again = api(user).post(cancel_url(event, ticket))

    assert again.status_code == 409
    assert again.json()["code"] == "already_cancelled"
    assert_counters_true(event)


def test_checked_in_ticket_cannot_be_given_back_by_its_holder(api, user):
    event = ticketed_event()
    [ticket] = buy(event, free_tier(event), user)
    Ticket.objects.filter(pk=ticket.pk).update(status=Ticket.Status.CHECKED_IN)

    response = api(user).post(cancel_url(event, ticket))

    assert response.status_code == 409
    assert response.json()["code"] == "ticket_checked_in"
    assert_counters_true(event)


def test_anonymous_cancel_is_401(api, user):
    event = ticketed_event()
    [ticket] = buy(event, free_tier(event), user)

    assert api(None).post(cancel_url(event, ticket)).status_code == 401


# -- staff -----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "action_reason", [("cancel", "staff"), ("refund", "refunded")], ids=["cancel", "refund"]
)
def test_staff_cancel_and_refund_free_the_seat_and_nudge_the_waitlist(
    api, user, dispatched, django_capture_on_commit_callbacks, action_reason
):
    action, reason = action_reason
    event = ticketed_event()
    tier = offline_tier(event)
    [ticket] = buy(event, tier, user)
    staff = make_staff(event.organization)

    with django_capture_on_commit_callbacks(execute=True):
        response = api(staff).post(f"/event-admin/{event.pk}/tickets/{ticket.pk}/{action}")

    assert response.status_code == 200, response.json()
    assert response.json()["status"] == "cancelled"
    assert response.json()["cancellation_reason"] == reason
    assert dispatched == [event.pk]
    assert_counters_true(event)
    assert event.attendee_count == 0


def test_staff_may_cancel_a_checked_in_ticket(user):
    event = ticketed_event()
    [ticket] = buy(event, free_tier(event), user)
    Ticket.objects.filter(pk=ticket.pk).update(status=Ticket.Status.CHECKED_IN)

    cancelled = cancellation_service.cancel_ticket_by_staff(event, ticket.pk)

    assert cancelled.status == Ticket.Status.CANCELLED
    assert_counters_true(event)


def test_staff_refund_of_a_cancelled_ticket_is_409(user):
    event = ticketed_event()
    [ticket] = buy(event, free_tier(event), user)
    cancellation_service.cancel_ticket_by_user(user, ticket.pk)

    with pytest.raises(AlreadyCancelled):
        cancellation_service.refund_ticket_offline(event, ticket.pk)
    assert_counters_true(event)


def test_rolled_back_cancellation_dispatches_nothing(
    user, dispatched, django_capture_on_commit_callbacks
):
    event = ticketed_event()
    [ticket] = buy(event, free_tier(event), user)

    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        try:
            with transaction.atomic():
                cancellation_service.cancel_ticket_by_user(user, ticket.pk)
                raise RuntimeError("abort")
        except RuntimeError:
            pass

    assert callbacks == []
    assert dispatched == []
    ticket.refresh_from_db()
    assert ticket.status == Ticket.Status.ACTIVE
    assert_counters_true(event)
