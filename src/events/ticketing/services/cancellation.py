"""Cancelling tickets: by the holder, by staff (cancel, offline refund), by the unpaid sweep.

Every path frees the ticket's seat inside one transaction that holds the locks in the
global order (Event row → the ticket's tier → the ticket): the ticket turns
`cancelled`, the tier's `quantity_sold` and the event's `attendee_count` go down with
it, and a waitlist processing pass is enqueued for after the commit (docs/spec/seed-tables.md
"Trigger sites"). After the commit each holder hears `ticket_cancelled`.
"""

import uuid
from collections import Counter
from collections.abc import Sequence
from datetime import datetime

from django.db import transaction
from django.db.models import F
from django.utils import timezone

from accounts.models import User
from events.core.services import event_notifications
from events.core.services.locks import adjust_attendee_count, lock_event, lock_tiers
from events.models import Event, Ticket, TicketTier
from events.ticketing.errors import AlreadyCancelled, PaidOnline, TicketCheckedIn, TicketNotFound
from events.waitlist import services as waitlist_service

Reason = Ticket.CancellationReason


def cancel_ticket_by_user(
    user: User, ticket_id: uuid.UUID, *, event_id: uuid.UUID | None = None
) -> Ticket:
    """The holder gives a ticket back. Somebody else's ticket is not found (404);
    a checked-in ticket stays (409): the seat was used."""
    return _cancel(ticket_id, Reason.USER, event_id=event_id, holder=user)


def cancel_ticket_by_staff(event: Event, ticket_id: uuid.UUID) -> Ticket:
    """Staff cancel a ticket of their event (an unpaid pending one, a mistake, ...)."""
    return _cancel(ticket_id, Reason.STAFF, event_id=event.pk)


def refund_ticket_offline(event: Event, ticket_id: uuid.UUID) -> Ticket:
    """Staff refunded the money outside Encore; the ticket is cancelled as `refunded`."""
    return _cancel(ticket_id, Reason.REFUNDED, event_id=event.pk)


@transaction.atomic
def _cancel(
    ticket_id: uuid.UUID,
    reason: str,
    *,
    event_id: uuid.UUID | None,
    holder: User | None = None,
) -> Ticket:
    scope = Ticket.objects.filter(pk=ticket_id)
    if event_id is not None:
        scope = scope.filter(event_id=event_id)
    if holder is not None:
        scope = scope.filter(user=holder)
    # event and tier never change on a ticket, so reading them unlocked is safe.
    ref = scope.values("event_id", "tier_id").first()
    if ref is None:
        raise TicketNotFound()
    event = lock_event(ref["event_id"])
    lock_tiers(event, [ref["tier_id"]])
    ticket = Ticket.objects.select_for_update(of=("self",)).get(pk=ticket_id)
    if ticket.status == Ticket.Status.CANCELLED:
        raise AlreadyCancelled()
    if holder is not None and ticket.status == Ticket.Status.CHECKED_IN:
        raise TicketCheckedIn()
    if holder is not None and ticket.payment_id is not None:
        raise PaidOnline()  # money and seat move together: the holder asks for a refund
    release_tickets(event, [ticket], reason, timezone.now())
    return ticket


def release_tickets(
    event: Event,
    tickets: Sequence[Ticket],
    reason: str,
    now: datetime,
    *,
    notify_holders: bool = True,
) -> None:
    """Cancel `tickets` and free their seats; the caller holds every lock involved.

    `tickets` must be locked, of `event`, and not cancelled. One UPDATE for the tickets,
    one per tier for `quantity_sold`, one for `attendee_count`, one enqueue; the
    holders are told on commit (`ticket_cancelled`, one notification per holder) unless
    `notify_holders` is off (a user being deleted is not mailed about it).
    """
    if not tickets:
        return
    Ticket.objects.filter(pk__in=[t.pk for t in tickets]).update(
        status=Ticket.Status.CANCELLED, cancelled_at=now, cancellation_reason=reason, updated_at=now
    )
    for ticket in tickets:
        ticket.status = Ticket.Status.CANCELLED
        ticket.cancelled_at = now
        ticket.cancellation_reason = reason
    for tier_id, count in sorted(Counter(t.tier_id for t in tickets).items()):
        TicketTier.objects.filter(pk=tier_id).update(quantity_sold=F("quantity_sold") - count)
    adjust_attendee_count(event, -len(tickets))
    waitlist_service.enqueue_waitlist_processing(event.pk)
    if notify_holders:
        event_notifications.notify_tickets_cancelled([ticket.pk for ticket in tickets])
