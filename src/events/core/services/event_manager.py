"""`EventManager`: RSVPs, the registration path of RSVP events.

Every write locks the Event row first (docs/spec/domain.md lock order), re-checks capacity under
the lock with the same rule the gate used, moves `attendee_count` in the same
transaction, and leaves side effects (waitlist processing) for after the commit.
"""

import uuid
from datetime import datetime

from django.db import transaction
from django.utils import timezone

from common import metrics
from common.errors import InvalidInput
from events.core.eligibility import capacity
from events.core.eligibility.enums import Reasons
from events.core.eligibility.pipeline import EligibilityService
from events.core.eligibility.refusals import EligibilityRefused
from events.core.eligibility.types import EventUserEligibility
from events.core.models.rsvp import RSVP_GUESTS_MAX
from events.core.selectors.locked_check import LockedCheck, locked_check
from events.core.services import claim_function, claim_statements, event_notifications
from events.core.services.locks import adjust_attendee_count, lock_event, lock_event_row
from events.models import Event, EventRSVP
from events.waitlist import services as waitlist_service

YES = EventRSVP.Status.YES


class EventManager:
    def __init__(self, user: object, event: Event) -> None:
        self.user = user
        self.event = event

    @property
    def user_id(self) -> uuid.UUID:
        return self.user.pk  # type: ignore[attr-defined]

    # -- reads ----------------------------------------------------------------------
    def check_eligibility(self, *, seats: int = 1) -> EventUserEligibility:
        return EligibilityService(self.user, self.event).check_eligibility(seats=seats)

    # -- RSVP -----------------------------------------------------------------------
    def rsvp(self, answer: str, *, by_staff: bool = False, guests: int | None = None) -> EventRSVP:
        """Answer yes/no/maybe. A YES takes `1 + guests` seats; YES → other frees them.

        `guests=None` keeps an existing YES's guests (0 for a new one). A later YES
        with a different `guests` moves the seats by the difference: more
        guests are capacity-checked for the extra seats only, fewer free the rest. A
        party's offer is claimed by any YES (fewer seats than it holds release the rest;
        more need free room for the difference, since the holder's own offer is netted
        out of the held seats). `by_staff` (an organiser answering for the user) skips
        the eligibility gates but never the locked capacity check: no path oversells.
        """
        if self.event.requires_ticket:
            raise EligibilityRefused(
                EventUserEligibility.refuse(self.event.pk, Reasons.REQUIRES_TICKET)
            )
        if guests is not None and not 0 <= guests <= RSVP_GUESTS_MAX:
            raise InvalidInput({"guests": [f"Between 0 and {RSVP_GUESTS_MAX}."]})
        if answer != YES:
            guests = 0
        if not by_staff:
            seats = 1 + (guests or 0) if answer == YES else 0
            eligibility = self.check_eligibility(seats=seats)
            if not eligibility.allowed:
                metrics.refused(eligibility.reason_code)
                raise EligibilityRefused(eligibility)
        with capacity.refusals_detailed_after_release():
            if answer == YES and claim_function.usable():
                # The hot claim in one statement (ADR 0022); an existing RSVP says None.
                now = timezone.now()
                rsvp = claim_function.claim_new_rsvp(self.event, self.user_id, guests or 0, now)
                if rsvp is not None:
                    return rsvp
            return self._write_rsvp(answer, guests)

    @transaction.atomic
    def _write_rsvp(self, answer: str, guests: int | None = None) -> EventRSVP:
        """The locked part: lock, one read (`locked_check`), arithmetic, compiled writes.

        Everything that can happen before the lock (the gates) or after the commit
        (notifications, a refusal's details) does; what is left is what the seat
        arithmetic needs (ADR 0022). Seats are counted, never assumed to be 1: a YES
        takes `1 + guests`, and only the difference to the current answer is checked.
        `guests=None` keeps the guests of a standing YES.
        """
        now = timezone.now()
        lock_event_row(self.event.pk)
        check = locked_check(self.event.pk, self.user_id, now)
        if guests is None:
            guests = check.rsvp_seats - 1 if check.rsvp_status == YES else 0
        seats = 1 + guests if answer == YES else 0
        delta = seats - check.rsvp_seats
        if delta > 0:
            self._assert_capacity(delta, check, now)
        if check.rsvp_id is None:
            rsvp = claim_statements.insert_rsvp(self.event, self.user_id, answer, guests, now)
        else:
            rsvp = EventRSVP.objects.select_for_update(of=("self",)).get(pk=check.rsvp_id)
            rsvp.status, rsvp.guests = answer, guests
            rsvp.save(update_fields=["status", "guests", "updated_at"])
        self.event.attendee_count = check.attendee_count
        adjust_attendee_count(self.event, delta)
        if answer == YES and check.rsvp_status != YES:
            self._claim_active_offer(check, now)
        elif delta < 0:
            waitlist_service.enqueue_waitlist_processing(self.event.pk)
        event_notifications.notify_rsvp_answered(self.event.pk, self.user_id, answer)  # on commit
        return rsvp

    @transaction.atomic
    def delete_rsvp(self, rsvp_id: uuid.UUID) -> None:
        """Staff removes an RSVP; a YES frees its seats (the attendee and their guests)."""
        event = lock_event(self.event.pk)
        rsvp = EventRSVP.objects.select_for_update(of=("self",)).get(pk=rsvp_id, event=event)
        if rsvp.seats:
            adjust_attendee_count(event, -rsvp.seats)
            waitlist_service.enqueue_waitlist_processing(event.pk)
        rsvp.delete()

    # -- locked checks and bookkeeping ---------------------------------------------------
    def _assert_capacity(self, seats: int, check: LockedCheck, now: datetime) -> None:
        """The authoritative check, under the Event lock: same rule and reasons as the gate
        (a refusal leaves as `RefusedUnderLock`, detailed after the rollback)."""
        capacity.assert_capacity_locked(self.event, self.user_id, seats, now=now, check=check)

    def _claim_active_offer(self, check: LockedCheck, now: datetime) -> None:
        """Claim the user's live offer (PENDING → CLAIMED), leave the queue, nudge (docs/spec/waitlist-design.md)."""
        waitlist_service.claim_offer_for_registration(
            self.event, self.user_id, check=check, now=now
        )
