"""Bodies of the payment routes, and the `payment` a ticket shows (docs/spec/api.md "Payments")."""

import uuid
from datetime import datetime
from decimal import Decimal

from ninja import Field, Schema
from pydantic import ConfigDict

from events.models import Payment, Ticket
from events.utils.money import to_major


class TicketPaymentSchema(Schema):
    """The online checkout a ticket was paid in: its state and money, major units
    (12.50), like tier prices; `amount` and `refunded_amount` are the checkout's."""

    status: Payment.Status
    amount: Decimal
    currency: str
    refunded_amount: Decimal
    disputed: bool = Field(description="A chargeback was opened on this payment.")


def ticket_payment(ticket: Ticket) -> dict[str, object] | None:
    """For `resolve_payment`: `ticket.payment` must be select_related by the query."""
    payment = ticket.payment
    if payment is None:
        return None
    return {
        "status": payment.status,
        "amount": to_major(payment.amount, payment.currency),
        "currency": payment.currency,
        "refunded_amount": to_major(payment.refunded_amount, payment.currency),
        "disputed": payment.disputed_at is not None,
    }


class CheckoutPaymentSchema(Schema):
    checkout_url: str
    expires_at: datetime


class RefundSchema(Schema):
    """`amount` in major units; default: what is left of the ticket's price."""

    model_config = ConfigDict(extra="forbid")

    amount: Decimal | None = Field(None, gt=0, max_digits=12, decimal_places=2)


class StripeAccountSchema(Schema):
    model_config = ConfigDict(extra="forbid")

    account_id: str = Field(..., pattern=r"^acct_[A-Za-z0-9]{1,60}$")


class StripeConnectionSchema(Schema):
    organization_id: uuid.UUID
    account_id: str
    charges_enabled: bool


class WebhookAnswerSchema(Schema):
    received: bool
    duplicate: bool
