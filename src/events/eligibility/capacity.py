"""Capacity: the one rule, the refusal it gives, and the authoritative locked check.

Seed 000: pending waitlist offers hold seats. A registration of `requested` seats
passes iff `attendee_count + held + requested <= effective_capacity`, where `held`
counts live non-cutoff offers other than the caller's own (seed-tables.md). An
effective capacity of 0 means unlimited.

The gate (`gates.AvailabilityGate`, on prefetched data) and every writer's locked
re-check (`EventManager._assert_capacity` for RSVPs, `batch_ticket_service.capacity.
assert_event_capacity` for tickets and the box office) all end here, so both use the
same rule and answer with the same refusal. Everything here only reads: the writer
holds the Event row lock (`locks.lock_event`) when it calls `assert_capacity_locked`,
which is what makes the numbers read authoritative.
"""

import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db.models import OuterRef, Subquery
from django.utils import timezone

from accounts.models import User
from common import metrics
from common.timezones import get_zone
from events.eligibility.enums import NextStep, Reasons
from events.eligibility.types import EventUserEligibility
from events.errors import EligibilityRefused
from events.models import Event, Invitation
from events.selectors import waitlist as waitlist_selectors
from events.selectors.waitlist import QueueStanding


@dataclass(frozen=True)
class SeatState:
    effective_capacity: int
    attendee_count: int
    held: int  # live, non-cutoff offers of *other* users

    @property
    def unlimited(self) -> bool:
        return self.effective_capacity == 0

    @property
    def free_without_holds(self) -> int | None:
        """Seats left if nobody held any; None when unlimited."""
        if self.unlimited:
            return None
        return max(self.effective_capacity - self.attendee_count, 0)

    @property
    def free(self) -> int | None:
        """Seats anyone without an offer may take now; None when unlimited."""
        if self.unlimited:
            return None
        return max(self.effective_capacity - self.attendee_count - self.held, 0)

    def has_room(self, requested: int = 1) -> bool:
        free = self.free
        return free is None or requested <= free

    def full_because_of_holds(self, requested: int = 1) -> bool:
        """True when the attendees alone would leave room but the reservations do not."""
        without_holds = self.free_without_holds
        return (
            without_holds is not None
            and requested <= without_holds
            and not self.has_room(requested)
        )


def held_offer_count(event_id: uuid.UUID, excluding_user_id: uuid.UUID | None) -> int:
    """Seats held by live, non-cutoff waitlist offers of other users (one SUM).

    An offer holds its party's seats (`WaitlistOffer.seats`), so this sums seats, not
    offers. The caller's own offer is reserved *for* them, so it is netted out: a party
    claiming with more seats than its offer holds needs free room for the difference
    only, and with fewer frees the rest. A cutoff offer never reserves, so nobody's
    cutoff offer counts (seed 000, domain.md fix).
    """
    held = waitlist_selectors.held_offers(event_id, timezone.now())
    if excluding_user_id is not None:
        held = held.exclude(user_id=excluding_user_id)
    return waitlist_selectors.held_seats_of(held)


def locked_seat_state(event: Event, user_id: uuid.UUID | None) -> SeatState:
    """Seat state of an event whose row the caller has locked (the authoritative check)."""
    return SeatState(
        effective_capacity=event.effective_capacity,
        attendee_count=event.attendee_count,
        held=held_offer_count(event.pk, user_id) if event.effective_capacity else 0,
    )


# -- the refusal (shared by the gate and the locked check) ------------------------------


def availability_refusal(
    event: Event,
    state: SeatState,
    seats: int,
    *,
    standing: QueueStanding,
    now: datetime,
    next_batch_at: datetime | None = None,
) -> EventUserEligibility | None:
    """Seed-tables "What the user sees": the refusal for `seats` more seats, or None.

    Shared by the gate and the locked re-check so both answer with the same reason.
    After the waitlist cutoff the ordinary rules apply: full is full, and joining the
    queue is the most there is to do.
    """
    if state.has_room(seats):
        return None
    extra: dict[str, Any] = {
        "pending_offers_count": state.held,
        "next_batch_at": next_batch_at,
        "waitlist_position": standing.position,
    }
    reason, step = _full_reason(event, state, seats, standing, now)
    return EventUserEligibility.refuse(event.pk, reason, step, **extra)


def _full_reason(
    event: Event, state: SeatState, seats: int, standing: QueueStanding, now: datetime
) -> tuple[Reasons, NextStep | None]:
    past_cutoff = event.waitlist_cutoff_date is not None and now >= event.waitlist_cutoff_date
    queue_step = queue_next_step(event, standing)
    if past_cutoff or not state.full_because_of_holds(seats):
        return Reasons.EVENT_IS_FULL, queue_step
    if standing.on_waitlist:
        return Reasons.ON_WAITLIST_WAITING_FOR_BATCH, NextStep.WAIT_FOR_OPEN_SPOT
    return Reasons.SPOTS_RESERVED_FOR_WAITLIST, queue_step


def queue_next_step(event: Event, standing: QueueStanding) -> NextStep | None:
    """Join the open queue, or wait in it; nothing when the queue is closed."""
    if not event.waitlist_open:
        return None
    return NextStep.WAIT_FOR_OPEN_SPOT if standing.on_waitlist else NextStep.JOIN_WAITLIST


def sold_out_refusal(event: Event, standing: QueueStanding) -> EventUserEligibility:
    """Every tier exhausted: `sold_out`, the queue as the next step (gate and checkout)."""
    return EventUserEligibility.refuse(
        event.pk,
        Reasons.SOLD_OUT,
        queue_next_step(event, standing),
        waitlist_position=standing.position,
    )


# -- the locked check (the caller holds the Event row lock) ------------------------------


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
