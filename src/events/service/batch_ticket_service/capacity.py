"""The locked capacity check of a ticket sale (seed 000: `assert_event_capacity`).

Runs inside the transaction that holds the Event row lock, so the numbers it reads are
the authoritative ones. It answers with the same refusal the eligibility gates give
(`availability_refusal` for seats, `sold_out` for tiers), so a client sees one status and
one `reason_code` for "no seat" whether the gate or the race decided (api.md).
"""

import uuid
from collections.abc import Iterable
from datetime import datetime

from django.utils import timezone

from events.errors import EligibilityRefused
from events.models import Event, Invitation, TicketTier
from events.selectors.waitlist import queue_position
from events.service.capacity import locked_seat_state
from events.service.event_manager.enums import NextStep, Reasons
from events.service.event_manager.gates import availability_refusal
from events.service.event_manager.types import EventUserEligibility


def is_on_sale(tier: TicketTier, now: datetime) -> bool:
    """Inside the tier's sale window (an empty bound is open)."""
    starts, ends = tier.sales_start_at, tier.sales_end_at
    return (starts is None or starts <= now) and (ends is None or ends > now)


def overrides_capacity(event: Event, user_id: uuid.UUID) -> bool:
    """An invitation with `overrides_max_attendees`: the only capacity bypass (domain.md)."""
    return Invitation.objects.filter(
        event=event, user_id=user_id, overrides_max_attendees=True
    ).exists()


def assert_event_capacity(
    event: Event,
    user_id: uuid.UUID,
    seats: int,
    tiers: Iterable[TicketTier] = (),
    *,
    now: datetime | None = None,
) -> None:
    """Refuse `seats` more tickets for `user_id` unless the locked event has room.

    `event` must be locked by the caller (`locks.lock_event`); `tiers` are the locked
    tiers the cart asks for. Two bounds, in the gates' order:

    1. the event's capacity, reservations of other users' offers netted in; an
       invitation with `overrides_max_attendees` lifts this bound (and only this one);
    2. the tiers' quantities: when every requested tier is exhausted and no other tier
       on sale has anything left either, the event is `sold_out` (409, the waitlist is
       the next step). A tier short of the requested count while others still sell is
       the cart's problem (`tier_sold_out`, checked by the caller).
    """
    if not overrides_capacity(event, user_id):
        state = locked_seat_state(event, user_id)
        if not state.has_room(seats):
            position = queue_position(event.pk, user_id)
            refusal = availability_refusal(event, state, seats, waitlist_position=position)
            assert refusal is not None
            raise EligibilityRefused(refusal)
    requested = list(tiers)
    exhausted = bool(requested) and all(tier.remaining == 0 for tier in requested)
    if exhausted and not _other_tier_available(event, requested, now or timezone.now()):
        raise _sold_out(event, user_id)


def _other_tier_available(event: Event, requested: list[TicketTier], now: datetime) -> bool:
    """Another tier on sale with tickets left (read under the Event lock, so current)."""
    others = TicketTier.objects.filter(event=event).exclude(pk__in=[t.pk for t in requested])
    return any(is_on_sale(tier, now) and tier.remaining != 0 for tier in others)


def _sold_out(event: Event, user_id: uuid.UUID) -> EligibilityRefused:
    position = queue_position(event.pk, user_id)
    step = NextStep.JOIN_WAITLIST if event.waitlist_open and position is None else None
    return EligibilityRefused(
        EventUserEligibility.refuse(event.pk, Reasons.SOLD_OUT, step, waitlist_position=position)
    )
