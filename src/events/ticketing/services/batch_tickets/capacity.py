"""The locked capacity check of a ticket sale (docs/spec/waitlist-design.md: `assert_event_capacity`).

Only the ticket-specific part lives here: the event's seats are checked by the one
capacity module (`events.core.eligibility.capacity.assert_capacity_locked`, as for RSVPs);
what tickets add is the tiers' quantities. Runs inside the transaction that holds the
Event row lock, so the numbers it reads are the authoritative ones, and it answers with
the same refusal the gates give (`sold_out` for tiers), so a client sees one status and
one `reason_code` for "no seat" whether the gate or the race decided (docs/spec/api.md).
"""

import uuid
from collections.abc import Iterable
from datetime import datetime

from django.utils import timezone

from events.core.eligibility.capacity import (
    RefusedUnderLock,
    assert_capacity_locked,
    sold_out_refusal,
)
from events.core.eligibility.types import EventUserEligibility
from events.core.selectors.locked_check import LockedCheck, refusal_details
from events.models import Event, TicketTier
from events.waitlist.selectors.queue import QueueStanding


def assert_event_capacity(
    event: Event,
    user_id: uuid.UUID,
    seats: int,
    tiers: Iterable[TicketTier] = (),
    *,
    now: datetime | None = None,
) -> LockedCheck:
    """Refuse `seats` more tickets for `user_id` unless the locked event has room.

    `event` must be locked by the caller (`locks.lock_event`); `tiers` are the locked
    tiers the cart asks for. Two bounds, in the gates' order:

    1. the event's capacity, reservations of other users' offers netted in; an
       invitation with `overrides_max_attendees` lifts this bound (and only this one);
    2. the tiers' quantities: when every requested tier is exhausted and no other tier
       on sale has anything left either, the event is `sold_out` (409, the waitlist is
       the next step). A tier short of the requested count while others still sell is
       the cart's problem (`sold_out` with the tier's `remaining`, checked by the caller).

    A refusal leaves as `RefusedUnderLock` (detailed once the lock is released); returns
    the locked check.
    """
    now = now or timezone.now()
    check = assert_capacity_locked(event, user_id, seats, now=now)
    requested = list(tiers)
    exhausted = bool(requested) and all(tier.remaining == 0 for tier in requested)
    if exhausted and not _other_tier_available(event, requested, now):
        raise _sold_out(event, user_id, check.on_waitlist, now)
    return check


def _other_tier_available(event: Event, requested: list[TicketTier], now: datetime) -> bool:
    """Another tier on sale with tickets left (read under the Event lock, so current)."""
    others = TicketTier.objects.filter(event=event).exclude(pk__in=[t.pk for t in requested])
    return any(tier.is_on_sale(now) and tier.remaining != 0 for tier in others)


def _sold_out(
    event: Event, user_id: uuid.UUID, on_waitlist: bool, now: datetime
) -> RefusedUnderLock:
    """Decided under the lock; the queue position is read after it (ADR 0022)."""

    def complete() -> EventUserEligibility:
        position = refusal_details(event.pk, user_id, now).position
        return sold_out_refusal(event, QueueStanding(on_waitlist, position))

    return RefusedUnderLock(sold_out_refusal(event, QueueStanding(on_waitlist)), complete)
