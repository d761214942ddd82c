"""Shared pieces of the payment tests: an organisation connected to the stub's account,
an online tier, a paid checkout through the API, and webhook deliveries."""

from decimal import Decimal
from typing import Any

from django.test import Client

from accounts.models import User
from events.core.tests.factories import make_tier
from events.models import Event, Payment, StripeConnection, TicketTier
from events.ticketing.tests.stripe_stub import ACCOUNT, StripeStub, deliver, stripe_event
from events.ticketing.tests.ticket_helpers import cart, checkout, ticketed_event


def online_event(**fields: Any) -> Event:
    event = ticketed_event(**fields)
    StripeConnection.objects.create(
        organization=event.organization, account_id=ACCOUNT, charges_enabled=True
    )
    return event


def online_tier(event: Event, **fields: Any) -> TicketTier:
    fields.setdefault("payment_method", TicketTier.PaymentMethod.ONLINE)
    fields.setdefault("price", Decimal("20.00"))
    fields.setdefault("fee", Decimal("1.50"))
    return make_tier(event, **fields)


def paid_checkout(api: Any, user: User, event: Event, tier: TicketTier, count: int = 1) -> Any:
    return checkout(api, user, event, cart((tier, count)))


def payment_of(response: Any) -> Payment:
    ticket_id = response.json()["tickets"][0]["id"]
    return Payment.objects.get(tickets__id=ticket_id)


def completed(stub: StripeStub, payment: Payment) -> dict[str, Any]:
    assert payment.checkout_session_id
    return stripe_event("checkout.session.completed", stub.pay(payment.checkout_session_id))


def expired(stub: StripeStub, payment: Payment) -> dict[str, Any]:
    assert payment.checkout_session_id
    session = stub.sessions[payment.checkout_session_id]
    session["status"] = "expired"
    return stripe_event("checkout.session.expired", session)


def refunded(stub: StripeStub, payment: Payment, amount_refunded: int) -> dict[str, Any]:
    assert payment.checkout_session_id
    return stripe_event(
        "charge.refunded", stub.charge_of(payment.checkout_session_id, amount_refunded)
    )


def send(event: dict[str, Any], **kw: Any) -> Any:
    return deliver(Client(), event, **kw)
