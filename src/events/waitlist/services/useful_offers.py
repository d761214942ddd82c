"""When an offer is of use, and until when: the one rule (seed-tables "Only useful offers").

Offers go only to open events with a capacity, whose queue is open, while one can still
register: an offer past `latest_deadline` (the start, or the RSVP deadline of an RSVP
event) would be born expired, and the sweep would then report offers never sent and
rotate their members. Automatic offers (a processing pass, the hourly nudge, the
expired notice that promises more) also need the active mode, a time window; an
organiser's own offer does not, since it may carry an explicit `expires_at`.

Each condition is written once, as a pair: the test on a loaded Event and the filter on
Event rows that means the same. `offers_are_useful` and `useful_offer_events` are both
built from the pairs, so the predicate and the query cannot drift apart.
"""

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db.models import Q

from events.models import Event


def latest_deadline(event: Event) -> datetime:
    """An offer is useless once the event starts or, for RSVP events, RSVPs close."""
    if event.rsvp_before is not None and not event.requires_ticket:
        return min(event.start, event.rsvp_before)
    return event.start


def offer_deadline(event: Event, now: datetime) -> datetime:
    """min(now + window, event.start, rsvp_before) (seed-tables "Deadlines")."""
    window = event.waitlist_time_window or timedelta(0)
    return min(now + window, latest_deadline(event))


@dataclass(frozen=True)
class _Condition:
    """One condition of the rule, spelt for a loaded Event and for a query on Event rows."""

    holds: Callable[[Event, datetime], bool]
    rows: Callable[[datetime], Q]


_QUEUE_OPEN = _Condition(
    holds=lambda event, now: event.waitlist_open,
    rows=lambda now: Q(waitlist_open=True),
)
_ACTIVE_MODE = _Condition(
    holds=lambda event, now: event.waitlist_time_window is not None,
    rows=lambda now: Q(waitlist_time_window__isnull=False),
)
_EVENT_OPEN = _Condition(
    holds=lambda event, now: event.status == Event.Status.OPEN,
    rows=lambda now: Q(status=Event.Status.OPEN),
)
_REGISTRATION_OPEN = _Condition(  # latest_deadline(event) > now
    holds=lambda event, now: latest_deadline(event) > now,
    rows=lambda now: Q(start__gt=now) & ~Q(requires_ticket=False, rsvp_before__lte=now),
)
_HAS_CAPACITY = _Condition(  # effective_capacity > 0: some positive limit (0 = unlimited)
    holds=lambda event, now: event.effective_capacity > 0,
    rows=lambda now: Q(max_attendees__gt=0) | Q(venue__capacity__gt=0),
)

# In evaluation order: the capacity last, as it may load the venue.
_AUTOMATIC = (_QUEUE_OPEN, _ACTIVE_MODE, _EVENT_OPEN, _REGISTRATION_OPEN, _HAS_CAPACITY)
_BY_ORGANISER = (_QUEUE_OPEN, _EVENT_OPEN, _REGISTRATION_OPEN, _HAS_CAPACITY)


def offers_are_useful(event: Event, now: datetime, *, by_organiser: bool = False) -> bool:
    """Can an offer for this event be of use now? `by_organiser`: an admin offer, which
    needs no time window (legacy mode, with an explicit `expires_at`)."""
    conditions = _BY_ORGANISER if by_organiser else _AUTOMATIC
    return all(condition.holds(event, now) for condition in conditions)


def useful_offer_events(now: datetime) -> Q:
    """The filter on Event rows for which `offers_are_useful(event, now)` holds."""
    q = Q()
    for condition in _AUTOMATIC:
        q &= condition.rows(now)
    return q
