"""POST /events/{event_id}/checkout, the caps: tier quantities and per-user limits, sale
windows, the event's capacity (staff bounded too, an overriding invitation past it), and
the locked check itself.
"""

from datetime import timedelta

import pytest
from django.db import transaction
from django.utils import timezone

from events.core.eligibility.refusals import EligibilityRefused
from events.core.services.locks import lock_event, lock_tiers
from events.core.tests.factories import fill_with_tickets, make_staff
from events.models import Invitation, Ticket
from events.ticketing.services import cancellation as cancellation_service
from events.ticketing.services.batch_tickets.capacity import assert_event_capacity
from events.ticketing.tests.ticket_helpers import (
    assert_counters_true,
    cart,
    checkout,
    free_tier,
    ticketed_event,
)

pytestmark = pytest.mark.django_db


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
