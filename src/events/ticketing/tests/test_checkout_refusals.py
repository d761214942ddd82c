"""POST /events/{event_id}/checkout: refusals and bad input, which sell nothing."""

import pytest

from events.models import Event, Ticket
from events.ticketing.services.batch_tickets import BatchTicketService, CartItem
from events.ticketing.tests.ticket_helpers import (
    assert_counters_true,
    cart,
    checkout,
    free_tier,
    offline_tier,
    ticketed_event,
)

pytestmark = pytest.mark.django_db


# -- refusals and bad input -------------------------------------------------------------------
def test_tier_of_another_event_is_not_found(api, user):
    event = ticketed_event()
    free_tier(event)
    foreign = free_tier(ticketed_event())

    response = checkout(api, user, event, cart((foreign, 1)))

    assert response.status_code == 404
    assert response.json()["code"] == "unknown_tier"
    assert not Ticket.objects.exists()


@pytest.mark.parametrize(
    "items",
    [
        [],
        [{"count": 0}],
        [{"count": -2}],
        [{"count": 1}, {"count": 1}],
        [{"count": 2, "holder_names": ["only one"]}],
        [{"count": 101}],
    ],
    ids=["empty", "zero", "negative", "same-tier-twice", "names-mismatch", "too-many"],
)
def test_malformed_cart_is_400_invalid_and_writes_nothing(api, user, items):
    event = ticketed_event()
    tier = free_tier(event)
    body = {"items": [{"tier_id": str(tier.pk), **item} for item in items]}

    response = checkout(api, user, event, body)

    assert response.status_code == 400
    assert response.json()["code"] == "invalid"
    assert response.json()["errors"]
    assert not Ticket.objects.exists()
    assert_counters_true(event)


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"items": "x"},
        {"items": [{"tier_id": "not-a-uuid", "count": 1}]},
        {"items": [{"tier_id": "00000000-0000-0000-0000-000000000000", "count": "many"}]},
        {"items": [{"tier_id": "00000000-0000-0000-0000-000000000000", "count": 1, "x": 1}]},
    ],
)
def test_request_schema_violations_are_422(api, user, body):
    event = ticketed_event()
    free_tier(event)

    response = checkout(api, user, event, body)

    assert response.status_code == 422
    assert response.json()["code"] == "invalid"
    assert not Ticket.objects.exists()


def test_rsvp_event_sells_no_tickets(api, user):
    event = ticketed_event(requires_ticket=False)
    tier = free_tier(event)

    response = checkout(api, user, event, cart((tier, 1)))

    assert response.status_code == 400
    assert response.json()["code"] == "does_not_require_ticket"
    assert not Ticket.objects.exists()


def test_event_that_is_not_open_refuses_with_the_eligibility_body(api, user):
    event = ticketed_event(status=Event.Status.CLOSED)
    tier = free_tier(event)

    response = checkout(api, user, event, cart((tier, 1)))

    assert response.status_code == 400
    body = response.json()
    assert body["code"] == body["reason_code"] == "event_is_not_open"
    assert body["next_step"] == "wait_for_event_to_open"
    assert not Ticket.objects.exists()


def test_invisible_event_is_not_found(api, user):
    event = ticketed_event(status=Event.Status.DRAFT)
    tier = free_tier(event)

    response = checkout(api, user, event, cart((tier, 1)))

    assert response.status_code == 404


def test_anonymous_checkout_is_401(api):
    event = ticketed_event()
    tier = free_tier(event)

    assert api(None).post(f"/events/{event.pk}/checkout", cart((tier, 1))).status_code == 401


def test_checkout_query_count_is_fixed_per_tier(django_assert_num_queries, user):
    """2 gate prefetch + savepoint/release + lock event + lock tiers + held tickets +
    the locked check (seats held by offers, invitation, own offer and queue entry: one
    statement) + (insert + quantity_sold) per tier + attendee_count; a buyer without an
    offer or a queue entry has nothing to claim (ADR 0022)."""
    event = ticketed_event(max_attendees=10)
    first, second = free_tier(event), offline_tier(event)
    items = [CartItem(first.pk, 2), CartItem(second.pk, 1)]

    with django_assert_num_queries(13):
        BatchTicketService(event, user).create_batch(items)

    assert_counters_true(event)
