"""Staff answering RSVPs for a user: thin wrappers around `EventManager`.

`EventManager.rsvp(answer, by_staff=True)` is the one RSVP writer: it skips the
eligibility gates but never the locked capacity check (staff never oversell), moves
`attendee_count` under the Event lock and enqueues waitlist processing when a YES goes
away. These functions only pick the user and report whether a row was created.

`check_in_rsvp` is the door check-in of an RSVP attendee, the RSVP side of
`ticket_admin_service.check_in`: same window rule, same `already_checked_in` code.
"""

import logging
import uuid
from datetime import datetime

from django.db import transaction
from django.utils import timezone

from accounts.models import User
from common.errors import first_or_not_found
from events.core.errors import NotAttending, RSVPAlreadyCheckedIn
from events.core.services.check_in_window import assert_check_in_open
from events.core.services.event_manager import EventManager
from events.models import Event, EventRSVP

logger = logging.getLogger("encore.rsvps")


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


@transaction.atomic
def check_in_rsvp(
    actor: User, event: Event, rsvp_id: uuid.UUID, *, now: datetime | None = None
) -> EventRSVP:
    """Mark a YES RSVP checked in (`checked_in_at`), only inside the check-in window.

    Locks only the RSVP row (no seat moves), as the ticket check-in locks only its ticket;
    `EventManager` locks the same row before changing an answer, so a check-in never
    interleaves with a YES becoming NO. Another event's RSVP is 404; an answer other than
    YES is 409 `not_attending`, a second check-in 409 `already_checked_in`, outside the
    window 400 `outside_check_in_window`. A refusal writes nothing.
    """
    now = now or timezone.now()
    locked = EventRSVP.objects.select_for_update(of=("self",)).select_related("user")
    rsvp = first_or_not_found(locked.filter(pk=rsvp_id, event=event), "RSVP not found.")
    if rsvp.status != EventRSVP.Status.YES:
        raise NotAttending()
    if rsvp.checked_in_at is not None:
        raise RSVPAlreadyCheckedIn()
    assert_check_in_open(event, now)
    rsvp.checked_in_at = now
    rsvp.save(update_fields=["checked_in_at", "updated_at"])
    logger.info(
        "rsvp checked in",
        extra={"event_id": str(event.pk), "rsvp_id": str(rsvp.pk), "staff_id": str(actor.pk)},
    )
    return rsvp
