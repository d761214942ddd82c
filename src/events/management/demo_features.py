"""The demo's flagship features, staged through the real services (issue 11, item 7).

Each scenario runs once, when its event or series is first created, and writes through
the services a real run goes through: RSVPs through `EventManager` (Event lock,
`attendee_count`), the queue through `join_waitlist`, the offer through
`process_waitlist_for_event` after a seat frees, the series through
`recurrence_service`, the edit through `event_service.update_event` (which marks the
occurrence modified). So locks, counters and the on-commit notifications are those of
a real run, and a second `load_demo` finds everything in place and does nothing.
"""

from collections.abc import Sequence
from datetime import datetime, timedelta

from django.utils import timezone

from accounts.models import User
from events.core.services import event_service
from events.core.services.admin_rsvp_service import update_rsvp
from events.core.services.event_manager import EventManager
from events.models import Event, EventRSVP, EventSeries, EventWaitList, Organization, Venue
from events.series import services as recurrence_service
from events.ticketing.services import payments as payment_service
from events.ticketing.services import ticket_admin as ticket_admin_service
from events.waitlist import services as waitlist_service
from events.waitlist.selectors import queue as waitlist_selectors

SERIES_NAME = "Weekly Jam"
SERIES_WEEKS = 4


def seat_and_queue(event: Event, seated: Sequence[User], queued: Sequence[User]) -> None:
    """Fill the event with YES RSVPs, then queue the others in order (FIFO: first is next)."""
    for user in seated:
        EventManager(user, event).rsvp(EventRSVP.Status.YES)
    for user in queued:
        waitlist_service.join_waitlist(user, event)


def sell_demo_tickets(event: Event, free: User, pending: User, paid: User) -> None:
    """The tickets page's three kinds of row: a free ticket, an offline one awaiting its
    transfer (the buyer's page shows the amount, the instructions and the reference), and
    one the organiser marked as paid. Bought through the checkout, like a buyer's."""
    tiers = {tier.name: tier.pk for tier in event.ticket_tiers.all()}
    payment_service.checkout(event, free, [{"tier_id": tiers["Free"], "count": 1}])
    payment_service.checkout(event, pending, [{"tier_id": tiers["Supporter"], "count": 1}])
    sold = payment_service.checkout(event, paid, [{"tier_id": tiers["Supporter"], "count": 1}])
    for ticket in sold.tickets:
        ticket_admin_service.confirm_payment(event, ticket.pk)


def free_a_seat_for_the_queue(event: Event, leaving: User) -> None:
    """A seated attendee answers no; the processing pass offers the seat to the queue's head.

    `update_rsvp` enqueues that pass on commit like any freed seat; running it here too
    makes the offer exist when the command prints, worker or not. The pass is idempotent
    (capacity counts held offers), so the worker's later run offers nothing more.
    """
    rsvp = EventRSVP.objects.get(event=event, user=leaving)
    update_rsvp(event, rsvp, EventRSVP.Status.NO)
    waitlist_service.process_waitlist_for_event(event.pk)


def renew_lapsed_offer(event: Event, user: User) -> None:
    """A later run, once the offer window ran out unclaimed: the organiser's override
    offers the seat again, so the demo's countdown is live again. Only while the seat is
    free and nobody holds an offer (the hourly sweep may have passed it on: then that
    offer is the demo's live one), and only for a user still queued."""
    now = timezone.now()
    entry = EventWaitList.objects.filter(event=event, user=user).first()
    if entry is None or waitlist_selectors.held_offers(event.pk, now).exists():
        return
    event.refresh_from_db(fields=["attendee_count"])
    if event.attendee_count < event.effective_capacity:
        waitlist_service.create_admin_offer(event.pk, entry.pk)


def waitlist_summary(event: Event) -> str:
    """`queued N, offers out M` for the printed list; empty for an event without a queue."""
    queued = EventWaitList.objects.filter(event=event).count()
    if not queued:
        return ""
    held = waitlist_selectors.held_offers(event.pk, timezone.now()).count()
    return f"queued {queued}, offers out {held}"


def ensure_weekly_series(
    org: Organization, venue: Venue, first_start: datetime
) -> tuple[EventSeries, bool]:
    """A weekly series with its second date cancelled and its third edited; once.

    Creating the series runs its first generation pass (all SERIES_WEEKS dates lie in
    the window); the daily fan-out keeps generating after that like for any series.
    """
    series = EventSeries.objects.filter(organization=org, name=SERIES_NAME).first()
    if series is not None:
        return series, False
    series = recurrence_service.create_recurring_event_series(
        org,
        {
            "name": SERIES_NAME,
            "description": "Every week, same place: one date cancelled, one moved later.",
            "end": first_start + timedelta(hours=2),
            "venue_id": venue.pk,
            "max_attendees": 20,
        },
        SERIES_NAME,
        {
            "frequency": "weekly",
            "weekdays": [first_start.weekday()],
            "dtstart": first_start,
            "count": SERIES_WEEKS,
            "timezone": "UTC",
        },
        description="Demo series of `make run`.",
        auto_publish=True,
    )
    occurrences = list(series_occurrences(series))
    recurrence_service.cancel_occurrence(series, occurrences[1].start)
    edited = occurrences[2]
    event_service.update_event(
        edited,
        {
            "start": edited.start + timedelta(hours=1),
            "end": edited.end + timedelta(hours=1) if edited.end else None,
            "description": "This week an hour later: an occurrence edited on its own.",
        },
    )
    return series, True


def series_occurrences(series: EventSeries) -> list[Event]:
    return list(
        Event.objects.filter(event_series=series, is_template=False).order_by("start", "pk")
    )
