"""The one capacity rule, shared by the gate (prefetched data) and the locked checks.

Seed 000: pending waitlist offers hold seats. A registration of `requested` seats
passes iff `attendee_count + held + requested <= effective_capacity`, where `held`
counts live non-cutoff offers other than the caller's own (seed-tables.md). An
effective capacity of 0 means unlimited.
"""

import uuid
from dataclasses import dataclass

from django.utils import timezone

from events.models import Event
from events.selectors import waitlist as waitlist_selectors


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
    """Live, non-cutoff waitlist offers of other users for this event (one COUNT).

    The caller's own offer is a seat reserved *for* them, so it is netted out; a cutoff
    offer never reserves, so nobody's cutoff offer counts (seed 000, domain.md fix).
    """
    held = waitlist_selectors.held_offers(event_id, timezone.now())
    if excluding_user_id is not None:
        held = held.exclude(user_id=excluding_user_id)
    return held.count()


def locked_seat_state(event: Event, user_id: uuid.UUID | None) -> SeatState:
    """Seat state of an event whose row the caller has locked (the authoritative check)."""
    return SeatState(
        effective_capacity=event.effective_capacity,
        attendee_count=event.attendee_count,
        held=held_offer_count(event.pk, user_id) if event.effective_capacity else 0,
    )
