"""`GET /events/{id}/my-status`: the caller's whole relation to one event, in one answer.

A fixed number of queries whatever the size of the event: the eligibility prefetch (one
annotated query, plus the tiers of ticketed events) already knows the RSVP answer and
the queue position; one query lists the caller's tickets and one reads the queue entry.
"""

from dataclasses import dataclass
from datetime import datetime

from accounts.models import User
from events.models import Event, EventWaitList, Ticket
from events.service.event_manager.service import EligibilityService
from events.service.event_manager.types import EventUserEligibility


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
class MyEventStatus:
    eligibility: EventUserEligibility
    rsvp: RSVPState | None
    tickets: list[TicketState]
    waitlist: QueueState | None
    offer: None = None  # the caller's live offer, once the advanced waitlist issues them


def my_event_status(user: User, event: Event) -> MyEventStatus:
    service = EligibilityService(user, event)
    eligibility = service.check_eligibility()
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
        eligibility=eligibility,
        rsvp=RSVPState(ctx.rsvp_status) if ctx.rsvp_status else None,
        tickets=tickets,
        waitlist=QueueState(_position(service), joined_at) if joined_at is not None else None,
    )


def _position(service: EligibilityService) -> int | None:
    """The queue rank; null while the caller holds a live offer (seed-tables "Position")."""
    ctx = service.context
    return None if ctx.offers.own_offer_expires_at is not None else ctx.waitlist_position
