"""Ticket tiers: the default tier of a ticketed event, and staff create/update/delete.

Every write locks the Event row first (docs/spec/domain.md lock order): checkouts count tier
quantities under that lock, so a tier never changes under a running checkout, and the
"not below what was sold" rule reads a `quantity_sold` nobody is moving.
"""

import uuid
from decimal import Decimal
from typing import Any

from django.db import transaction

from events.core.services.locks import lock_event, lock_tiers
from events.models import Event, Ticket, TicketTier
from events.ticketing.errors import TierHasTickets, UnknownTier
from events.waitlist import services as waitlist_service

DEFAULT_TIER_NAME = "General admission"

#: Fields staff may set on a tier; `quantity_sold` is the system's.
EDITABLE_FIELDS = (
    "name",
    "description",
    "price",
    "currency",
    "payment_method",
    "total_quantity",
    "sales_start_at",
    "sales_end_at",
    "max_tickets_per_user",
    "payment_due_hours",
    "fee",
    "tax_rate",
    "refund_deadline",
)


def ensure_default_tier(event: Event) -> TicketTier | None:
    """Give a ticketed event without tiers its free "General admission" tier (docs/spec/domain.md).

    Idempotent: returns None for RSVP events and for events that already have a tier.
    Call it wherever a ticketed event comes into being (create, switch to tickets).
    """
    if not event.requires_ticket or TicketTier.objects.filter(event=event).exists():
        return None
    tier = TicketTier(
        event=event,
        name=DEFAULT_TIER_NAME,
        price=Decimal("0"),
        payment_method=TicketTier.PaymentMethod.FREE,
    )
    tier.full_clean()
    tier.save(force_insert=True)
    return tier


@transaction.atomic
def create_tier(event: Event, data: dict[str, Any]) -> TicketTier:
    """A new tier; model rules (price ≥ 0, unique name, window order) answer 400.

    More tickets to sell may let the waitlist move (offers are bounded by the tiers).
    """
    event = lock_event(event.pk)
    tier = TicketTier(event=event, **_editable(data))
    tier.full_clean()
    tier.save(force_insert=True)
    waitlist_service.enqueue_waitlist_processing(event.pk)
    return tier


@transaction.atomic
def update_tier(event: Event, tier_id: uuid.UUID, changes: dict[str, Any]) -> TicketTier:
    """Change the given fields; `total_quantity` never goes below `quantity_sold` (400).

    Selling more than before (a larger or unlimited quantity) may let the waitlist move,
    so it enqueues a processing pass like any other capacity increase.
    """
    event = lock_event(event.pk)
    tier = _locked_tier(event, tier_id)
    remaining_before = tier.remaining
    changes = _editable(changes)
    for field, value in changes.items():
        setattr(tier, field, value)
    tier.full_clean()
    tier.save(update_fields=[*changes, "updated_at"])
    if _more_to_sell(remaining_before, tier.remaining):
        waitlist_service.enqueue_waitlist_processing(event.pk)
    return tier


@transaction.atomic
def delete_tier(event: Event, tier_id: uuid.UUID) -> None:
    """Delete a tier nobody ever held a ticket of (cancelled tickets still refer to it)."""
    event = lock_event(event.pk)
    tier = _locked_tier(event, tier_id)
    if Ticket.objects.filter(tier=tier).exists():
        raise TierHasTickets()
    tier.delete()


def _locked_tier(event: Event, tier_id: uuid.UUID) -> TicketTier:
    tier = lock_tiers(event, [tier_id]).get(tier_id)
    if tier is None:
        raise UnknownTier()
    return tier


def _editable(data: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in data.items() if key in EDITABLE_FIELDS}


def _more_to_sell(before: int | None, after: int | None) -> bool:
    if before is None:
        return False
    return after is None or after > before
