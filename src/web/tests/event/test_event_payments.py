"""The event page with tiers paid online (issue 14): prices with fee and tax, "Confirm"
sends the buyer to Stripe's Checkout page, and Stripe's return shows a notice."""

from decimal import Decimal

import pytest
from django.test import Client

from accounts.tests.factories import make_user
from events.models import Ticket
from events.ticketing.tests.payment_helpers import completed, online_event, online_tier, send
from events.ticketing.tests.stripe_stub import stripe_stub
from web.tests.event.support import event_path, region_of

__all__ = ["stripe_stub"]

pytestmark = pytest.mark.django_db


def test_confirm_sends_the_buyer_to_stripe_with_seats_held(client: Client, stripe_stub) -> None:
    event = online_event(max_attendees=5)
    tier = online_tier(event, name="Online")
    user = make_user()
    client.force_login(user)

    response = client.post(f"{event_path(event)}/checkout", {f"tier_{tier.pk.hex}": "2"})

    assert response.status_code == 302
    session = next(iter(stripe_stub.sessions.values()))
    assert response["Location"] == session["url"]
    assert session["metadata"]["encore_event_id"] == str(event.pk)
    assert [t.status for t in Ticket.objects.filter(user=user)] == ["pending", "pending"]


def test_the_checkout_form_shows_price_fee_and_tax(client: Client, stripe_stub) -> None:
    event = online_event()
    online_tier(event, price=Decimal("20.00"), fee=Decimal("1.50"), tax_rate=Decimal("19"))
    client.force_login(make_user())

    body = client.get(f"{event_path(event)}/checkout").content.decode()

    assert "20.00 EUR + 1.50 EUR booking fee (incl. 19% tax)" in body
    assert "pay online by card" in body


def test_back_from_stripe_the_page_says_so_and_offers_no_plain_cancel(
    client: Client, stripe_stub
) -> None:
    event = online_event()
    tier = online_tier(event)
    user = make_user()
    client.force_login(user)
    client.post(f"{event_path(event)}/checkout", {f"tier_{tier.pk.hex}": "1"})
    ticket = Ticket.objects.get(user=user)
    assert ticket.payment is not None
    send(completed(stripe_stub, ticket.payment))

    page = client.get(f"{event_path(event)}?payment=done").content.decode()

    region = region_of(page)
    assert "Your payment is being confirmed" in region
    assert "You are attending" in region
    assert ">Cancel ticket</button>" not in region  # given back by a refund, not a cancel


def test_the_checkout_form_may_send_the_buyer_to_stripe(client: Client, stripe_stub) -> None:
    """Browsers check `form-action` against the redirect after "Confirm" as well."""
    event = online_event()
    online_tier(event)
    client.force_login(make_user())

    policy = client.get(f"{event_path(event)}/checkout")["Content-Security-Policy"]

    assert "form-action 'self' https://checkout.stripe.test" in policy
