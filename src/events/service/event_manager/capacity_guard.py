"""The authoritative capacity check, run under the Event row lock by every writer.

`EventManager._assert_capacity` (RSVPs) and `batch_ticket_service.capacity.
assert_event_capacity` (tickets, box office) both end here, so the locked check uses
the one rule of `capacity.SeatState` and answers with the gate's own refusal.
"""

import uuid
from datetime import datetime

from django.db.models import OuterRef, Subquery
from django.utils import timezone

from accounts.models import User
from common import metrics
from common.timezones import get_zone
from events.errors import EligibilityRefused
from events.models import Event, Invitation
from events.selectors import waitlist as waitlist_selectors
from events.service.capacity import locked_seat_state
from events.service.event_manager.gates import availability_refusal
from events.service.event_manager.types import EventUserEligibility


def overrides_capacity(event: Event, user_id: uuid.UUID) -> bool:
    """An invitation with `overrides_max_attendees`: the only capacity bypass (domain.md)."""
    return Invitation.objects.filter(
        event=event, user_id=user_id, overrides_max_attendees=True
    ).exists()


def assert_capacity_locked(
    event: Event, user_id: uuid.UUID, seats: int, *, now: datetime | None = None
) -> None:
    """Refuse `seats` more seats unless the (locked) event has room for this user.

    Other users' live non-cutoff offers count as taken; the user's own offer does not.
    """
    if overrides_capacity(event, user_id):
        return
    state = locked_seat_state(event, user_id)
    if state.has_room(seats):
        return
    now = now or timezone.now()
    standing = waitlist_selectors.queue_standing(event.pk, user_id, now)
    refusal = availability_refusal(
        event,
        state,
        seats,
        standing=standing,
        now=now,
        next_batch_at=waitlist_selectors.next_batch_at(event.pk, now),
    )
    assert refusal is not None
    metrics.refused(refusal.reason_code)
    raise EligibilityRefused(_as_the_user_sees_it(refusal, event, user_id, now))


def _as_the_user_sees_it(
    refusal: EventUserEligibility, event: Event, user_id: uuid.UUID, now: datetime
) -> EventUserEligibility:
    """As the gate answers (`as_seen_by`); the user's timezone and own offer are read
    only on the way to a refusal, so a check that passes costs no query for them."""
    own_offer = waitlist_selectors.live_offers(now).filter(event=event, user_id=OuterRef("pk"))
    row = (
        User.objects.filter(pk=user_id)
        .values("timezone")
        .annotate(own_offer_expires_at=Subquery(own_offer.values("expires_at")[:1]))
        .first()
    ) or {"timezone": "UTC", "own_offer_expires_at": None}
    return refusal.as_seen_by(get_zone(row["timezone"]), row["own_offer_expires_at"])
