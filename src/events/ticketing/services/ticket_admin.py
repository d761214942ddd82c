"""Staff work on tickets: confirm an offline payment, check in, sell at the box office,
and the hourly sweep that cancels unpaid tickets.

Cancelling and refunding live in `cancellation_service`; the sweep frees seats through
the same `release_tickets`, so every freeing path moves the same counters and enqueues
the same waitlist processing.
"""

import logging
import uuid
from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db import OperationalError, transaction
from django.db.models import Exists, OuterRef, Q
from django.utils import timezone

from accounts.models import User
from common.locking import is_lock_timeout
from events.core.services.check_in_window import assert_check_in_open
from events.core.services.locks import lock_event, lock_tiers
from events.models import Event, Ticket, TicketTier
from events.ticketing.errors import (
    AlreadyCheckedIn,
    NotPending,
    PaymentPending,
    TicketCancelled,
    TicketNotFound,
    UnknownUser,
)
from events.ticketing.services.batch_tickets import BatchTicketService, CartItem
from events.ticketing.services.cancellation import release_tickets

logger = logging.getLogger("encore.tickets")


@transaction.atomic
def confirm_payment(event: Event, ticket_id: uuid.UUID, *, now: datetime | None = None) -> Ticket:
    """Staff received the money of an offline ticket: pending → active, `paid_at` set.

    No seat moves (a pending ticket already holds one), so only the ticket is locked.
    """
    ticket = _locked_ticket(event, ticket_id)
    if ticket.status == Ticket.Status.CANCELLED:
        raise TicketCancelled()
    if ticket.status != Ticket.Status.PENDING:
        raise NotPending()
    ticket.status = Ticket.Status.ACTIVE
    ticket.paid_at = now or timezone.now()
    ticket.save(update_fields=["status", "paid_at", "updated_at"])
    return ticket


@transaction.atomic
def check_in(event: Event, ticket_id: uuid.UUID, now: datetime | None = None) -> Ticket:
    """Mark an active ticket `checked_in`, only inside the event's check-in window."""
    now = now or timezone.now()
    ticket = _locked_ticket(event, ticket_id)
    if ticket.status == Ticket.Status.CANCELLED:
        raise TicketCancelled()
    if ticket.status == Ticket.Status.CHECKED_IN:
        raise AlreadyCheckedIn()
    if ticket.status == Ticket.Status.PENDING:
        raise PaymentPending()
    assert_check_in_open(event, now)
    ticket.status = Ticket.Status.CHECKED_IN
    ticket.checked_in_at = now
    ticket.save(update_fields=["status", "checked_in_at", "updated_at"])
    return ticket


def sell_at_box_office(
    event: Event,
    staff_user: User,
    user_id: uuid.UUID,
    tier_id: uuid.UUID,
    holder_name: str | None = None,
) -> Ticket:
    """Staff sell one ticket to a named user at the door, paid on the spot (active).

    Skips the eligibility gates and the tier's sale window (door sales happen after
    online sales close) but never the locked capacity check, the tier's quantity or
    the per-user limits; like any registration it takes the buyer off the waitlist
    (`claim_waitlist_offer_if_any`, inside the shared writer).
    """
    buyer = User.objects.filter(pk=user_id, is_active=True).first()
    if buyer is None:
        raise UnknownUser()
    names = (holder_name,) if holder_name else None
    item = CartItem(tier_id=tier_id, count=1, holder_names=names)
    [ticket] = BatchTicketService(event, buyer).create_batch([item], at_box_office=True)
    logger.info(
        "box office sale",
        extra={
            "event_id": str(event.pk),
            "ticket_id": str(ticket.pk),
            "staff_id": str(staff_user.pk),
        },
    )
    return ticket


# -- the unpaid sweep ----------------------------------------------------------------------


@dataclass(frozen=True)
class UnpaidSweepResult:
    cancelled_tickets: int
    event_ids: tuple[uuid.UUID, ...]
    skipped_busy_event_ids: tuple[uuid.UUID, ...] = ()


def expire_unpaid_tickets(now: datetime | None = None) -> UnpaidSweepResult:
    """Cancel (reason `unpaid`) pending tickets of offline tiers older than the tier's
    `payment_due_hours`, one transaction per event under that event's lock.

    Each affected event gets its seats back and one waitlist processing pass. An event
    whose lock cannot be taken in time is skipped and retried by the next hourly run.
    """
    now = now or timezone.now()
    cancelled = 0
    done: list[uuid.UUID] = []
    busy: list[uuid.UUID] = []
    for event_id, overdue in _overdue_by_event(now).items():
        try:
            count = _expire_for_event(event_id, overdue, now)
        except OperationalError as exc:
            if not is_lock_timeout(exc):
                raise
            logger.warning("unpaid sweep: event busy", extra={"event_id": str(event_id)})
            busy.append(event_id)
            continue
        if count:
            cancelled += count
            done.append(event_id)
    logger.info("unpaid sweep", extra={"cancelled": cancelled, "events": len(done)})
    return UnpaidSweepResult(cancelled, tuple(done), tuple(busy))


def _overdue_by_event(now: datetime) -> dict[uuid.UUID, Q]:
    """Per event, a filter matching its overdue tickets (each tier has its own deadline)."""
    pending = Ticket.objects.filter(tier=OuterRef("pk"), status=Ticket.Status.PENDING)
    tiers = (
        TicketTier.objects.filter(payment_method=TicketTier.PaymentMethod.OFFLINE)
        .filter(Exists(pending))
        .values_list("pk", "event_id", "payment_due_hours")
    )
    by_event: dict[uuid.UUID, Q] = defaultdict(Q)
    for tier_id, event_id, hours in tiers:
        deadline = now - timedelta(hours=hours)
        by_event[event_id] |= Q(tier_id=tier_id, created_at__lte=deadline)
    return dict(by_event)


def _expire_for_event(event_id: uuid.UUID, overdue: Q, now: datetime) -> int:
    with transaction.atomic():
        event = lock_event(event_id)
        candidates = Ticket.objects.filter(event=event, status=Ticket.Status.PENDING).filter(
            overdue
        )
        lock_tiers(event, set(candidates.values_list("tier_id", flat=True)))
        tickets = list(candidates.select_for_update(of=("self",)).order_by("pk"))
        release_tickets(event, tickets, Ticket.CancellationReason.UNPAID, now)
        return len(tickets)


# -- helpers -------------------------------------------------------------------------------


def _locked_ticket(event: Event, ticket_id: uuid.UUID) -> Ticket:
    ticket = (
        Ticket.objects.select_for_update(of=("self",)).filter(pk=ticket_id, event=event).first()
    )
    if ticket is None:
        raise TicketNotFound()
    return ticket
