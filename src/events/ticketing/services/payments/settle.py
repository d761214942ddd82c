"""What Stripe's answers do to tickets and seats, each under the locks in the global order.

Event row → the payment's tiers (pk order) → the Payment row → its tickets (pk order).
Every function here re-reads the payment under its lock and decides from its state, so
a duplicate or late delivery finds the work done and changes nothing (ADR 0027):

- `mark_paid`: open → paid, its pending tickets active (a receipt goes out on commit);
- `release_unpaid`: open → expired/failed, its pending tickets cancelled (`unpaid`),
  their seats freed and a waitlist pass enqueued (`release_tickets`);
- `apply_refunded_total`: Stripe's cumulative refunded amount of the charge; a ticket
  whose own amount is refunded is cancelled (`refunded`) and its seat freed;
- `record_dispute`: kept on the payment for the organiser.
"""

import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime

from django.db import transaction

from events.core.services import event_notifications
from events.core.services.locks import lock_event, lock_tiers
from events.models import Event, Payment, PaymentRefund, Ticket
from events.ticketing.services.cancellation import release_tickets

Status = Payment.Status
LIVE = (Status.PAID, Status.PARTIALLY_REFUNDED)


@dataclass
class Locked:
    event: Event
    payment: Payment


@contextmanager
def locked_payment(payment_id: uuid.UUID) -> Iterator[Locked]:
    """One transaction holding the payment's locks in the global order."""
    event_id = Payment.objects.filter(pk=payment_id).values_list("event_id", flat=True).get()
    with transaction.atomic():
        event = lock_event(event_id)
        tier_ids = Ticket.objects.filter(payment_id=payment_id).values_list("tier_id", flat=True)
        lock_tiers(event, set(tier_ids))
        payment = Payment.objects.select_for_update(of=("self",)).get(pk=payment_id)
        yield Locked(event, payment)


def _tickets(payment: Payment, *statuses: str) -> list[Ticket]:
    scope = Ticket.objects.select_for_update(of=("self",)).filter(payment=payment)
    if statuses:
        scope = scope.filter(status__in=statuses)
    return list(scope.order_by("pk"))


def mark_paid(payment_id: uuid.UUID, payment_intent_id: str, now: datetime) -> str:
    """Checkout completed. Returns the outcome recorded on the webhook event."""
    with locked_payment(payment_id) as locked:
        payment = locked.payment
        if payment_intent_id and not payment.payment_intent_id:
            payment.payment_intent_id = payment_intent_id
        if payment.status != Status.OPEN:
            # Paid already (a duplicate, or the refund came first and settled it), or
            # Encore gave the seats up first: the refund for that case goes out below.
            payment.save(update_fields=["payment_intent_id", "updated_at"])
            return "late_payment" if payment.status in (Status.EXPIRED, Status.FAILED) else "noop"
        payment.status = Status.PAID
        payment.paid_at = now
        payment.save(update_fields=["status", "paid_at", "payment_intent_id", "updated_at"])
        pending = _tickets(payment, Ticket.Status.PENDING)
        Ticket.objects.filter(pk__in=[t.pk for t in pending]).update(
            status=Ticket.Status.ACTIVE, paid_at=now, updated_at=now
        )
        # The receipt: `ticket_created` now carries the amounts paid (a pending online
        # ticket sent no mail at checkout).
        event_notifications.notify_tickets_created([t.pk for t in pending])
        if _owe_for_cancelled(payment):
            return "paid_with_cancelled"
        return "paid"


def _owe_for_cancelled(payment: Payment) -> bool:
    """Tickets cancelled while the checkout was open (staff, a deleted account) were paid
    for all the same: one refund request each, so `charge.refunded` attributes the money
    to them and never to a live ticket. True when there is something to send back."""
    cancelled = Ticket.objects.filter(payment=payment, status=Ticket.Status.CANCELLED)
    already = set(payment.refunds.values_list("ticket_id", flat=True))
    owed = [
        PaymentRefund(
            payment=payment, ticket_id=pk, amount=int(payment.ticket_amounts.get(str(pk), 0))
        )
        for pk in cancelled.values_list("pk", flat=True)
        if pk not in already
    ]
    PaymentRefund.objects.bulk_create([r for r in owed if r.amount > 0])
    return payment.refunds.filter(
        status=PaymentRefund.Status.REQUESTED, stripe_refund_id__isnull=True
    ).exists()


def release_unpaid(payment_id: uuid.UUID, status: str, now: datetime) -> bool:
    """Never paid: cancel the pending tickets and free their seats. False when the
    payment was no longer open (paid meanwhile, or released already)."""
    with locked_payment(payment_id) as locked:
        payment = locked.payment
        if payment.status != Status.OPEN:
            return False
        tickets = _tickets(payment, Ticket.Status.PENDING)
        release_tickets(locked.event, tickets, Ticket.CancellationReason.UNPAID, now)
        payment.status = status
        payment.save(update_fields=["status", "updated_at"])
        return True


def apply_refunded_total(
    payment_id: uuid.UUID, refunded_total: int, payment_intent_id: str, now: datetime
) -> str:
    """Stripe says `refunded_total` (cumulative, minor units) of the charge is refunded.

    Cumulative, so a duplicate or an older partial refund arriving late is a no-op. A
    refund that precedes the `completed` event proves payment: the tickets are made
    active first, then refunded.
    """
    mark_paid(payment_id, payment_intent_id, now)
    with locked_payment(payment_id) as locked:
        payment = locked.payment
        if refunded_total <= payment.refunded_amount:
            return "noop"
        if payment.status not in LIVE:
            # A late payment Encore refunded itself (its seats were already given up).
            payment.refunded_amount = min(refunded_total, payment.amount)
            payment.save(update_fields=["refunded_amount", "updated_at"])
            return "late_payment_refunded"
        payment.refunded_amount = min(refunded_total, payment.amount)
        payment.status = (
            Status.REFUNDED
            if payment.refunded_amount >= payment.amount
            else Status.PARTIALLY_REFUNDED
        )
        payment.save(update_fields=["refunded_amount", "status", "updated_at"])
        refunded = _refunded_ticket_ids(payment)
        tickets = [
            t for t in _tickets(payment) if t.pk in refunded and t.status != Ticket.Status.CANCELLED
        ]
        release_tickets(locked.event, tickets, Ticket.CancellationReason.REFUNDED, now)
        return "refunded"


def _refunded_ticket_ids(payment: Payment) -> set[uuid.UUID]:
    """Which tickets the confirmed total covers.

    Encore's own refund requests, oldest first, are confirmed while the total covers
    them; a ticket is refunded once its requests reach its amount. What is left over
    was refunded in Stripe's dashboard: it covers further whole tickets, in ticket-id
    order from the last (deterministic, so a redelivery picks the same ones).
    A total equal to the payment refunds every ticket.
    """
    amounts = {uuid.UUID(key): value for key, value in payment.ticket_amounts.items()}
    if payment.refunded_amount >= payment.amount:
        return set(amounts)
    left = payment.refunded_amount
    per_ticket: dict[uuid.UUID, int] = {}
    confirmed: list[uuid.UUID] = []
    for refund in payment.refunds.exclude(status=PaymentRefund.Status.FAILED).order_by(
        "created_at", "pk"
    ):
        if refund.amount > left:
            break
        left -= refund.amount
        confirmed.append(refund.pk)
        if refund.ticket_id is not None:
            per_ticket[refund.ticket_id] = per_ticket.get(refund.ticket_id, 0) + refund.amount
    PaymentRefund.objects.filter(pk__in=confirmed).update(status=PaymentRefund.Status.SUCCEEDED)
    covered = {pk for pk, value in per_ticket.items() if value >= amounts.get(pk, 0)}
    for pk in sorted(amounts, key=str, reverse=True):
        if pk in covered or pk in per_ticket:
            continue
        if amounts[pk] <= left:
            left -= amounts[pk]
            covered.add(pk)
    return covered


def record_dispute(payment_id: uuid.UUID, status: str, reason: str, now: datetime) -> str:
    """A chargeback: no seat moves (the organiser decides); it shows on the payment."""
    with transaction.atomic():
        payment = Payment.objects.select_for_update(of=("self",)).get(pk=payment_id)
        payment.dispute_status = status[:32]
        payment.dispute_reason = reason[:64]
        payment.disputed_at = payment.disputed_at or now
        payment.save(
            update_fields=["dispute_status", "dispute_reason", "disputed_at", "updated_at"]
        )
    return "dispute_recorded"
