"""A paid checkout: pending tickets that hold their seats, and a Stripe Checkout Session.

Two steps, because Stripe is never called while a row lock is held (docs/spec/domain.md):

1. `BatchTicketService.create_batch` sells the cart under its locks as for any tier
   (capacity, limits, the waitlist offer claimed); online tickets start PENDING, and in
   the same transaction a `Payment` (open, with its deadline) is written and the
   tickets point at it. A race for the last seat is decided here, by the same locked
   check as every sale: one pending ticket, one 409.
2. After the commit the session is created at Stripe for the connected account (the
   payment's id as idempotency key). If Stripe refuses, the tickets are cancelled at
   once (seats freed, waitlist nudged) and the buyer gets a 502: nothing was charged.

The buyer then pays on Stripe's page; no card data ever reaches Encore.
"""

import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any

from django.conf import settings
from django.utils import timezone

from accounts.models import User
from common.errors import InvalidInput
from events.models import Event, Payment, Ticket, TicketTier
from events.ticketing.errors import PaymentProviderUnavailable, PaymentsNotConfigured
from events.ticketing.services.batch_tickets import BatchTicketService, CartItem
from events.ticketing.services.batch_tickets.service import validate_cart
from events.ticketing.services.payments import settle, stripe_api
from events.ticketing.services.payments.connection import account_for

ONLINE = TicketTier.PaymentMethod.ONLINE


@dataclass(frozen=True)
class CheckoutResult:
    tickets: list[Ticket]
    payment: Payment | None


def checkout(
    event: Event,
    user: User,
    items: Sequence[CartItem | Mapping[str, Any]],
    *,
    now: datetime | None = None,
) -> CheckoutResult:
    """Sell the cart; with online tiers in it, also open the Stripe Checkout Session."""
    now = now or timezone.now()
    cart = validate_cart(items)
    tiers = {
        t.pk: t for t in TicketTier.objects.filter(event=event, pk__in=[i.tier_id for i in cart])
    }
    online = [
        tiers[i.tier_id]
        for i in cart
        if i.tier_id in tiers and tiers[i.tier_id].payment_method == ONLINE
    ]
    if not online:
        return CheckoutResult(BatchTicketService(event, user, now=now).create_batch(cart), None)
    account = account_for(event.organization_id) if stripe_api.is_enabled() else None
    if account is None:
        raise PaymentsNotConfigured()
    if len({tier.currency for tier in online}) > 1:
        raise InvalidInput({"items": ["Tiers paid online in one checkout share one currency."]})
    made: list[Payment] = []

    def attach(locked: Event, written: list[Ticket]) -> None:
        made.append(_open_payment(locked, user, account, written, now))

    tickets = BatchTicketService(event, user, now=now).create_batch(cart, on_written=attach)
    payment = made[0]
    try:
        session = _create_session(event, user, payment, tickets)
    except PaymentProviderUnavailable:
        settle.release_unpaid(payment.pk, Payment.Status.FAILED, timezone.now())
        raise
    payment.checkout_session_id = session["id"]
    payment.checkout_url = session["url"]
    Payment.objects.filter(pk=payment.pk).update(
        checkout_session_id=payment.checkout_session_id,
        checkout_url=payment.checkout_url,
        updated_at=timezone.now(),
    )
    for ticket in tickets:
        if ticket.payment_id == payment.pk:
            ticket.payment = payment
    return CheckoutResult(tickets, payment)


def ticket_amount(tier: TicketTier) -> int:
    """What one ticket costs online, minor units: the price (taxes included) and the fee."""
    return stripe_api.to_minor(tier.price + tier.fee, tier.currency)


def _open_payment(
    event: Event, user: User, account: str, written: list[Ticket], now: datetime
) -> Payment:
    """Inside the checkout's transaction, under its locks: the payment and its tickets."""
    paid = [t for t in written if t.tier.payment_method == ONLINE]
    amounts = {str(t.pk): ticket_amount(t.tier) for t in paid}
    payment = Payment.objects.create(
        event=event,
        user=user,
        stripe_account=account,
        currency=paid[0].tier.currency,
        amount=sum(amounts.values()),
        ticket_amounts=amounts,
        expires_at=now + timedelta(minutes=settings.STRIPE_CHECKOUT_MINUTES),
    )
    Ticket.objects.filter(pk__in=[t.pk for t in paid]).update(payment=payment)
    for ticket in paid:
        ticket.payment = payment
    return payment


def _create_session(event: Event, user: User, payment: Payment, tickets: list[Ticket]) -> Any:
    base = f"{settings.ENCORE_PUBLIC_URL.rstrip('/')}/events/{event.pk}"
    metadata = {"encore_payment_id": str(payment.pk), "encore_event_id": str(event.pk)}
    client = stripe_api.client()
    return stripe_api.call(
        client.v1.checkout.sessions.create,
        account=payment.stripe_account,
        idempotency_key=f"encore-checkout-{payment.pk}",
        mode="payment",
        line_items=_line_items(event, [t for t in tickets if t.payment_id == payment.pk]),
        expires_at=int(payment.expires_at.timestamp()),
        success_url=f"{base}?payment=done",
        cancel_url=f"{base}?payment=cancelled",
        client_reference_id=str(payment.pk),
        customer_email=user.email,
        metadata=metadata,
        payment_intent_data={"metadata": metadata},
    )


def _line_items(event: Event, tickets: list[Ticket]) -> list[dict[str, Any]]:
    """One line per tier, and one per tier's booking fee, so Stripe's page and receipt
    show what the buyer pays for."""
    counts: dict[uuid.UUID, tuple[TicketTier, int]] = {}
    for ticket in tickets:
        tier, count = counts.get(ticket.tier_id, (ticket.tier, 0))
        counts[ticket.tier_id] = (tier, count + 1)
    lines: list[dict[str, Any]] = []
    for tier, count in counts.values():
        lines.append(_line(f"{event.name} – {tier.name}", tier.price, tier.currency, count))
        if tier.fee > 0:
            lines.append(_line(f"Booking fee – {tier.name}", tier.fee, tier.currency, count))
    return lines


def _line(name: str, amount: Decimal, currency: str, count: int) -> dict[str, Any]:
    return {
        "quantity": count,
        "price_data": {
            "currency": currency.lower(),
            "unit_amount": stripe_api.to_minor(amount, currency),
            "product_data": {"name": name[:250]},
        },
    }
