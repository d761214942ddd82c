"""`GET /events/{id}/my-status`: the caller's whole relation to one event, in one answer.

A fixed number of queries whatever the size of the event: the eligibility prefetch (one
annotated query, plus the tiers of ticketed events) already knows the RSVP answer, the
queue position, the seats held and the caller's own live offer; one query lists the
caller's tickets and one reads the queue entry.
"""

import uuid
from dataclasses import dataclass
from datetime import datetime

from accounts.models import User
from events.eligibility.context import EligibilityContext
from events.eligibility.pipeline import EligibilityService
from events.eligibility.types import EventUserEligibility
from events.models import Event, EventWaitList, Ticket, WaitlistOffer


@dataclass(frozen=True)
class RSVPState:
    status: str


@dataclass(frozen=True)
class TicketState:
    id: object
    tier_id: object
    tier_name: str
    status: str
    holder_name: str
    created_at: datetime


@dataclass(frozen=True)
class QueueState:
    position: int | None
    joined_at: datetime


@dataclass(frozen=True)
class OfferState:
    """The caller's live offer: always PENDING (a live offer is a pending, unexpired one)."""

    id: uuid.UUID
    status: str
    expires_at: datetime
    is_cutoff_batch: bool
    seats: int = 1
    tier_id: uuid.UUID | None = None
    declined_at: datetime | None = None  # a live offer was never declined


@dataclass(frozen=True)
class MyEventStatus:
    eligibility: EventUserEligibility
    rsvp: RSVPState | None
    tickets: list[TicketState]
    waitlist: QueueState | None
    offer: OfferState | None


def my_event_status(user: User, event: Event) -> MyEventStatus:
    service = EligibilityService(user, event)
    ctx = service.context
    tickets = [
        TicketState(
            id=t.pk,
            tier_id=t.tier_id,
            tier_name=t.tier.name,
            status=t.status,
            holder_name=t.holder_name,
            created_at=t.created_at,
        )
        for t in Ticket.objects.filter(event=event, user=user)
        .select_related("tier")
        .order_by("created_at", "pk")
    ]
    joined_at = (
        EventWaitList.objects.filter(event=event, user=user)
        .values_list("created_at", flat=True)
        .first()
    )
    return MyEventStatus(
        eligibility=service.check_eligibility(),
        rsvp=RSVPState(ctx.rsvp_status) if ctx.rsvp_status else None,
        tickets=tickets,
        # The context's position is already null while the caller holds a live offer.
        waitlist=QueueState(ctx.waitlist_position, joined_at) if joined_at is not None else None,
        offer=_own_offer(ctx),
    )


def _own_offer(ctx: EligibilityContext) -> OfferState | None:
    """Built from the prefetched context: no query of its own."""
    offers = ctx.offers
    if offers.own_offer_id is None or offers.own_offer_expires_at is None:
        return None
    return OfferState(
        id=offers.own_offer_id,
        status=WaitlistOffer.WaitlistOfferStatus.PENDING.value,
        expires_at=offers.own_offer_expires_at,
        is_cutoff_batch=offers.own_offer_is_cutoff,
        seats=offers.own_offer_seats,
        tier_id=offers.own_offer_tier_id,
    )
