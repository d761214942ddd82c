"""Reads behind /events/{event_id}/waitlist/draws: the lottery's records, for those it concerns.

Who may read them (docs/spec/api.md "Second round: precise points"): whoever has a queue entry
for the event now, whoever holds or held an offer from one of its lottery batches (a
draw stores tickets, never users, and a deleted entry's ticket leads back to nobody:
the offer's `batch_id` is what ties a past member to a draw), and staff with
`invite_to_event`. Anyone else, anonymous callers included, gets the same 404 as for an
unknown event, so the route does not reveal which events run a lottery.
"""

import uuid

from django.db.models import Exists, OuterRef, QuerySet

from common.errors import NotFound
from events.core.selectors.access import AnyUser, has_org_permission, is_authenticated
from events.models import Event, EventWaitList, StaffPermission, WaitlistDraw, WaitlistOffer


def _may_read_draws(user: AnyUser, event: Event) -> bool:
    if not is_authenticated(user):
        return False
    if EventWaitList.objects.filter(event=event, user=user).exists():
        return True
    drawn = WaitlistDraw.objects.filter(event=event, batch_id=OuterRef("batch_id"))
    if WaitlistOffer.objects.filter(event=event, user=user).filter(Exists(drawn)).exists():
        return True
    return has_org_permission(user, event.organization, StaffPermission.INVITE_TO_EVENT)


def _readable_event(user: AnyUser, event_id: uuid.UUID) -> Event:
    event = Event.objects.select_related("organization").filter(pk=event_id).first()
    if event is None or not _may_read_draws(user, event):
        raise NotFound("Event not found.")
    return event


def event_draws(user: AnyUser, event_id: uuid.UUID) -> QuerySet[WaitlistDraw]:
    """Every lottery batch of the event, newest first (a plain list: one row per batch)."""
    event = _readable_event(user, event_id)
    return WaitlistDraw.objects.filter(event=event).order_by("-drawn_at", "-batch_id")


def event_draw(user: AnyUser, event_id: uuid.UUID, batch_id: uuid.UUID) -> WaitlistDraw:
    """One lottery batch of the event by its batch id; another event's batch is a 404."""
    event = _readable_event(user, event_id)
    draw = WaitlistDraw.objects.filter(event=event, batch_id=batch_id).first()
    if draw is None:
        raise NotFound("Draw not found.")
    return draw
