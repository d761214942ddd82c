"""Reads behind the organiser's pages (`web.views.manage`): the organisations a user runs,
an organisation's events and series, an event's attendees and what the caller may do.

Each list is capped (`LIST_CAP`) or paged (`attendee_page`), so a page costs a fixed number of queries however many
rows exist. The attendee list is the admin API's (RSVP list, ticket list) and needs its
permission: `manage_event` for an RSVP event, `manage_tickets` for a ticketed one.
"""

import uuid
from collections.abc import Iterator
from dataclasses import dataclass, replace
from datetime import datetime

from django.db.models import QuerySet
from django.utils import timezone

from common.errors import first_or_not_found
from events.core.selectors import event_admin as admin_selectors
from events.core.selectors.access import AnyUser, access_event_admin, staff_organizations
from events.models import (
    Event,
    EventRSVP,
    EventSeries,
    Organization,
    OrganizationStaff,
    StaffPermission,
    Ticket,
)
from events.ticketing.selectors import tickets as ticket_selectors
from events.ticketing.selectors.revenue import Revenue, event_revenue
from events.utils.money import to_major
from events.waitlist.selectors.queue import held_offer_count

LIST_CAP = 100
#: An organisation's page lists at most this many upcoming and past events.
UPCOMING_CAP = 50
PAST_CAP = 20


def managed_organizations(user: AnyUser) -> QuerySet[Organization]:
    """The organisations the user owns or staffs, by name (capped)."""
    return staff_organizations(user).order_by("name", "pk")[:LIST_CAP]


def upcoming_events(organization: Organization, now: datetime | None = None) -> QuerySet[Event]:
    """Events that have not ended, soonest first (templates are the series' business)."""
    now = now or timezone.now()
    events = Event.objects.filter(organization=organization, is_template=False, end__gte=now)
    return events.order_by("start", "pk")[:UPCOMING_CAP]


def past_events(organization: Organization, now: datetime | None = None) -> QuerySet[Event]:
    """Events that have ended, latest first."""
    now = now or timezone.now()
    events = Event.objects.filter(organization=organization, is_template=False, end__lt=now)
    return events.order_by("-start", "-pk")[:PAST_CAP]


def organization_series(organization: Organization) -> QuerySet[EventSeries]:
    return EventSeries.objects.filter(organization=organization).order_by("name", "pk")[:LIST_CAP]


def permissions_of(user: AnyUser, organization: Organization) -> frozenset[str]:
    """Every permission the user holds here: the owner all, staff their map, others none.

    One query at most; the same answers as `access.has_org_permission`, for a page that
    shows or hides several actions at once.
    """
    if organization.owner_id == getattr(user, "pk", None):
        return frozenset(StaffPermission.values)
    staff = OrganizationStaff.objects.filter(organization=organization, user=user).first()
    if staff is None:
        return frozenset()
    return frozenset(p for p in StaffPermission.values if staff.has_permission(p))


def attendee_list_permission(requires_ticket: bool) -> str:
    """The permission of the admin API's attendee list (RSVPs or tickets)."""
    return StaffPermission.MANAGE_TICKETS if requires_ticket else StaffPermission.MANAGE_EVENT


def access_attendees(user: AnyUser, event_id: uuid.UUID) -> Event:
    """The event for its attendee list: 404 / 403 exactly as the API's list route."""
    requires_ticket = (
        Event.objects.filter(pk=event_id).values_list("requires_ticket", flat=True).first()
    )
    return access_event_admin(user, event_id, attendee_list_permission(bool(requires_ticket)))


@dataclass(frozen=True)
class Attendee:
    """One row of the attendee list: an RSVP (yes) or a ticket."""

    id: uuid.UUID
    name: str
    email: str
    kind: str  # "rsvp" or "ticket"
    detail: str  # the tier of a ticket, "" for an RSVP
    status: str
    checked_in_at: datetime | None
    #: A ticket paid online (issue 14): the checkout's state, this ticket's amount
    #: (major units) and currency, and whether a chargeback was opened; "" otherwise.
    payment_status: str = ""
    payment_amount: str = ""
    payment_currency: str = ""
    disputed: bool = False

    @property
    def can_check_in(self) -> bool:
        """An active ticket, or a YES RSVP not checked in yet (what the services accept)."""
        if self.kind == "ticket":
            return self.status == Ticket.Status.ACTIVE
        return self.status == EventRSVP.Status.YES and self.checked_in_at is None


#: Attendees per page of the overview.
ATTENDEE_PAGE = 50


@dataclass(frozen=True)
class AttendeePage:
    rows: list[Attendee]
    number: int
    pages: int
    total: int


def attendee_page(event: Event, number: int = 1, size: int = ATTENDEE_PAGE) -> AttendeePage:
    """One page of the attendee list (two queries: the count and the rows); a page
    number past the end shows the last page."""
    total = _attendee_rows(event).count()
    pages = max((total + size - 1) // size, 1)
    number = min(max(number, 1), pages)
    offset = (number - 1) * size
    rows = [_attendee(row) for row in _attendee_rows(event)[offset : offset + size]]
    return AttendeePage(rows=rows, number=number, pages=pages, total=total)


def iter_attendees(event: Event) -> Iterator[Attendee]:
    """Every attendee, for the CSV export (streamed in chunks, no cap)."""
    return (_attendee(row) for row in _attendee_rows(event).iterator(chunk_size=500))


def ticket_attendee(event: Event, ticket_id: uuid.UUID) -> Attendee:
    """One ticket of this event as an attendee row (another event's ticket: 404)."""
    tickets = ticket_selectors.event_tickets(event).filter(pk=ticket_id)
    return _ticket_attendee(first_or_not_found(tickets, "Ticket not found."))


def rsvp_attendee(event: Event, rsvp_id: uuid.UUID) -> Attendee:
    """One RSVP of this event (any answer) as an attendee row (another event's: 404)."""
    return _rsvp_attendee(admin_selectors.get_rsvp(event, rsvp_id))


def _ticket_attendee(ticket: Ticket) -> Attendee:
    attendee = Attendee(
        id=ticket.pk,
        name=ticket.holder_name or ticket.user.display_name,
        email=ticket.user.email,
        kind="ticket",
        detail=ticket.tier.name,
        status=ticket.status,
        checked_in_at=ticket.checked_in_at,
    )
    payment = ticket.payment  # select_related by `event_tickets`
    if payment is None:
        return attendee
    amount = int(payment.ticket_amounts.get(str(ticket.pk), 0))
    return replace(
        attendee,
        payment_status=payment.status,
        payment_amount=str(to_major(amount, payment.currency)),
        payment_currency=payment.currency,
        disputed=payment.disputed_at is not None,
    )


def _attendee_rows(event: Event) -> QuerySet[Ticket] | QuerySet[EventRSVP]:
    """The event's tickets (every status), or its RSVPs that said yes; oldest first."""
    if event.requires_ticket:
        return ticket_selectors.event_tickets(event)
    return admin_selectors.list_rsvps(event, EventRSVP.Status.YES)


def _attendee(row: Ticket | EventRSVP) -> Attendee:
    if isinstance(row, Ticket):
        return _ticket_attendee(row)
    return _rsvp_attendee(row)


def _rsvp_attendee(rsvp: EventRSVP) -> Attendee:
    return Attendee(
        id=rsvp.pk,
        name=rsvp.user.display_name,
        email=rsvp.user.email,
        kind="rsvp",
        detail="",
        status=rsvp.status,
        checked_in_at=rsvp.checked_in_at,
    )


@dataclass(frozen=True)
class EventFigures:
    """The overview's figures at the top: the seats, who came, and the money."""

    taken: int  # seats sold or RSVP'd
    held: int  # held for the waitlist (live, non-cutoff offers)
    checked_in: int
    revenue: list[Revenue]  # per currency; [] for an RSVP event or one that sells nothing


def event_figures(event: Event) -> EventFigures:
    """Two queries for an RSVP event (held seats, check-ins), four for a ticketed one (and
    the takings, online and offline), whatever the number of attendees."""
    if event.requires_ticket:
        checked_in = Ticket.objects.filter(event=event, status=Ticket.Status.CHECKED_IN).count()
        revenue = event_revenue(event)
    else:
        checked_in = EventRSVP.objects.filter(
            event=event, status=EventRSVP.Status.YES, checked_in_at__isnull=False
        ).count()
        revenue = []
    return EventFigures(
        taken=event.attendee_count,
        held=held_offer_count(event.pk, None),
        checked_in=checked_in,
        revenue=revenue,
    )
