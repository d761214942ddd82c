"""The caller's own tickets, RSVPs and waitlist entries (`/me/tickets`, `/me/rsvps`, `/me/waitlist`).

Order: **upcoming first**. Rows whose event has not ended yet come first, soonest start
first (an event in progress counts as upcoming: its ticket is still needed at the door);
rows of events that have ended follow, most recent first, as the caller's history.
Nothing is filtered out: cancelled tickets and events stay listed, their status shows
it. Ties are broken by the row's own creation time and id so pages are stable.

These lists show the caller's own rows whatever the event's current visibility: a
person keeps seeing what they hold even if the organiser later hides the event.
"""

import uuid
from collections.abc import Sequence
from typing import TypeVar, overload

from django.db.models import Case, Count, F, IntegerField, Model, Q, QuerySet, Value, When
from django.utils import timezone

from accounts.models import User
from events.models import EventRSVP, EventWaitList, Ticket

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
    return upcoming_first(Ticket.objects.filter(user=user).select_related("event", "tier"))


def my_rsvps(user: User) -> QuerySet[EventRSVP]:
    return upcoming_first(EventRSVP.objects.filter(user=user).select_related("event"))


def my_waitlist(user: User) -> "PositionedEntries":
    """The caller's queue entries; each entry of a page gets `position` (see below)."""
    return PositionedEntries(
        upcoming_first(EventWaitList.objects.filter(user=user).select_related("event"))
    )


def waitlist_positions(entries: Sequence[EventWaitList]) -> dict[uuid.UUID, int]:
    """1-based FIFO rank of each entry in its event's queue, in ONE grouped query.

    Rank = 1 + the entries of the same event that joined earlier (created_at, then id as
    the tie-break, the same order the queue is served in).
    """
    if not entries:
        return {}
    earlier = Q(event__waitlist__created_at__lt=F("created_at")) | Q(
        event__waitlist__created_at=F("created_at"), event__waitlist__id__lt=F("id")
    )
    rows = (
        EventWaitList.objects.filter(pk__in=[entry.pk for entry in entries])
        .order_by()
        .annotate(ahead=Count("event__waitlist", filter=earlier))
        .values_list("pk", "ahead")
    )
    return {pk: ahead + 1 for pk, ahead in rows}


class PositionedEntries:
    """A lazy view of a waitlist queryset for the paginator: counting runs `COUNT(*)`,
    slicing loads one page and sets `entry.position` on it with one grouped query.

    Positions are computed per page, not per row and not for the whole list.
    """

    ordered = True  # the wrapped queryset is ordered; tells Django's Paginator not to warn

    def __init__(self, queryset: QuerySet[EventWaitList]) -> None:
        self.queryset = queryset

    def count(self) -> int:
        return self.queryset.count()

    def __len__(self) -> int:
        return self.count()

    @overload
    def __getitem__(self, index: int) -> EventWaitList: ...

    @overload
    def __getitem__(self, index: slice) -> list[EventWaitList]: ...

    def __getitem__(self, index: int | slice) -> EventWaitList | list[EventWaitList]:
        if isinstance(index, int):
            return self[index : index + 1][0]
        page = list(self.queryset[index])
        positions = waitlist_positions(page)
        for entry in page:
            entry.position = positions[entry.pk]  # type: ignore[attr-defined]
        return page
