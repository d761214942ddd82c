"""Events as iCalendar: one event now (`/events/{id}/calendar.ics`), a series feed later."""

from collections.abc import Iterable

from common import links
from events.models import Event
from events.utils import ical

#: VEVENT STATUS per event status; a draft is only a plan.
_STATUS = {
    Event.Status.DRAFT: "TENTATIVE",
    Event.Status.OPEN: "CONFIRMED",
    Event.Status.CLOSED: "CONFIRMED",
    Event.Status.CANCELLED: "CANCELLED",
}


def event_uid(event: Event) -> str:
    """Stable across exports and edits, so a re-import updates the entry instead of adding one."""
    return f"{event.pk}@encore"


def event_url(event: Event) -> str:
    return links.event_url(event.pk)


def _location(event: Event) -> str:
    venue = event.venue
    if venue is None:
        return ""
    return ", ".join(part for part in (venue.name, venue.address) if part)


def vevent_for(event: Event) -> ical.VEvent:
    """The VEVENT of one event; needs `venue` loaded (select_related) to stay query-free."""
    return ical.VEvent(
        uid=event_uid(event),
        start=event.start,
        end=event.end,
        summary=event.name,
        description=event.description,
        location=_location(event),
        url=event_url(event),
        status=_STATUS.get(Event.Status(event.status), "CONFIRMED"),
        stamp=event.updated_at,
        last_modified=event.updated_at,
    )


def events_calendar(events: Iterable[Event], *, name: str | None = None) -> str:
    return ical.calendar((vevent_for(event) for event in events), name=name)
