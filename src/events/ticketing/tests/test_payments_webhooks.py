"""POST /payments/stripe/webhook (issue 14): signed deliveries only, each Stripe event
applied once, in any order; completed → active, expired → cancelled and the seat back,
refunds (full, partial) → the refunded tickets cancelled, disputes recorded."""

import json
import time

import pytest
from django.test import Client

from events.models import Payment, StripeEvent, Ticket
from events.ticketing.tests.payment_helpers import (
    completed,
    expired,
    online_event,
    online_tier,
    paid_checkout,
    payment_of,
    refunded,
    send,
)
from events.ticketing.tests.stripe_stub import deliver, signature, stripe_event, stripe_stub
from events.ticketing.tests.ticket_helpers import assert_counters_true

__all__ = ["stripe_stub"]

pytestmark = pytest.mark.django_db


@pytest.fixture
def bought(api, user, stripe_stub):
    """Two pending tickets of 21.50 EUR each (20.00 and a 1.50 fee) on a 3-seat event."""
    event = online_event(max_attendees=3)
    tier = online_tier(event)
    payment = payment_of(paid_checkout(api, user, event, tier, 2))
    return event, payment


def statuses(payment):
    return sorted(Ticket.objects.filter(payment=payment).values_list("status", flat=True))


def test_completed_makes_the_tickets_active(bought, stripe_stub, mailoutbox):
    _event, payment = bought

    response = send(completed(stripe_stub, payment))

    assert response.status_code == 200
    assert response.json() == {"received": True, "duplicate": False}
    assert statuses(payment) == ["active", "active"]
    payment.refresh_from_db()
    assert payment.status == "paid" and payment.payment_intent_id.startswith("pi_")
    assert Ticket.objects.filter(payment=payment, paid_at__isnull=False).count() == 2


def test_a_duplicate_delivery_is_answered_and_changes_nothing(bought, stripe_stub):
    _event, payment = bought
    delivery = completed(stripe_stub, payment)
    send(delivery)
    Ticket.objects.filter(payment=payment).update(holder_name="untouched")

    again = send(delivery)

    assert again.status_code == 200
    assert again.json()["duplicate"] is True
    assert StripeEvent.objects.filter(stripe_id=delivery["id"]).count() == 1
    assert set(Ticket.objects.filter(payment=payment).values_list("holder_name", flat=True)) == {
        "untouched"
    }


def test_expired_cancels_the_tickets_and_gives_the_seats_back(
    bought, stripe_stub, dispatched, django_capture_on_commit_callbacks
):
    event, payment = bought

    with django_capture_on_commit_callbacks(execute=True):
        response = send(expired(stripe_stub, payment))

    assert response.status_code == 200
    assert statuses(payment) == ["cancelled", "cancelled"]
    assert set(Ticket.objects.values_list("cancellation_reason", flat=True)) == {"unpaid"}
    assert Payment.objects.get(pk=payment.pk).status == "expired"
    assert_counters_true(event)
    assert event.attendee_count == 0
    assert dispatched == [event.pk]  # the waitlist gets its pass


@pytest.mark.parametrize("missing", ["header", "wrong secret", "tampered", "stale"])
def test_a_bad_signature_is_400_and_records_nothing(bought, stripe_stub, missing):
    _event, payment = bought
    delivery = completed(stripe_stub, payment)
    payload = json.dumps(delivery).encode()
    header = {
        "header": None,
        "wrong secret": signature(payload, secret="whsec_someone_else"),
        "tampered": signature(payload + b" "),
        "stale": signature(payload, at=int(time.time()) - 3600),
    }[missing]

    response = send(delivery, header=header)

    assert response.status_code == 400
    assert response.json()["code"] == "invalid_signature"
    assert not StripeEvent.objects.exists()
    assert statuses(payment) == ["pending", "pending"]


def test_a_full_refund_cancels_every_ticket(
    bought, stripe_stub, dispatched, django_capture_on_commit_callbacks
):
    event, payment = bought
    send(completed(stripe_stub, payment))

    with django_capture_on_commit_callbacks(execute=True):
        response = send(refunded(stripe_stub, payment, 4300))

    assert response.status_code == 200
    assert statuses(payment) == ["cancelled", "cancelled"]
    assert set(Ticket.objects.values_list("cancellation_reason", flat=True)) == {"refunded"}
    payment.refresh_from_db()
    assert payment.status == "refunded" and payment.refunded_amount == 4300
    assert_counters_true(event)
    assert dispatched == [event.pk]


def test_a_partial_refund_cancels_only_the_tickets_it_covers(bought, stripe_stub):
    event, payment = bought
    send(completed(stripe_stub, payment))

    send(refunded(stripe_stub, payment, 2150))  # one ticket's price

    assert statuses(payment) == ["active", "cancelled"]
    payment.refresh_from_db()
    assert payment.status == "partially_refunded"
    assert_counters_true(event)
    assert event.attendee_count == 1


def test_a_goodwill_refund_below_a_ticket_price_keeps_every_ticket(bought, stripe_stub):
    _event, payment = bought
    send(completed(stripe_stub, payment))

    send(refunded(stripe_stub, payment, 500))

    assert statuses(payment) == ["active", "active"]
    assert Payment.objects.get(pk=payment.pk).refunded_amount == 500


def test_refunds_out_of_order_end_where_stripe_ends(bought, stripe_stub):
    """Stripe's total is cumulative: the later (larger) refund arriving first wins, the
    older one arriving last changes nothing."""
    event, payment = bought
    send(completed(stripe_stub, payment))
    first, second = refunded(stripe_stub, payment, 2150), refunded(stripe_stub, payment, 4300)

    send(second)
    send(first)

    assert statuses(payment) == ["cancelled", "cancelled"]
    assert Payment.objects.get(pk=payment.pk).refunded_amount == 4300
    assert_counters_true(event)


def test_a_refund_before_the_completed_event_settles_both(bought, stripe_stub):
    """`charge.refunded` comes first: Encore finds the payment through Stripe (the
    intent's metadata), counts it paid, then refunds; the late `completed` is a no-op."""
    event, payment = bought
    completion = completed(stripe_stub, payment)  # paid at Stripe, not delivered yet

    send(refunded(stripe_stub, payment, 2150))
    send(completion)

    assert statuses(payment) == ["active", "cancelled"]
    payment.refresh_from_db()
    assert payment.status == "partially_refunded" and payment.paid_at is not None
    assert stripe_stub.calls_to("GET", f"/v1/payment_intents/{payment.payment_intent_id}")
    assert_counters_true(event)


def test_expired_after_completed_changes_nothing(bought, stripe_stub):
    _event, payment = bought
    send(completed(stripe_stub, payment))

    send(
        stripe_event("checkout.session.expired", stripe_stub.sessions[payment.checkout_session_id])
    )

    assert statuses(payment) == ["active", "active"]


def test_a_dispute_is_recorded_for_the_organiser(api, bought, stripe_stub):
    event, payment = bought
    send(completed(stripe_stub, payment))
    payment.refresh_from_db()
    dispute = {
        "id": "dp_test_1",
        "object": "dispute",
        "payment_intent": payment.payment_intent_id,
        "status": "needs_response",
        "reason": "fraudulent",
    }

    send(stripe_event("charge.dispute.created", dispute))

    listed = api(event.organization.owner).get(f"/event-admin/{event.pk}/tickets")
    assert {t["payment"]["disputed"] for t in listed.json()["results"]} == {True}
    payment.refresh_from_db()
    assert payment.dispute_reason == "fraudulent"
    assert statuses(payment) == ["active", "active"]  # the organiser decides


def test_an_event_about_someone_elses_session_is_recorded_and_ignored(stripe_stub):
    response = send(stripe_event("checkout.session.completed", {"id": "cs_other", "metadata": {}}))

    assert response.status_code == 200
    assert StripeEvent.objects.get().outcome == "unknown_payment"


def test_the_webhook_is_not_throttled(bought, stripe_stub, settings):
    settings.THROTTLE_ENABLED = True
    settings.WRITE_THROTTLE_RATE = "1/min"

    answers = [
        send(stripe_event("customer.created", {"id": "cus_x"})).status_code for _ in range(3)
    ]

    assert answers == [200, 200, 200]


def test_a_payment_after_encore_gave_the_seats_up_is_refunded_in_full(bought, stripe_stub):
    event, payment = bought
    stripe_stub.sessions[payment.checkout_session_id]["status"] = "expired"
    send(
        stripe_event("checkout.session.expired", stripe_stub.sessions[payment.checkout_session_id])
    )

    send(completed(stripe_stub, payment))  # Stripe says it was paid after all

    [call] = stripe_stub.calls_to("POST", "/v1/refunds")
    assert "amount" not in call.form  # all of it
    assert statuses(payment) == ["cancelled", "cancelled"]
    assert_counters_true(event)


def test_a_ticket_cancelled_while_the_checkout_was_open_is_refunded_when_paid(
    api, bought, stripe_stub
):
    event, payment = bought
    gone, kept = Ticket.objects.filter(payment=payment).order_by("pk")
    owner = api(event.organization.owner)
    assert owner.post(f"/event-admin/{event.pk}/tickets/{gone.pk}/cancel").status_code == 200

    send(completed(stripe_stub, payment))
    [call] = stripe_stub.calls_to("POST", "/v1/refunds")
    send(refunded(stripe_stub, payment, int(call.form["amount"])))

    assert call.form["amount"] == "2150"
    kept.refresh_from_db()
    assert kept.status == "active"  # the money went back for the cancelled one only
    assert_counters_true(event)


def test_the_webhook_needs_no_csrf_token(bought, stripe_stub):
    _event, payment = bought

    response = deliver(Client(enforce_csrf_checks=True), completed(stripe_stub, payment))

    assert response.status_code == 200
    assert statuses(payment) == ["active", "active"]
