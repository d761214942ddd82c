"""Refunds of tickets paid online, asked for by the organiser or by the holder.

Money moves through Stripe and seats follow it: asking writes a `PaymentRefund`
(requested) and calls Stripe after the commit; the ticket stays valid until
`charge.refunded` confirms the money is back (`settle.apply_refunded_total`), which
cancels it and frees its seat for the waitlist. The answer is 202: accepted, not done.
A refund of less than the ticket's amount (a goodwill refund) keeps the ticket.
"""

import uuid
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal

from django.db import transaction
from django.db.models import Sum
from django.utils import timezone

from accounts.models import User
from common.errors import InvalidInput
from events.models import Event, Payment, PaymentRefund, Ticket
from events.ticketing.errors import (
    AlreadyCancelled,
    NothingToRefund,
    PaymentNotSettled,
    PaymentProviderUnavailable,
    RefundDeadlinePassed,
    RefundNotAllowed,
    TicketNotFound,
)
from events.ticketing.services.payments import stripe_api


@dataclass(frozen=True)
class RefundRequest:
    ticket: Ticket
    refund: PaymentRefund


def is_paid_online(ticket: Ticket) -> bool:
    return ticket.payment_id is not None


def refund_by_organiser(
    event: Event, ticket_id: uuid.UUID, staff: User, amount: Decimal | None = None
) -> RefundRequest:
    ticket = Ticket.objects.filter(pk=ticket_id, event=event).select_related("payment").first()
    if ticket is None:
        raise TicketNotFound()
    return _request(ticket, staff, amount)


def refund_by_holder(
    user: User, event_id: uuid.UUID, ticket_id: uuid.UUID, *, now: datetime | None = None
) -> RefundRequest:
    """The holder's own refund, in full, when the tier allows it and its deadline holds."""
    now = now or timezone.now()
    ticket = (
        Ticket.objects.filter(pk=ticket_id, event_id=event_id, user=user)
        .select_related("payment", "tier")
        .first()
    )
    if ticket is None:
        raise TicketNotFound()
    deadline = ticket.tier.refund_deadline
    if ticket.payment_id is None or deadline is None:
        raise RefundNotAllowed()
    if now >= deadline:
        raise RefundDeadlinePassed(extra={"refund_deadline": deadline.isoformat()})
    return _request(ticket, user, None)


def _request(ticket: Ticket, by: User, amount: Decimal | None) -> RefundRequest:
    refund = _write_request(ticket, by, amount)
    payment = ticket.payment
    assert payment is not None
    client = stripe_api.client()
    try:
        answer = stripe_api.call(
            client.v1.refunds.create,
            account=payment.stripe_account,
            idempotency_key=f"encore-refund-{refund.pk}",
            payment_intent=payment.payment_intent_id,
            amount=refund.amount,
            metadata={"encore_payment_id": str(payment.pk), "encore_ticket_id": str(ticket.pk)},
        )
    except PaymentProviderUnavailable:
        PaymentRefund.objects.filter(pk=refund.pk).update(status=PaymentRefund.Status.FAILED)
        raise
    refund.stripe_refund_id = str(answer["id"])
    PaymentRefund.objects.filter(pk=refund.pk).update(stripe_refund_id=refund.stripe_refund_id)
    return RefundRequest(ticket, refund)


@transaction.atomic
def _write_request(ticket: Ticket, by: User, amount: Decimal | None) -> PaymentRefund:
    """Under the payment's row lock, so two requests never refund one ticket twice."""
    if ticket.payment_id is None:
        raise RefundNotAllowed()
    payment = Payment.objects.select_for_update(of=("self",)).get(pk=ticket.payment_id)
    ticket.refresh_from_db(fields=["status"])
    if ticket.status == Ticket.Status.CANCELLED:
        raise AlreadyCancelled()
    if payment.status not in (Payment.Status.PAID, Payment.Status.PARTIALLY_REFUNDED):
        raise PaymentNotSettled()
    price = int(payment.ticket_amounts.get(str(ticket.pk), 0))
    asked = (
        PaymentRefund.objects.filter(ticket=ticket)
        .exclude(status=PaymentRefund.Status.FAILED)
        .aggregate(total=Sum("amount"))["total"]
        or 0
    )
    left = price - asked
    if left <= 0:
        raise NothingToRefund()
    wanted = left if amount is None else stripe_api.to_minor(amount, payment.currency)
    if wanted <= 0 or wanted > left:
        maximum = stripe_api.to_major(left, payment.currency)
        raise InvalidInput({"amount": [f"Must be more than 0 and at most {maximum}."]})
    return PaymentRefund.objects.create(
        payment=payment, ticket=ticket, amount=wanted, requested_by=by
    )
