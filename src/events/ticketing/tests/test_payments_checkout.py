"""POST /events/{id}/checkout for tiers paid online (issue 14): pending tickets that hold
their seats, a Stripe Checkout Session for the organisation's connected account, and
the refusals that sell nothing."""

from decimal import Decimal

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from accounts.tests.factories import make_user
from events.models import Payment, Ticket
from events.ticketing.tests.payment_helpers import (
    online_event,
    online_tier,
    paid_checkout,
    payment_of,
)
from events.ticketing.tests.stripe_stub import ACCOUNT, stripe_stub
from events.ticketing.tests.ticket_helpers import assert_counters_true, cart, checkout, free_tier

__all__ = ["stripe_stub"]

pytestmark = pytest.mark.django_db


def test_a_paid_checkout_holds_seats_and_answers_the_session(api, user, stripe_stub):
    event = online_event(max_attendees=5)
    tier = online_tier(event)

    response = paid_checkout(api, user, event, tier, 2)

    assert response.status_code == 201, response.json()
    body = response.json()
    session_id = next(iter(stripe_stub.sessions))
    assert body["payment"]["checkout_url"] == stripe_stub.sessions[session_id]["url"]
    assert body["payment"]["expires_at"]
    assert [t["status"] for t in body["tickets"]] == ["pending", "pending"]
    assert body["tickets"][0]["payment"] == {
        "status": "open",
        "amount": "43.00",
        "currency": "EUR",
        "refunded_amount": "0.00",
        "disputed": False,
    }
    assert_counters_true(event)
    assert event.attendee_count == 2  # pending tickets hold their seats


def test_the_session_is_made_for_the_connected_account_with_price_and_fee(api, user, stripe_stub):
    event = online_event()
    tier = online_tier(event)

    paid_checkout(api, user, event, tier, 3)

    [call] = stripe_stub.calls_to("POST", "/v1/checkout/sessions")
    payment = Payment.objects.get()
    assert call.account == ACCOUNT
    assert call.idempotency_key == f"encore-checkout-{payment.pk}"
    assert call.form["mode"] == "payment"
    assert call.form["line_items[0][price_data][unit_amount]"] == "2000"
    assert call.form["line_items[0][quantity]"] == "3"
    assert call.form["line_items[1][price_data][unit_amount]"] == "150"  # the booking fee
    assert call.form["metadata[encore_payment_id]"] == str(payment.pk)
    assert call.form["success_url"].endswith(f"/events/{event.pk}?payment=done")
    assert not any("card" in key for key in call.form)  # no card data passes through Encore
    assert payment.amount == 6450 and payment.stripe_account == ACCOUNT


def test_free_lines_of_a_mixed_cart_are_active_and_outside_the_payment(api, user, stripe_stub):
    event = online_event()
    paid, free = online_tier(event), free_tier(event)

    response = checkout(api, user, event, cart((paid, 1), (free, 1)))

    assert response.status_code == 201
    by_tier = {t["tier_id"]: t for t in response.json()["tickets"]}
    assert by_tier[str(free.pk)]["status"] == "active"
    assert by_tier[str(free.pk)]["payment"] is None
    assert by_tier[str(paid.pk)]["status"] == "pending"
    assert Payment.objects.get().amount == 2150


def test_without_a_connected_account_nothing_is_sold(api, user, stripe_stub):
    event = online_event()
    event.organization.stripe_connection.delete()
    tier = online_tier(event)

    response = paid_checkout(api, user, event, tier)

    assert response.status_code == 409
    assert response.json()["code"] == "payments_not_configured"
    assert not Ticket.objects.exists()
    assert stripe_stub.calls == []


def test_stripe_down_frees_the_seats_and_answers_502(api, user, stripe_stub):
    event = online_event(max_attendees=1)
    tier = online_tier(event)
    stripe_stub.failing.add("/v1/checkout/sessions")

    response = paid_checkout(api, user, event, tier)

    assert response.status_code == 502
    assert response.json()["code"] == "payment_provider_unavailable"
    assert Ticket.objects.get().status == "cancelled"
    assert Payment.objects.get().status == "failed"
    assert_counters_true(event)
    stripe_stub.failing.clear()
    assert paid_checkout(api, make_user(), event, tier).status_code == 201  # the seat is back


def test_the_holder_cannot_plain_cancel_a_ticket_paid_online(api, user, stripe_stub):
    event = online_event()
    tier = online_tier(event)
    ticket_id = paid_checkout(api, user, event, tier).json()["tickets"][0]["id"]

    response = api(user).post(f"/events/{event.pk}/tickets/{ticket_id}/cancel")

    assert response.status_code == 409
    assert response.json()["code"] == "paid_online"
    assert Ticket.objects.get().status == "pending"


def test_an_online_tier_needs_a_price(api, stripe_stub):
    event = online_event()
    owner = event.organization.owner

    response = api(owner).post(
        f"/event-admin/{event.pk}/ticket-tiers",
        {"name": "Online", "payment_method": "online", "price": "0"},
    )

    assert response.status_code == 400
    assert "price" in response.json()["errors"]


def test_the_payment_shows_in_my_tickets(api, user, stripe_stub):
    event = online_event()
    payment_of(paid_checkout(api, user, event, online_tier(event)))

    response = api(user).get("/me/tickets")

    assert response.json()["results"][0]["payment"]["status"] == "open"


def test_the_attendee_csv_has_the_payment_state(api, user, stripe_stub, client):
    event = online_event()
    payment_of(paid_checkout(api, user, event, online_tier(event, name="Online")))
    client.force_login(event.organization.owner)

    response = client.get(f"/manage/events/{event.pk}/attendees.csv")

    text = b"".join(response.streaming_content).decode()
    header, row = [line.split(",") for line in text.strip().splitlines()]
    assert header[-4:] == [
        "payment_status",
        "payment_amount",
        "payment_currency",
        "payment_disputed",
    ]
    assert row[3:5] == ["Online", "pending"]
    assert row[-4:] == ["open", "21.50", "EUR", ""]


def test_the_admin_ticket_list_reads_payments_in_fixed_queries(api, stripe_stub):
    event = online_event()
    tier = online_tier(event)
    owner = api(event.organization.owner)
    paid_checkout(api, make_user(), event, tier)
    with CaptureQueriesContext(connection) as one:
        owner.get(f"/event-admin/{event.pk}/tickets")
    for _ in range(4):
        paid_checkout(api, make_user(), event, tier)

    with CaptureQueriesContext(connection) as five:
        response = owner.get(f"/event-admin/{event.pk}/tickets")

    assert len(five.captured_queries) == len(one.captured_queries)
    assert [t["payment"]["status"] for t in response.json()["results"]] == ["open"] * 5


def test_staff_set_fee_tax_and_refund_deadline_on_a_tier(api, stripe_stub):
    event = online_event()
    owner = api(event.organization.owner)

    created = owner.post(
        f"/event-admin/{event.pk}/ticket-tiers",
        {
            "name": "Online",
            "payment_method": "online",
            "price": "20.00",
            "fee": "1.50",
            "tax_rate": "19",
            "refund_deadline": "2031-01-01T00:00:00Z",
        },
    )
    bad = [
        owner.post(
            f"/event-admin/{event.pk}/ticket-tiers",
            {"name": f"Bad {n}", "payment_method": "online", "price": "5", **field},
        ).status_code
        for n, field in enumerate([{"fee": "-1"}, {"tax_rate": "101"}])
    ]

    assert created.status_code == 201, created.json()
    body = created.json()
    assert Decimal(body["fee"]) == Decimal("1.50") and Decimal(body["tax_rate"]) == 19
    assert body["payment_method"] == "online"
    assert body["refund_deadline"].startswith("2031-01-01")
    assert bad == [400, 400]
