"""Everything the gates need about one (user, event) pair, loaded up front.

`load_context` answers every per-user question with one annotated query on the Event
row (staff? blacklisted? invited? member? RSVP? tickets? queue position?) plus one for
the tiers of ticketed events, so the gates themselves never touch the database.
"""

import uuid
from dataclasses import dataclass, field
from datetime import datetime

from django.db.models import Count, Exists, IntegerField, OuterRef, Q, Subquery, Value
from django.db.models.functions import Coalesce

from events.models import (
    Blacklist,
    Event,
    EventRSVP,
    EventWaitList,
    Invitation,
    OrganizationMember,
    OrganizationStaff,
    Ticket,
    TicketTier,
)
from events.selectors.access import is_authenticated
from events.service.capacity import SeatState


@dataclass(frozen=True)
class OfferState:
    """The user's view of the advanced waitlist's reservations (seed 000).

    Filled by the offer prefetch of the advanced waitlist; until it exists nobody holds
    a seat, so every field keeps its empty default.
    """

    held_by_others: int = 0
    next_batch_at: datetime | None = None
    own_offer_expires_at: datetime | None = None


@dataclass(frozen=True)
class EligibilityContext:
    event: Event
    user_id: uuid.UUID | None
    now: datetime
    #: Read from the event (and its venue) while loading, so the gates never lazy-load the venue.
    effective_capacity: int = 0
    is_privileged: bool = False
    is_blacklisted: bool = False
    has_invitation: bool = False
    invitation_overrides_capacity: bool = False
    membership_status: str | None = None
    rsvp_status: str | None = None
    active_ticket_count: int = 0
    waitlist_position: int | None = None
    offers: OfferState = field(default_factory=OfferState)
    tiers: tuple[TicketTier, ...] = ()

    @property
    def on_waitlist(self) -> bool:
        return self.waitlist_position is not None

    @property
    def holds_seat(self) -> bool:
        """Already attending: a YES RSVP (tickets may always be added, so they don't count)."""
        return self.rsvp_status == EventRSVP.Status.YES

    def seat_state(self) -> SeatState:
        return SeatState(
            effective_capacity=self.effective_capacity,
            attendee_count=self.event.attendee_count,
            held=self.offers.held_by_others,
        )


def _user_annotations(user_id: uuid.UUID, email: str) -> dict[str, object]:
    event_ref = OuterRef("pk")
    org_ref = OuterRef("organization_id")
    my_entry = EventWaitList.objects.filter(event=event_ref, user_id=user_id)
    # Inside `ahead`, OuterRef points at the queue row being counted, so the user's own
    # join time is looked up through that row's event (an OuterRef("pk") there would
    # compare an EventWaitList id with event ids and always count nobody ahead).
    my_join_time = EventWaitList.objects.filter(event=OuterRef("event"), user_id=user_id).values(
        "created_at"
    )[:1]
    ahead = (
        EventWaitList.objects.filter(event=event_ref, created_at__lt=Subquery(my_join_time))
        .order_by()
        .values("event")
        .annotate(n=Count("pk"))
        .values("n")
    )
    return {
        "ctx_is_staff": Exists(
            OrganizationStaff.objects.filter(organization=org_ref, user_id=user_id)
        ),
        "ctx_blacklisted": Exists(
            Blacklist.objects.filter(organization=org_ref).filter(
                Q(user_id=user_id) | Q(email__iexact=email)
            )
        ),
        "ctx_invitation": Subquery(
            Invitation.objects.filter(event=event_ref, user_id=user_id).values(
                "overrides_max_attendees"
            )[:1]
        ),
        "ctx_membership": Subquery(
            OrganizationMember.objects.filter(organization=org_ref, user_id=user_id).values(
                "status"
            )[:1]
        ),
        "ctx_rsvp": Subquery(
            EventRSVP.objects.filter(event=event_ref, user_id=user_id).values("status")[:1]
        ),
        "ctx_tickets": Coalesce(
            Subquery(
                Ticket.objects.filter(event=event_ref, user_id=user_id)
                .exclude(status=Ticket.Status.CANCELLED)
                .order_by()
                .values("event")
                .annotate(n=Count("pk"))
                .values("n"),
                output_field=IntegerField(),
            ),
            Value(0),
        ),
        "ctx_on_waitlist": Exists(my_entry),
        "ctx_ahead": Coalesce(Subquery(ahead, output_field=IntegerField()), Value(0)),
    }


def load_context(user: object, event: Event, now: datetime) -> EligibilityContext:
    """One query for the user's relation to the event, one for tiers of ticketed events."""
    tiers = (
        tuple(TicketTier.objects.filter(event=event).order_by("pk"))
        if event.requires_ticket
        else ()
    )
    capacity = event.effective_capacity  # loads the venue here if the caller did not
    if not is_authenticated(user):
        return EligibilityContext(
            event=event, user_id=None, now=now, effective_capacity=capacity, tiers=tiers
        )
    user_id: uuid.UUID = user.pk  # type: ignore[attr-defined]
    row = (
        Event.objects.filter(pk=event.pk)
        .annotate(**_user_annotations(user_id, user.email))  # type: ignore[attr-defined]
        .values(
            *[
                f"ctx_{k}"
                for k in (
                    "is_staff",
                    "blacklisted",
                    "invitation",
                    "membership",
                    "rsvp",
                    "tickets",
                    "on_waitlist",
                    "ahead",
                )
            ]
        )
        .get()
    )
    privileged = event.organization.owner_id == user_id or bool(row["ctx_is_staff"])
    return EligibilityContext(
        event=event,
        user_id=user_id,
        now=now,
        effective_capacity=capacity,
        is_privileged=privileged,
        is_blacklisted=bool(row["ctx_blacklisted"]),
        has_invitation=row["ctx_invitation"] is not None,
        invitation_overrides_capacity=bool(row["ctx_invitation"]),
        membership_status=row["ctx_membership"],
        rsvp_status=row["ctx_rsvp"],
        active_ticket_count=int(row["ctx_tickets"]),
        waitlist_position=int(row["ctx_ahead"]) + 1 if row["ctx_on_waitlist"] else None,
        tiers=tiers,
    )
