"""Reads behind `/event-admin/{event_id}`: RSVPs, invitations and the waitlist queue.

Every sub-object lookup is scoped to the event in the path, so an id of another event
is simply "not found" (docs/spec/api.md: 404). Lists carry the `select_related` their schema
needs; queue positions come from one correlated subquery and the members' current
offers from one prefetch per page, not one query per row.
"""

import uuid

from django.db.models import (
    Case,
    F,
    IntegerField,
    OrderBy,
    OuterRef,
    Prefetch,
    Q,
    QuerySet,
    Subquery,
    Value,
    When,
)
from django.utils import timezone

from common.errors import first_or_not_found
from events.core.selectors.access import AnyUser
from events.core.selectors.event import with_public_fields
from events.models import Event, EventRSVP, EventWaitList, Invitation, WaitlistOffer
from events.waitlist.selectors import queue as waitlist_selectors


# -- RSVPs -----------------------------------------------------------------------------
def list_rsvps(event: Event, status: str | None = None) -> QuerySet[EventRSVP]:
    rsvps = EventRSVP.objects.filter(event=event).select_related("user")
    if status:
        rsvps = rsvps.filter(status=status)
    return rsvps.order_by("created_at", "pk")


def get_rsvp(event: Event, rsvp_id: uuid.UUID) -> EventRSVP:
    return first_or_not_found(
        EventRSVP.objects.filter(pk=rsvp_id, event=event).select_related("user"), "RSVP not found."
    )


# -- invitations -----------------------------------------------------------------------
def list_invitations(event: Event) -> QuerySet[Invitation]:
    return Invitation.objects.filter(event=event).select_related("user").order_by("created_at")


def get_invitation(event: Event, invitation_id: uuid.UUID) -> Invitation:
    return first_or_not_found(
        Invitation.objects.filter(pk=invitation_id, event=event), "Invitation not found."
    )


# -- waitlist queue --------------------------------------------------------------------
def waitlist_queue(event: Event, search: str | None = None) -> QuerySet[EventWaitList]:
    """The queue in selection order, each entry with `position` and its `current_offer`.

    Order and position are `selectors.waitlist`'s (rotation: members who let an offer
    lapse follow the others); the position is null while the member holds a live offer.
    It is computed over the full queue, before `search` narrows the rows, so a filtered
    list still shows everybody's real place. The members' current offers come in one
    prefetch for the page (`current_offer`), so the cost does not grow with the queue.
    """
    queue = (
        EventWaitList.objects.filter(event=event)
        .select_related("user")
        .prefetch_related(_current_offers(event))
        .annotate(position=waitlist_selectors.position_expression(timezone.now()))
    )
    for term in (search or "").split():
        queue = queue.filter(
            Q(user__email__icontains=term)
            | Q(user__first_name__icontains=term)
            | Q(user__last_name__icontains=term)
            | Q(user__preferred_name__icontains=term)
        )
    return queue.order_by(*waitlist_selectors.selection_order())


def _current_offers(event: Event) -> Prefetch:
    """Each member's current offer for this event, any status: at most one row per member.

    "Current" is the PENDING offer when there is one (at most one per member, by the
    partial unique constraint), else the one that changed last; a reactivated offer keeps
    its old `created_at`, so `updated_at` tells which offer is the member's latest.
    """
    ranked = WaitlistOffer.objects.filter(
        event_id=OuterRef("event_id"), user_id=OuterRef("user_id")
    ).order_by(*_latest_first())
    offers = WaitlistOffer.objects.filter(event=event).filter(pk=Subquery(ranked.values("pk")[:1]))
    return Prefetch("user__waitlist_offers", queryset=offers, to_attr="current_offers")


def _latest_first() -> list[OrderBy]:
    pending_first = Case(
        When(status=WaitlistOffer.WaitlistOfferStatus.PENDING, then=Value(0)),
        default=Value(1),
        output_field=IntegerField(),
    )
    return [pending_first.asc(), F("updated_at").desc(), F("pk").desc()]


def current_offer(entry: EventWaitList) -> WaitlistOffer | None:
    """The member's current offer, from `waitlist_queue`'s prefetch."""
    offers: list[WaitlistOffer] = getattr(entry.user, "current_offers", [])
    return offers[0] if offers else None


def get_waitlist_entry(event: Event, entry_id: uuid.UUID) -> EventWaitList:
    return first_or_not_found(
        EventWaitList.objects.filter(pk=entry_id, event=event), "Waitlist entry not found."
    )


# -- the event itself ------------------------------------------------------------------
def event_detail(user: AnyUser, event_id: uuid.UUID) -> Event:
    """The event with everything `EventDetail` reads (the caller is staff: nothing hidden)."""
    return with_public_fields(Event.objects.filter(pk=event_id), user).get()
