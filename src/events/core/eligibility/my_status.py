"""`GET /events/{id}/my-status`: the caller's whole relation to one event, in one answer.

A fixed number of queries whatever the size of the event: the eligibility prefetch (one
annotated query, plus the tiers of ticketed events) already knows the RSVP answer, the
queue position, the seats held and the caller's own live offer; one query lists the
caller's tickets and one reads the queue entry, annotated with the figures of the
honest ETA (`waitlist_eta`), so the ETA adds no query.
"""

import uuid
from dataclasses import dataclass
from datetime import datetime

from accounts.models import User
from events.core.eligibility.context import EligibilityContext
from events.core.eligibility.pipeline import EligibilityService
from events.core.eligibility.types import EventUserEligibility
from events.models import Event, Ticket, WaitlistOffer
from events.waitlist.selectors import eta as waitlist_eta


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
    #: Paid through Stripe: given back by a refund, not a plain cancel.
    paid_online: bool = False


@dataclass(frozen=True)
class QueueState:
    position: int | None
    joined_at: datetime
    party_size: int = 1
    tier_id: uuid.UUID | None = None
    #: The entry's lottery ticket as every answer shows it: 16 hex digits.
    token: str = ""
    #: None while the caller holds a live offer (as `position`): the offer is there.
    eta: waitlist_eta.Eta | None = None


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
            paid_online=t.payment_id is not None,
        )
        for t in Ticket.objects.filter(event=event, user=user)
        .select_related("tier")
        .order_by("created_at", "pk")
    ]
    offer = _own_offer(ctx)
    return MyEventStatus(
        eligibility=service.check_eligibility(),
        rsvp=RSVPState(ctx.rsvp_status) if ctx.rsvp_status else None,
        tickets=tickets,
        waitlist=_queue_state(ctx, event, user, holds_offer=offer is not None),
        offer=offer,
    )


def _queue_state(
    ctx: EligibilityContext, event: Event, user: User, *, holds_offer: bool
) -> QueueState | None:
    """The caller's queue entry and its ETA figures, in one query."""
    row = waitlist_eta.entry_with_figures(event, user.pk, ctx.now)
    if row is None:
        return None
    eta = None
    if not holds_offer:
        figures = waitlist_eta.figures_from_row(
            row, event, ctx.tiers, ctx.now, position=ctx.waitlist_position
        )
        eta = waitlist_eta.estimate(figures, waitlist_eta.flow_of(event), ctx.now)
    return QueueState(
        # The context's position is already null while the caller holds a live offer.
        position=ctx.waitlist_position,
        joined_at=row["created_at"],
        party_size=row["party_size"],
        tier_id=row["tier_id"],
        token=format(row["token"], "016x"),
        eta=eta,
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
