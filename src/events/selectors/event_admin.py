"""Reads behind `/event-admin/{event_id}`: RSVPs, invitations and the waitlist queue.

Every sub-object lookup is scoped to the event in the path, so an id of another event
is simply "not found" (api.md: 404). Lists carry the `select_related` their schema
needs, and queue positions come from one correlated subquery, not one query per row.
"""

import uuid

from django.db.models import Count, IntegerField, OuterRef, Q, QuerySet, Subquery, Value
from django.db.models.functions import Coalesce

from accounts.models import User
from common.errors import InvalidInput, NotFound
from events.models import Event, EventRSVP, EventWaitList, Invitation
from events.selectors.access import AnyUser
from events.selectors.event import with_public_fields


def user_from_input(user_id: uuid.UUID, field: str = "user_id") -> User:
    """A user named in a request body; an unknown id is a field error (400), not a 404."""
    user = User.objects.filter(pk=user_id, is_active=True).first()
    if user is None:
        raise InvalidInput({field: ["No user with this id."]})
    return user


# -- RSVPs -----------------------------------------------------------------------------
def list_rsvps(event: Event, status: str | None = None) -> QuerySet[EventRSVP]:
    rsvps = EventRSVP.objects.filter(event=event).select_related("user")
    if status:
        rsvps = rsvps.filter(status=status)
    return rsvps.order_by("created_at", "pk")


def get_rsvp(event: Event, rsvp_id: uuid.UUID) -> EventRSVP:
    rsvp = EventRSVP.objects.filter(pk=rsvp_id, event=event).select_related("user").first()
    if rsvp is None:
        raise NotFound("RSVP not found.")
    return rsvp


# -- invitations -----------------------------------------------------------------------
def list_invitations(event: Event) -> QuerySet[Invitation]:
    return Invitation.objects.filter(event=event).select_related("user").order_by("created_at")


def get_invitation(event: Event, invitation_id: uuid.UUID) -> Invitation:
    invitation = Invitation.objects.filter(pk=invitation_id, event=event).first()
    if invitation is None:
        raise NotFound("Invitation not found.")
    return invitation


# -- waitlist queue --------------------------------------------------------------------
def waitlist_queue(event: Event, search: str | None = None) -> QuerySet[EventWaitList]:
    """The queue in FIFO order with each entry's 1-based position in the whole queue.

    The position is computed over the full queue, before `search` narrows the rows, so
    a filtered list still shows everybody's real place. Ties on `created_at` are broken
    by id, the same order the list uses.
    """
    ahead = (
        EventWaitList.objects.filter(event_id=OuterRef("event_id"))
        .filter(
            Q(created_at__lt=OuterRef("created_at"))
            | Q(created_at=OuterRef("created_at"), pk__lt=OuterRef("pk"))
        )
        .order_by()
        .values("event_id")
        .annotate(n=Count("pk"))
        .values("n")
    )
    queue = (
        EventWaitList.objects.filter(event=event)
        .select_related("user")
        .annotate(position=Coalesce(Subquery(ahead, output_field=IntegerField()), Value(0)) + 1)
    )
    for term in (search or "").split():
        queue = queue.filter(
            Q(user__email__icontains=term)
            | Q(user__first_name__icontains=term)
            | Q(user__last_name__icontains=term)
            | Q(user__preferred_name__icontains=term)
        )
    return queue.order_by("created_at", "pk")


def get_waitlist_entry(event: Event, entry_id: uuid.UUID) -> EventWaitList:
    entry = EventWaitList.objects.filter(pk=entry_id, event=event).first()
    if entry is None:
        raise NotFound("Waitlist entry not found.")
    return entry


# -- the event itself ------------------------------------------------------------------
def event_detail(user: AnyUser, event_id: uuid.UUID) -> Event:
    """The event with everything `EventDetail` reads (the caller is staff: nothing hidden)."""
    return with_public_fields(Event.objects.filter(pk=event_id), user).get()
