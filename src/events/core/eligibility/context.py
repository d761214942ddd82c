"""Everything the gates need about one (user, event) pair, loaded up front.

`load_context` answers every per-user question with one annotated query on the Event
row (owner or staff? blacklisted? invited? member? RSVP? tickets? queue position? seats
held by others' offers, the next expiry, the user's own offer?) plus one for the tiers
of ticketed events, so the gates themselves never touch the database. That query nests
a dozen subqueries and every eligibility answer needs it, so it is compiled once per
process (`CompiledQuery`, ADR 0006) and run with the event, the user and the moment.
"""

import uuid
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.db.models import (
    CharField,
    Count,
    Exists,
    Expression,
    F,
    IntegerField,
    OuterRef,
    Q,
    QuerySet,
    Subquery,
    UUIDField,
    Value,
)
from django.db.models.functions import Coalesce, Upper
from django.db.models.lookups import Exact

from common.compiled_query import CompiledQuery, Param
from events.core.eligibility.capacity import SeatState
from events.core.selectors.access import is_authenticated
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
from events.waitlist.selectors import queue as waitlist_selectors


@dataclass(frozen=True)
class OfferState:
    """The user's view of the advanced waitlist's reservations (docs/spec/waitlist-design.md)."""

    #: Live non-cutoff offers of other users: the seats reserved against this user.
    held_by_others: int = 0
    #: Earliest expiry among those reserved seats.
    next_batch_at: datetime | None = None
    #: The user's own live offer, cutoff offers included (for the countdown).
    own_offer_id: uuid.UUID | None = None
    own_offer_expires_at: datetime | None = None
    own_offer_is_cutoff: bool = False
    #: The seats it holds (the party) and the tier it is for.
    own_offer_seats: int = 1
    own_offer_tier_id: uuid.UUID | None = None


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
    on_waitlist: bool = False
    waitlist_position: int | None = None
    offers: OfferState = field(default_factory=OfferState)
    tiers: tuple[TicketTier, ...] = ()

    @property
    def standing(self) -> waitlist_selectors.QueueStanding:
        return waitlist_selectors.QueueStanding(self.on_waitlist, self.waitlist_position)

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


def _offer_annotations(now: Expression, user_id: Expression | None) -> dict[str, Any]:
    """Held seats (others'), the next expiry, and the user's own live offer, as annotations."""
    held = waitlist_selectors.held_offers(OuterRef("pk"), now)  # type: ignore[arg-type]
    if user_id is not None:
        held = held.exclude(user_id=user_id)
    annotations: dict[str, Any] = {
        "ctx_held": waitlist_selectors.seat_sum(held),
        "ctx_next_batch_at": Subquery(held.order_by("expires_at").values("expires_at")[:1]),
    }
    if user_id is not None:
        own = waitlist_selectors.live_offers(now).filter(event_id=OuterRef("pk"), user_id=user_id)
        annotations["ctx_own_offer"] = Subquery(own.values("pk")[:1])
        annotations["ctx_own_offer_expires"] = Subquery(own.values("expires_at")[:1])
        annotations["ctx_own_offer_cutoff"] = Subquery(own.values("is_cutoff_batch")[:1])
        annotations["ctx_own_offer_seats"] = Subquery(own.values("seats")[:1])
        annotations["ctx_own_offer_tier"] = Subquery(own.values("tier_id")[:1])
    return annotations


def _user_annotations(user_id: Expression, email: Expression, now: Expression) -> dict[str, Any]:
    event_ref = OuterRef("pk")
    org_ref = OuterRef("organization_id")
    my_entry = EventWaitList.objects.filter(event=event_ref, user_id=user_id)
    return {
        "ctx_owner": F("organization__owner_id"),
        "ctx_is_staff": Exists(
            OrganizationStaff.objects.filter(organization=org_ref, user_id=user_id)
        ),
        "ctx_blacklisted": Exists(
            Blacklist.objects.filter(organization=org_ref).filter(
                # email__iexact, spelled so a Param can stand for the address
                Q(user_id=user_id) | Q(Exact(Upper("email"), Upper(email)))
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
        "ctx_position": Subquery(
            my_entry.annotate(position=waitlist_selectors.position_expression(now)).values(
                "position"
            )[:1]
        ),
        **_offer_annotations(now, user_id),
    }


def _offer_state(row: dict[str, Any]) -> OfferState:
    return OfferState(
        held_by_others=int(row["ctx_held"]),
        next_batch_at=row["ctx_next_batch_at"],
        own_offer_id=row.get("ctx_own_offer"),
        own_offer_expires_at=row.get("ctx_own_offer_expires"),
        own_offer_is_cutoff=bool(row.get("ctx_own_offer_cutoff")),
        own_offer_seats=int(row.get("ctx_own_offer_seats") or 1),
        own_offer_tier_id=row.get("ctx_own_offer_tier"),
    )


def _visitor_query() -> QuerySet[Event, Any]:
    return Event.objects.filter(pk=waitlist_selectors.event_id_param()).values(
        **_offer_annotations(waitlist_selectors.now_param(), None)
    )


def _user_query() -> QuerySet[Event, Any]:
    annotations = _user_annotations(
        Param("user_id", UUIDField()), Param("email", CharField()), waitlist_selectors.now_param()
    )
    return Event.objects.filter(pk=waitlist_selectors.event_id_param()).values(**annotations)


_VISITOR_CONTEXT = CompiledQuery(_visitor_query, prepared_as="visitor_context")
_USER_CONTEXT = CompiledQuery(_user_query, prepared_as="user_context")


def _event_row(query: CompiledQuery, event: Event, **values: Any) -> dict[str, Any]:
    rows = query.rows(event_id=event.pk, **values)
    if not rows:
        raise Event.DoesNotExist(f"event {event.pk} no longer exists")
    return rows[0]


def load_context(user: object, event: Event, now: datetime) -> EligibilityContext:
    """One query for the user's relation to the event, one for tiers of ticketed events."""
    tiers = (
        tuple(TicketTier.objects.filter(event=event).order_by("pk"))
        if event.requires_ticket
        else ()
    )
    capacity = event.effective_capacity  # loads the venue here if the caller did not
    if not is_authenticated(user):
        offers = _offer_state(_event_row(_VISITOR_CONTEXT, event, now=now)) if capacity else None
        return EligibilityContext(
            event=event,
            user_id=None,
            now=now,
            effective_capacity=capacity,
            offers=offers or OfferState(),
            tiers=tiers,
        )
    user_id: uuid.UUID = user.pk  # type: ignore[attr-defined]
    row = _event_row(_USER_CONTEXT, event, user_id=user_id, email=user.email, now=now)  # type: ignore[attr-defined]
    return EligibilityContext(
        event=event,
        user_id=user_id,
        now=now,
        effective_capacity=capacity,
        is_privileged=row["ctx_owner"] == user_id or bool(row["ctx_is_staff"]),
        is_blacklisted=bool(row["ctx_blacklisted"]),
        has_invitation=row["ctx_invitation"] is not None,
        invitation_overrides_capacity=bool(row["ctx_invitation"]),
        membership_status=row["ctx_membership"],
        rsvp_status=row["ctx_rsvp"],
        active_ticket_count=int(row["ctx_tickets"]),
        on_waitlist=bool(row["ctx_on_waitlist"]),
        waitlist_position=row["ctx_position"],
        offers=_offer_state(row),
        tiers=tiers,
    )
