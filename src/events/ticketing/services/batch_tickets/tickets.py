"""Writing tickets, and what a registration does to the user's place in the queue.

Everything here runs inside the caller's transaction, after the Event row and the tier
rows are locked (docs/spec/domain.md lock order), so counters move together with the rows they
count.
"""

import uuid
from collections.abc import Sequence
from datetime import datetime

from django.db.models import Count, F

from accounts.models import User
from events.core.selectors.locked_check import LockedCheck
from events.models import Event, Ticket, TicketTier
from events.waitlist import services as waitlist_service

#: Payment methods whose tickets hold a seat at once and need no confirmation.
IMMEDIATE_METHODS = frozenset({TicketTier.PaymentMethod.FREE, TicketTier.PaymentMethod.AT_THE_DOOR})


def initial_status(tier: TicketTier) -> str:
    """`free` and `at_the_door` tickets are active at once; `offline` waits for payment."""
    if tier.payment_method in IMMEDIATE_METHODS:
        return Ticket.Status.ACTIVE
    return Ticket.Status.PENDING


def held_ticket_counts(event: Event, user_id: uuid.UUID) -> dict[uuid.UUID, int]:
    """The user's non-cancelled tickets of this event, per tier (one grouped query)."""
    rows = (
        Ticket.objects.filter(event=event, user_id=user_id)
        .exclude(status=Ticket.Status.CANCELLED)
        .order_by()
        .values("tier_id")
        .annotate(n=Count("pk"))
        .values_list("tier_id", "n")
    )
    return dict(rows)


def write_tickets(
    event: Event,
    user: User,
    tier: TicketTier,
    holder_names: Sequence[str],
    *,
    status: str,
    paid_at: datetime | None = None,
) -> list[Ticket]:
    """Create one ticket per holder name and bump the tier's `quantity_sold` with them.

    The caller holds the tier's row lock and moves `attendee_count` for the whole cart.
    """
    tickets = Ticket.objects.bulk_create(
        [
            Ticket(
                event=event,
                tier=tier,
                user=user,
                status=status,
                holder_name=name,
                paid_at=paid_at,
            )
            for name in holder_names
        ]
    )
    TicketTier.objects.filter(pk=tier.pk).update(quantity_sold=F("quantity_sold") + len(tickets))
    tier.quantity_sold += len(tickets)
    return tickets


def claim_waitlist_offer_if_any(event: Event, user: User, check: LockedCheck | None = None) -> bool:
    """Claim the buyer's live waitlist offer, once per cart, inside the locked transaction.

    Fires on PENDING tickets too (offline payment): they already count toward capacity,
    so an unclaimed offer would make the user hold two seats (docs/spec/waitlist-design.md). Also takes the
    user off the queue and nudges the processor when an offer was claimed.
    """
    return waitlist_service.claim_offer_for_registration(event, user.pk, check=check)
