"""The caller's own tickets, RSVPs and waitlist entries (`/me/tickets`, `/me/rsvps`, `/me/waitlist`).

Order: **upcoming first**. Rows whose event has not ended yet come first, soonest start
first (an event in progress counts as upcoming: its ticket is still needed at the door);
rows of events that have ended follow, most recent first, as the caller's history.
Nothing is filtered out: cancelled tickets and events stay listed, their status shows
it. Ties are broken by the row's own creation time and id so pages are stable.

These lists show the caller's own rows whatever the event's current visibility: a
person keeps seeing what they hold even if the organiser later hides the event.
"""

from typing import TypeVar

from django.db.models import Case, F, IntegerField, Model, Prefetch, QuerySet, Value, When
from django.utils import timezone

from accounts.models import User
from events.models import EventRSVP, EventWaitList, Ticket, WaitlistOffer
from events.waitlist.selectors import queue as waitlist_selectors

RowT = TypeVar("RowT", bound=Model)


def upcoming_first(rows: "QuerySet[RowT]") -> "QuerySet[RowT]":
    """Order rows that have an `event` FK: live events by start, then ended ones, newest first."""
    now = timezone.now()
    ended = Case(
        When(event__end__lt=now, then=Value(1)), default=Value(0), output_field=IntegerField()
    )
    upcoming_start = Case(When(event__end__gte=now, then=F("event__start")), default=None)
    return rows.annotate(_ended=ended, _upcoming_start=upcoming_start).order_by(
        "_ended", "_upcoming_start", "-event__start", "created_at", "pk"
    )


def my_tickets(user: User) -> QuerySet[Ticket]:
    return upcoming_first(
        Ticket.objects.filter(user=user).select_related("event", "tier", "payment")
    )


def my_rsvps(user: User) -> QuerySet[EventRSVP]:
    return upcoming_first(EventRSVP.objects.filter(user=user).select_related("event"))


def my_waitlist(user: User) -> QuerySet[EventWaitList]:
    """The caller's queue entries, each with `position` and `live_offers` (0 or 1 offer).

    `position` is `waitlist_selectors.position_expression`: the rank in the event's
    selection order (rotation included), null while the caller holds a live offer there.
    It is a correlated count inside the page query; the caller's live offers of the
    page's events come in one prefetch, so a page costs the same whatever its length.
    """
    now = timezone.now()
    own_live_offers = waitlist_selectors.live_offers(now).filter(user=user)
    entries = (
        EventWaitList.objects.filter(user=user)
        .select_related("event")
        .prefetch_related(
            Prefetch("event__waitlist_offers", queryset=own_live_offers, to_attr="live_offers")
        )
        .annotate(position=waitlist_selectors.position_expression(now))
    )
    return upcoming_first(entries)


def own_live_offer(entry: EventWaitList) -> WaitlistOffer | None:
    """The caller's live offer for the entry's event, from `my_waitlist`'s prefetch."""
    offers: list[WaitlistOffer] = getattr(entry.event, "live_offers", [])
    return offers[0] if offers else None
