"""POST /events/{event_id}/checkout: carts, caps, payment methods, counters, bad input."""

from datetime import timedelta
from typing import Any

import pytest
from django.db import transaction
from django.utils import timezone

from accounts.tests.factories import make_user
from events.errors import EligibilityRefused
from events.models import Event, EventWaitList, Invitation, Ticket
from events.service import cancellation_service
from events.service.batch_ticket_service import BatchTicketService, CartItem
from events.service.batch_ticket_service.capacity import assert_event_capacity
from events.service.locks import lock_event, lock_tiers
from events.tests.factories import fill_with_tickets, make_staff, make_tier
from events.tests.ticket_helpers import (
    assert_counters_true,
    cart,
    free_tier,
    offline_tier,
    ticketed_event,
)

pytestmark = pytest.mark.django_db


def checkout(api: Any, user: Any, event: Event, body: Any) -> Any:
    return api(user).post(f"/events/{event.pk}/checkout", body)


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


# -- caps -------------------------------------------------------------------------------------
def test_tier_quantity_caps_the_cart_and_nothing_is_written(api, user):
    event = ticketed_event()
    small = free_tier(event, total_quantity=2)
    big = free_tier(event)
    fill_with_tickets(event, small, 1)

    response = checkout(api, user, event, cart((big, 1), (small, 2)))

    assert response.status_code == 409
    assert response.json()["code"] == "sold_out"
    assert response.json()["remaining"] == 1
    assert not Ticket.objects.filter(user=user).exists()
    assert_counters_true(event)


def test_exhausted_tier_while_another_still_sells_is_sold_out_for_that_tier(api, user):
    event = ticketed_event(waitlist_open=True)
    gone = free_tier(event, total_quantity=1)
    free_tier(event)
    fill_with_tickets(event, gone, 1)

    response = checkout(api, user, event, cart((gone, 1)))

    assert response.status_code == 409
    assert response.json()["code"] == "sold_out"
    assert response.json()["tier_id"] == str(gone.pk)
    assert response.json()["remaining"] == 0


def test_every_tier_exhausted_is_sold_out_with_the_waitlist_as_next_step(api, user):
    event = ticketed_event(waitlist_open=True)
    tier = free_tier(event, total_quantity=1)
    fill_with_tickets(event, tier, 1)

    response = checkout(api, user, event, cart((tier, 1)))

    assert response.status_code == 409
    assert response.json()["code"] == "sold_out"
    assert response.json()["next_step"] == "join_waitlist"
    assert not Ticket.objects.filter(user=user).exists()


def test_tier_per_user_limit_counts_tickets_already_held_but_not_cancelled_ones(api, user):
    event = ticketed_event()
    tier = free_tier(event, max_tickets_per_user=2)
    assert checkout(api, user, event, cart((tier, 1))).status_code == 201

    refused = checkout(api, user, event, cart((tier, 2)))
    assert refused.status_code == 400
    assert refused.json()["code"] == "ticket_limit_exceeded"
    assert refused.json()["already_held"] == 1

    held = Ticket.objects.get(user=user)
    cancellation_service.cancel_ticket_by_user(user, held.pk)
    assert checkout(api, user, event, cart((tier, 2))).status_code == 201
    assert_counters_true(event)


def test_event_per_user_limit_spans_every_tier(api, user):
    event = ticketed_event(max_tickets_per_user=3)
    first, second = free_tier(event), free_tier(event)
    assert checkout(api, user, event, cart((first, 2))).status_code == 201

    response = checkout(api, user, event, cart((first, 1), (second, 1)))

    assert response.status_code == 400
    assert response.json()["code"] == "ticket_limit_exceeded"
    assert Ticket.objects.filter(user=user).count() == 2
    assert checkout(api, user, event, cart((second, 1))).status_code == 201
    assert_counters_true(event)


@pytest.mark.parametrize(
    "window",
    [
        {"sales_start_at": timedelta(days=1)},
        {"sales_end_at": timedelta(days=-1)},
    ],
    ids=["before-sales-start", "after-sales-end"],
)
def test_tier_outside_its_sale_window_is_refused(api, user, window):
    event = ticketed_event()
    free_tier(event)  # another tier on sale, so the gate lets the cart through
    now = timezone.now()
    closed = free_tier(event, **{key: now + delta for key, delta in window.items()})

    response = checkout(api, user, event, cart((closed, 1)))

    assert response.status_code == 400
    assert response.json()["code"] == "tier_not_on_sale"
    assert not Ticket.objects.exists()


def test_tier_inside_its_sale_window_sells(api, user):
    now = timezone.now()
    event = ticketed_event()
    tier = free_tier(
        event, sales_start_at=now - timedelta(hours=1), sales_end_at=now + timedelta(hours=1)
    )

    assert checkout(api, user, event, cart((tier, 1))).status_code == 201


def test_no_tier_on_sale_is_the_gates_refusal(api, user):
    event = ticketed_event()
    tier = free_tier(event, sales_start_at=timezone.now() + timedelta(days=1))

    response = checkout(api, user, event, cart((tier, 1)))

    assert response.status_code == 400
    assert response.json()["code"] == "no_tickets_on_sale"
    assert response.json()["allowed"] is False


def test_event_capacity_bounds_the_cart_total(api, user):
    event = ticketed_event(max_attendees=3)
    tier = free_tier(event)
    fill_with_tickets(event, tier, 2)

    response = checkout(api, user, event, cart((tier, 2)))

    assert response.status_code == 409
    assert response.json()["code"] == "event_is_full"
    assert checkout(api, user, event, cart((tier, 1))).status_code == 201
    assert_counters_true(event)
    assert event.attendee_count == 3


def test_staff_are_bounded_by_capacity_too(api):
    event = ticketed_event(max_attendees=1)
    tier = free_tier(event)
    fill_with_tickets(event, tier, 1)
    staff = make_staff(event.organization)

    response = checkout(api, staff, event, cart((tier, 1)))

    assert response.status_code == 409
    assert response.json()["code"] == "event_is_full"


def test_invitation_that_overrides_capacity_gets_past_a_full_event(api, user):
    event = ticketed_event(max_attendees=1)
    tier = free_tier(event)
    fill_with_tickets(event, tier, 1)
    Invitation.objects.create(event=event, user=user, overrides_max_attendees=True)

    response = checkout(api, user, event, cart((tier, 1)))

    assert response.status_code == 201
    assert_counters_true(event)
    assert event.attendee_count == 2


# -- the locked check itself ------------------------------------------------------------------
def test_locked_check_refuses_a_full_event_with_the_gates_reason(user):
    event = ticketed_event(max_attendees=1, waitlist_open=True)
    tier = free_tier(event)
    fill_with_tickets(event, tier, 1)

    with transaction.atomic(), pytest.raises(EligibilityRefused) as refused:
        locked = lock_event(event.pk)
        assert_event_capacity(locked, user.pk, 1, lock_tiers(locked, [tier.pk]).values())

    assert refused.value.status_code == 409
    assert refused.value.code == "event_is_full"
    assert refused.value.eligibility.next_step == "join_waitlist"


def test_locked_check_says_sold_out_when_every_tier_is_exhausted(user):
    event = ticketed_event()
    tier = free_tier(event, total_quantity=1)
    fill_with_tickets(event, tier, 1)

    with transaction.atomic(), pytest.raises(EligibilityRefused) as refused:
        locked = lock_event(event.pk)
        assert_event_capacity(locked, user.pk, 1, lock_tiers(locked, [tier.pk]).values())

    assert refused.value.status_code == 409
    assert refused.value.code == "sold_out"


def test_locked_check_lets_an_overriding_invitation_through(user):
    event = ticketed_event(max_attendees=1)
    tier = free_tier(event)
    fill_with_tickets(event, tier, 1)
    Invitation.objects.create(event=event, user=user, overrides_max_attendees=True)

    with transaction.atomic():
        locked = lock_event(event.pk)
        assert_event_capacity(locked, user.pk, 1, lock_tiers(locked, [tier.pk]).values())


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
    invitation + seats held by offers + (insert + quantity_sold) per tier + attendee_count
    + claim the live offer (lock it) + leave the queue."""
    event = ticketed_event(max_attendees=10)
    first, second = free_tier(event), offline_tier(event)
    items = [CartItem(first.pk, 2), CartItem(second.pk, 1)]

    with django_assert_num_queries(16):
        BatchTicketService(event, user).create_batch(items)

    assert_counters_true(event)
