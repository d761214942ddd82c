"""Refunds of tickets paid online (issue 14): the organiser's (any amount up to the
ticket's price) and the holder's (in full, while the tier allows it). Money moves
through Stripe; the seat frees only when `charge.refunded` confirms."""

from datetime import timedelta

import pytest
from django.utils import timezone

from accounts.tests.factories import make_user
from events.core.tests.factories import make_staff
from events.models import PaymentRefund, Ticket
from events.ticketing.tests.payment_helpers import (
    completed,
    online_event,
    online_tier,
    paid_checkout,
    payment_of,
    refunded,
    send,
)
from events.ticketing.tests.stripe_stub import ACCOUNT, stripe_stub
from events.ticketing.tests.ticket_helpers import assert_counters_true, buy, free_tier

__all__ = ["stripe_stub"]

pytestmark = pytest.mark.django_db


def paid(api, user, stub, *, count=2, **tier_fields):
    event = online_event(max_attendees=5)
    tier = online_tier(event, **tier_fields)
    payment = payment_of(paid_checkout(api, user, event, tier, count))
    send(completed(stub, payment))
    payment.refresh_from_db()
    return event, payment, list(Ticket.objects.filter(payment=payment).order_by("pk"))


def organiser_refund(api, event, ticket, body=None):
    owner = event.organization.owner
    return api(owner).post(f"/event-admin/{event.pk}/tickets/{ticket.pk}/refund", body)


def test_organiser_refund_asks_stripe_and_frees_the_seat_only_when_confirmed(
    api, user, stripe_stub
):
    event, payment, (ticket, other) = paid(api, user, stripe_stub)

    response = organiser_refund(api, event, ticket)

    assert response.status_code == 202
    assert response.json()["status"] == "active"  # still valid: Stripe has not confirmed
    [call] = stripe_stub.calls_to("POST", "/v1/refunds")
    assert call.account == ACCOUNT
    assert call.form["payment_intent"] == payment.payment_intent_id
    assert call.form["amount"] == "2150"
    event.refresh_from_db()
    assert event.attendee_count == 2

    send(refunded(stripe_stub, payment, 2150))

    ticket.refresh_from_db()
    other.refresh_from_db()
    assert (ticket.status, ticket.cancellation_reason) == ("cancelled", "refunded")
    assert other.status == "active"
    assert PaymentRefund.objects.get().status == "succeeded"
    assert_counters_true(event)


def test_organiser_partial_amount_keeps_the_ticket(api, user, stripe_stub):
    event, payment, (ticket, _) = paid(api, user, stripe_stub)

    response = organiser_refund(api, event, ticket, {"amount": "5.00"})
    send(refunded(stripe_stub, payment, 500))

    assert response.status_code == 202
    assert stripe_stub.calls_to("POST", "/v1/refunds")[0].form["amount"] == "500"
    ticket.refresh_from_db()
    assert ticket.status == "active"
    payment.refresh_from_db()
    assert payment.refunded_amount == 500 and payment.status == "partially_refunded"


def test_the_second_ticket_refund_is_not_mistaken_for_the_first(api, user, stripe_stub):
    """Two partial refunds on one ticket reach its price: only then it is cancelled."""
    event, payment, (ticket, other) = paid(api, user, stripe_stub)

    organiser_refund(api, event, ticket, {"amount": "10.00"})
    send(refunded(stripe_stub, payment, 1000))
    organiser_refund(api, event, ticket)  # the rest: 11.50
    send(refunded(stripe_stub, payment, 2150))

    assert stripe_stub.calls_to("POST", "/v1/refunds")[1].form["amount"] == "1150"
    ticket.refresh_from_db()
    other.refresh_from_db()
    assert (ticket.status, other.status) == ("cancelled", "active")


@pytest.mark.parametrize("amount", ["0", "-1", "21.51", "abc"])
def test_a_bad_amount_is_400_and_asks_stripe_nothing(api, user, stripe_stub, amount):
    event, _, (ticket, _) = paid(api, user, stripe_stub)

    response = organiser_refund(api, event, ticket, {"amount": amount})

    assert response.status_code in (400, 422)
    assert response.json()["code"] == "invalid"
    assert stripe_stub.calls_to("POST", "/v1/refunds") == []


def test_refunding_an_unpaid_online_ticket_is_409(api, user, stripe_stub):
    event = online_event()
    tier = online_tier(event)
    ticket_id = paid_checkout(api, user, event, tier).json()["tickets"][0]["id"]

    response = api(event.organization.owner).post(
        f"/event-admin/{event.pk}/tickets/{ticket_id}/refund"
    )

    assert response.status_code == 409
    assert response.json()["code"] == "payment_pending"


def test_stripe_refusing_a_refund_is_502_and_leaves_the_ticket(api, user, stripe_stub):
    event, _, (ticket, _) = paid(api, user, stripe_stub)
    stripe_stub.failing.add("/v1/refunds")

    response = organiser_refund(api, event, ticket)

    assert response.status_code == 502
    assert PaymentRefund.objects.get().status == "failed"
    stripe_stub.failing.clear()
    assert organiser_refund(api, event, ticket).status_code == 202  # may be asked again


def test_refund_needs_manage_tickets(api, user, stripe_stub):
    event, _, (ticket, _) = paid(api, user, stripe_stub)
    staff = make_staff(event.organization, manage_tickets=False)

    denied = api(staff).post(f"/event-admin/{event.pk}/tickets/{ticket.pk}/refund")
    stranger = api(make_user()).post(f"/event-admin/{event.pk}/tickets/{ticket.pk}/refund")

    assert denied.status_code == 403
    assert stranger.status_code in (403, 404)
    assert stripe_stub.calls_to("POST", "/v1/refunds") == []


def test_an_offline_ticket_is_still_refunded_at_once(api, stripe_stub):
    event = online_event()
    ticket = buy(event, free_tier(event), make_user())[0]

    response = organiser_refund(api, event, ticket)

    assert response.status_code == 200
    assert response.json()["status"] == "cancelled"
    assert stripe_stub.calls == []


# -- the holder's own refund --------------------------------------------------------------
def holder_refund(api, user, event, ticket):
    return api(user).post(f"/events/{event.pk}/tickets/{ticket.pk}/refund")


def test_the_holder_refunds_before_the_deadline(api, user, stripe_stub):
    deadline = timezone.now() + timedelta(days=1)
    event, payment, (ticket, _) = paid(api, user, stripe_stub, refund_deadline=deadline)

    response = holder_refund(api, user, event, ticket)
    send(refunded(stripe_stub, payment, 2150))

    assert response.status_code == 202
    assert stripe_stub.calls_to("POST", "/v1/refunds")[0].form["amount"] == "2150"
    ticket.refresh_from_db()
    assert ticket.status == "cancelled"


def test_the_holder_cannot_refund_after_the_deadline(api, user, stripe_stub):
    deadline = timezone.now() - timedelta(minutes=1)
    event, _, (ticket, _) = paid(api, user, stripe_stub, refund_deadline=deadline)

    response = holder_refund(api, user, event, ticket)

    assert response.status_code == 409
    assert response.json()["code"] == "refund_deadline_passed"
    assert stripe_stub.calls_to("POST", "/v1/refunds") == []


def test_a_tier_without_a_deadline_allows_no_holder_refund(api, user, stripe_stub):
    event, _, (ticket, _) = paid(api, user, stripe_stub)

    response = holder_refund(api, user, event, ticket)

    assert response.status_code == 409
    assert response.json()["code"] == "refund_not_allowed"


def test_someone_elses_ticket_is_404(api, user, stripe_stub):
    deadline = timezone.now() + timedelta(days=1)
    event, _, (ticket, _) = paid(api, user, stripe_stub, refund_deadline=deadline)

    response = holder_refund(api, make_user(), event, ticket)

    assert response.status_code == 404
    assert stripe_stub.calls_to("POST", "/v1/refunds") == []


def test_a_refund_already_asked_for_is_not_asked_twice(api, user, stripe_stub):
    deadline = timezone.now() + timedelta(days=1)
    event, _, (ticket, _) = paid(api, user, stripe_stub, refund_deadline=deadline)
    holder_refund(api, user, event, ticket)

    again = holder_refund(api, user, event, ticket)

    assert again.status_code == 409
    assert again.json()["code"] == "nothing_to_refund"
    assert len(stripe_stub.calls_to("POST", "/v1/refunds")) == 1
