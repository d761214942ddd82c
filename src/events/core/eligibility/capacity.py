"""Capacity: the one rule, the refusal it gives, and the authoritative locked check.

docs/spec/waitlist-design.md: pending waitlist offers hold seats. A registration of `requested` seats
passes iff `attendee_count + held + requested <= effective_capacity`, where `held`
counts live non-cutoff offers other than the caller's own (docs/spec/seed-tables.md). An
effective capacity of 0 means unlimited.

The gate (`gates.AvailabilityGate`, on prefetched data) and every writer's locked
re-check (`EventManager._assert_capacity` for RSVPs, `batch_ticket_service.capacity.
assert_event_capacity` for tickets and the box office) all end here, so both use the
same rule and answer with the same refusal. Everything here only reads: the writer
holds the Event row lock (`locks.lock_event_row` or `lock_event`) when it calls
`assert_capacity_locked`, which is what makes the numbers read authoritative.

Under the lock the check only decides (ADR 0022): one statement (`selectors.locked_check`)
and arithmetic. A refusal leaves as `RefusedUnderLock`, and the writer's caller reads the
answer's details (queue position, next batch, the user's zone and own offer) after the
rollback released the lock (`refusals_detailed_after_release`), so the next claimer does
not wait for them.
"""

import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from django.utils import timezone

from common import metrics
from common.timezones import get_zone
from events.core.eligibility.enums import NextStep, Reasons
from events.core.eligibility.refusals import EligibilityRefused
from events.core.eligibility.types import EventUserEligibility
from events.core.selectors.locked_check import LockedCheck, locked_check, refusal_details
from events.models import Event, Invitation
from events.waitlist.selectors.queue import QueueStanding


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
    """An invitation with `overrides_max_attendees`: the only capacity bypass (docs/spec/domain.md)."""
    return Invitation.objects.filter(
        event=event, user_id=user_id, overrides_max_attendees=True
    ).exists()


def seat_state_of(check: LockedCheck) -> SeatState:
    return SeatState(check.effective_capacity, check.attendee_count, check.held)


def assert_capacity_locked(
    event: Event,
    user_id: uuid.UUID,
    seats: int,
    *,
    now: datetime | None = None,
    check: LockedCheck | None = None,
) -> LockedCheck:
    """Refuse `seats` more seats unless the (locked) event has room for this user.

    Other users' live non-cutoff offers count as taken; the user's own offer does not.
    Under the lock this only decides: one statement (`locked_check`, unless the caller
    passes the one it read) and arithmetic. A refusal leaves as `RefusedUnderLock`,
    whose details (queue position, next batch, the user's zone and own offer) the
    writer's caller reads once the lock is released (`refusals_detailed_after_release`).
    Returns the check, whose rows tell the writer what to write.
    """
    now = now or timezone.now()
    check = check or locked_check(event.pk, user_id, now)
    state = seat_state_of(check)
    if check.overrides or state.has_room(seats):
        return check
    raise RefusedUnderLock.no_room(
        event, user_id, state, seats, on_waitlist=check.on_waitlist, now=now
    )


class RefusedUnderLock(EligibilityRefused):
    """A refusal decided under the Event lock, without the details that cost queries.

    Why: a refused claimer held the lock while its refusal was built (docs/spec/quality.md
    e1, ADR 0022; figures in docs/bench.md), and every other claimer of the event waited
    that long. The decision needs only the numbers; the rest of the answer can be read
    after the transaction. It is an `EligibilityRefused` with the decided reason, next
    step and status, so a caller that forgets to detail it still answers the right 409,
    only with fewer fields; `complete` reads the rest.
    """

    def __init__(
        self, decided: EventUserEligibility, complete: Callable[[], EventUserEligibility]
    ) -> None:
        super().__init__(decided)
        self.complete = complete

    @classmethod
    def no_room(
        cls,
        event: Event,
        user_id: uuid.UUID,
        state: SeatState,
        seats: int,
        *,
        on_waitlist: bool,
        now: datetime,
    ) -> "RefusedUnderLock":
        decided = availability_refusal(
            event, state, seats, standing=QueueStanding(on_waitlist), now=now
        )
        assert decided is not None

        def complete() -> EventUserEligibility:
            details = refusal_details(event.pk, user_id, now)
            detailed = replace(
                decided,
                waitlist_position=details.position if on_waitlist else None,
                next_batch_at=details.next_batch_at,
            )
            return detailed.as_seen_by(get_zone(details.timezone), details.own_offer_expires_at)

        return cls(decided, complete)


@contextmanager
def refusals_detailed_after_release() -> Iterator[None]:
    """Around a locked writer's transaction (outside it): a `RefusedUnderLock` that
    leaves it is completed here, after the rollback released the Event lock, and raised
    as the ordinary `EligibilityRefused` every client and test knows."""
    try:
        yield
    except RefusedUnderLock as decided:
        refusal = decided.complete()
        metrics.refused(refusal.reason_code)
        raise EligibilityRefused(refusal) from None
