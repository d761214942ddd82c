"""The waitlist: the legacy queue now, the advanced offer flow of seed 000 in issue 4.

`enqueue_waitlist_processing(event_id)` is called by every path that frees capacity
(seed-tables.md, "Trigger sites"). Until the offer processor exists it only records
the trigger, so the call sites are already in place and tested.

`join_waitlist` / `leave_waitlist` are the user's own door to the queue. Both lock the
Event row first (domain.md lock order), so a join never interleaves with the same
user's registration (which removes the queue entry under that lock) and a leave can
later expire the user's offer under the lock it needs.
"""

import logging
import uuid
from dataclasses import dataclass
from datetime import datetime

from django.db import transaction

from accounts.models import User
from events.errors import EligibilityRefused
from events.models import Event, EventWaitList
from events.selectors.waitlist import queue_position
from events.service.event_manager.enums import CAPACITY_REASON_CODES
from events.service.event_manager.service import EligibilityService
from events.service.locks import lock_event
from events.waitlist_errors import AlreadyAttending, CapacityAvailable, WaitlistClosed

logger = logging.getLogger("encore.waitlist")


def enqueue_waitlist_processing(event_id: uuid.UUID) -> None:
    """Schedule one processing pass for the event once the surrounding transaction commits."""
    transaction.on_commit(lambda: _dispatch(event_id))


def _dispatch(event_id: uuid.UUID) -> None:
    # Issue 4 replaces this with events.process_waitlist_for_event.delay(event_id).
    logger.info("waitlist processing requested", extra={"event_id": str(event_id)})


@dataclass(frozen=True)
class WaitlistJoin:
    event_id: uuid.UUID
    position: int | None
    joined_at: datetime
    created: bool


def join_waitlist(user: User, event: Event) -> WaitlistJoin:
    """Queue the user, checked in api.md's order; `created=False` when already queued.

    waitlist not open → `waitlist_closed`; already attending (YES RSVP or a live ticket)
    → `already_attending`; already queued → the existing entry; could register now →
    `capacity_available`; refused by a gate other than capacity → that refusal. Only a
    capacity refusal (full, reserved, sold out) lets the user in the queue. A new entry
    enqueues a processing pass: a seat may have freed between page load and click.
    """
    if not event.waitlist_open:
        raise WaitlistClosed()
    with transaction.atomic():
        event = lock_event(event.pk)
        if not event.waitlist_open:
            raise WaitlistClosed()
        service = EligibilityService(user, event)
        ctx = service.context
        if ctx.holds_seat or ctx.active_ticket_count > 0:
            raise AlreadyAttending()
        existing = EventWaitList.objects.filter(event=event, user=user).first()
        if existing is not None:
            return WaitlistJoin(event.pk, ctx.waitlist_position, existing.created_at, False)
        eligibility = service.check_eligibility(seats=1)
        if eligibility.allowed:
            raise CapacityAvailable()
        if eligibility.reason_code not in CAPACITY_REASON_CODES:
            raise EligibilityRefused(eligibility)
        entry = EventWaitList.objects.create(event=event, user=user)
        enqueue_waitlist_processing(event.pk)
        position = queue_position(event.pk, user.pk)
    logger.info("waitlist joined", extra={"event_id": str(event.pk), "user_id": str(user.pk)})
    return WaitlistJoin(event.pk, position, entry.created_at, True)


def leave_waitlist(user: User, event: Event) -> None:
    """Leave the queue; a no-op when not on it, and allowed whatever the waitlist's state.

    A held offer is expired first and its seat handed on by a processing pass.
    """
    with transaction.atomic():
        event = lock_event(event.pk)
        released_offer = _expire_held_offer(event, user)
        deleted, _ = EventWaitList.objects.filter(event=event, user=user).delete()
        if released_offer:
            enqueue_waitlist_processing(event.pk)
    if deleted:
        logger.info("waitlist left", extra={"event_id": str(event.pk), "user_id": str(user.pk)})


def _expire_held_offer(event: Event, user: User) -> bool:
    """Expire the user's PENDING offer for this event; True when one was released.

    The seam for the advanced waitlist (issue 4): no offer exists yet, so nothing is
    held and nothing needs handing on. The caller holds the Event lock, as the offer
    update will need.
    """
    del event, user
    return False
