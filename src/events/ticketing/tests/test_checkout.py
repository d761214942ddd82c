"""POST /events/{event_id}/checkout, the happy paths: a cart across tiers, payment methods
(active or pending tickets, both holding seats), holder names, and the buyer taken off the
waitlist.
"""

import pytest

from accounts.tests.factories import make_user
from events.core.tests.factories import make_tier
from events.models import EventWaitList, Ticket
from events.ticketing.tests.ticket_helpers import (
    assert_counters_true,
    cart,
    checkout,
    free_tier,
    offline_tier,
    ticketed_event,
)

pytestmark = pytest.mark.django_db


# -- the happy paths --------------------------------------------------------------------------
def test_cart_across_tiers_sells_every_line_and_counts_them(api, user):
    event = ticketed_event(max_attendees=10)
    free, paid = free_tier(event), offline_tier(event)

    response = checkout(api, user, event, cart((free, 2), (paid, 1)))

    assert response.status_code == 201, response.json()
    tickets = response.json()["tickets"]
    assert sorted(t["tier_name"] for t in tickets) == sorted([free.name, free.name, paid.name])
    assert {t["event_id"] for t in tickets} == {str(event.pk)}
    assert Ticket.objects.filter(event=event, user=user).count() == 3
    assert_counters_true(event)
    assert event.attendee_count == 3


@pytest.mark.parametrize(
    ("method", "status"),
    [("free", "active"), ("at_the_door", "active"), ("offline", "pending")],
)
def test_payment_method_decides_whether_the_ticket_is_active_or_pending(api, user, method, status):
    event = ticketed_event()
    tier = make_tier(event, payment_method=method)

    response = checkout(api, user, event, cart((tier, 1)))

    assert response.status_code == 201
    assert response.json()["tickets"][0]["status"] == status
    assert Ticket.objects.get(event=event).status == status


def test_pending_tickets_hold_seats_like_active_ones(api, user):
    event = ticketed_event(max_attendees=2)
    paid = offline_tier(event)

    assert checkout(api, user, event, cart((paid, 2))).status_code == 201
    response = checkout(api, make_user(), event, cart((paid, 1)))

    assert response.status_code == 409
    assert response.json()["code"] == "event_is_full"
    assert_counters_true(event)


def test_holder_names_are_kept_and_default_to_the_buyer(api):
    buyer = make_user(preferred_name="Ada")
    event = ticketed_event()
    named, unnamed = free_tier(event), free_tier(event)
    body = {
        "items": [
            {"tier_id": str(named.pk), "count": 2, "holder_names": ["Grace", "Alan"]},
            {"tier_id": str(unnamed.pk), "count": 1},
        ]
    }

    response = checkout(api, buyer, event, body)

    assert response.status_code == 201
    assert sorted(t["holder_name"] for t in response.json()["tickets"]) == ["Ada", "Alan", "Grace"]


def test_registering_takes_the_buyer_off_the_waitlist(api, user):
    event = ticketed_event(waitlist_open=True)
    tier = free_tier(event)
    EventWaitList.objects.create(event=event, user=user)
    other = EventWaitList.objects.create(event=event, user=make_user())

    assert checkout(api, user, event, cart((tier, 1))).status_code == 201

    assert list(EventWaitList.objects.filter(event=event)) == [other]
