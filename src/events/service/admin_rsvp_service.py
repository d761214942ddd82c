"""Staff answering RSVPs for a user: thin wrappers around `EventManager`.

`EventManager.rsvp(answer, by_staff=True)` is the one RSVP writer: it skips the
eligibility gates but never the locked capacity check (staff never oversell), moves
`attendee_count` under the Event lock and enqueues waitlist processing when a YES goes
away. These functions only pick the user and report whether a row was created.
"""

from accounts.models import User
from events.models import Event, EventRSVP
from events.service.event_manager.manager import EventManager


def set_rsvp(event: Event, user: User, status: str) -> tuple[EventRSVP, bool]:
    """Create or change `user`'s RSVP; returns (rsvp, created).

    `created` is read just before the locked write, so two staff members racing to
    create the same RSVP may both hear "created"; the row itself is unique per user.
    """
    existed = EventRSVP.objects.filter(event=event, user=user).exists()
    rsvp = EventManager(user, event).rsvp(status, by_staff=True)
    rsvp.user = user
    return rsvp, not existed


def update_rsvp(event: Event, rsvp: EventRSVP, status: str) -> EventRSVP:
    """Change an existing RSVP of the event (YES → other frees the seat)."""
    updated = EventManager(rsvp.user, event).rsvp(status, by_staff=True)
    updated.user = rsvp.user
    return updated


def delete_rsvp(event: Event, rsvp: EventRSVP) -> None:
    """Remove an RSVP; a YES frees its seat and enqueues waitlist processing."""
    EventManager(rsvp.user, event).delete_rsvp(rsvp.pk)
