"""Who is in an event's queue: joining it, leaving it, staff removing a member.

Every path that removes a queue entry writes the member's PENDING offer first (a leave
expires it, a staff removal revokes it), lapsed ones included, then deletes the entry:
offer rows before the queue row, in the hourly sweep's order, so the two never deadlock,
and the entry's `post_delete` signal (`revoke_offer_of_removed_entry`) then finds nothing
left to do. Each locks the Event row first (docs/spec/domain.md lock order).
"""

import logging
import uuid
from dataclasses import dataclass
from datetime import datetime

from django.db import transaction
from django.utils import timezone

from accounts.models import User
from common.errors import InvalidInput, NotFound
from events.core.eligibility.enums import CAPACITY_REASON_CODES
from events.core.eligibility.pipeline import EligibilityService
from events.core.eligibility.refusals import EligibilityRefused
from events.core.services.locks import lock_event
from events.models import Event, EventWaitList, TicketTier, WaitlistOffer
from events.waitlist.errors import (
    AlreadyAttending,
    CapacityAvailable,
    PartyTooLarge,
    WaitlistClosed,
)
from events.waitlist.selectors import queue as waitlist_selectors
from events.waitlist.services.queue_samples import record_queue_length
from events.waitlist.services.triggering import enqueue_waitlist_processing

logger = logging.getLogger("encore.waitlist")

Status = WaitlistOffer.WaitlistOfferStatus


@dataclass(frozen=True)
class WaitlistJoin:
    event_id: uuid.UUID
    position: int | None
    joined_at: datetime
    created: bool
    party_size: int = 1
    tier_id: uuid.UUID | None = None


def join_waitlist(
    user: User, event: Event, *, party_size: int = 1, tier_id: uuid.UUID | None = None
) -> WaitlistJoin:
    """Queue the user and their party, checked in docs/spec/api.md's order; `created=False` when
    already queued (the entry keeps its party and tier).

    A party over the event's `waitlist_max_party_size` → 400 `party_too_large`; a tier on
    an RSVP event → 400 `invalid`, of another event → 404; waitlist not open →
    `waitlist_closed`; already attending (YES RSVP or a live ticket) → `already_attending`;
    already queued → the existing entry; could register the whole party now →
    `capacity_available` (for a tier: the event has room and so has the tier, net of the
    seats offers hold for it); refused by a gate other than capacity → that refusal.
    Only a capacity refusal (full, reserved, sold out) or a tier without room for the
    party lets the user in the queue. A new entry enqueues a processing pass: a seat may
    have freed between page load and click.
    """
    _check_party(event, party_size)
    tier = _tier_to_wait_for(event, tier_id)
    if not event.waitlist_open:
        raise WaitlistClosed()
    with transaction.atomic():
        event = lock_event(event.pk)
        if not event.waitlist_open:
            raise WaitlistClosed()
        _check_party(event, party_size)
        service = EligibilityService(user, event)
        ctx = service.context
        if ctx.holds_seat or ctx.active_ticket_count > 0:
            raise AlreadyAttending()
        existing = EventWaitList.objects.filter(event=event, user=user).first()
        if existing is not None:
            return WaitlistJoin(
                event.pk,
                ctx.waitlist_position,
                existing.created_at,
                False,
                existing.party_size,
                existing.tier_id,
            )
        eligibility = service.check_eligibility(seats=party_size)
        if eligibility.allowed and (tier is None or _tier_has_room(tier, party_size, user)):
            raise CapacityAvailable()
        if not eligibility.allowed and eligibility.reason_code not in CAPACITY_REASON_CODES:
            raise EligibilityRefused(eligibility)
        entry = EventWaitList.objects.create(
            event=event, user=user, party_size=party_size, tier=tier
        )
        record_queue_length(event.pk, entry.created_at)
        enqueue_waitlist_processing(event.pk)
        position = waitlist_selectors.queue_position(event.pk, user.pk, timezone.now())
    logger.info("waitlist joined", extra={"event_id": str(event.pk), "user_id": str(user.pk)})
    return WaitlistJoin(event.pk, position, entry.created_at, True, party_size, entry.tier_id)


def _check_party(event: Event, party_size: int) -> None:
    if party_size < 1:
        raise InvalidInput({"party_size": ["A party is at least one seat."]})
    if party_size > event.waitlist_max_party_size:
        raise PartyTooLarge(extra={"max_party_size": event.waitlist_max_party_size})


def _tier_to_wait_for(event: Event, tier_id: uuid.UUID | None) -> TicketTier | None:
    """Per-tier queues exist on ticketed events only; the tier must be this event's."""
    if tier_id is None:
        return None
    if not event.requires_ticket:
        raise InvalidInput({"tier_id": ["This event has no ticket tiers: queue for the event."]})
    tier = TicketTier.objects.filter(pk=tier_id, event=event).first()
    if tier is None:
        raise NotFound("Ticket tier not found.")
    return tier


def _tier_has_room(tier: TicketTier, party_size: int, user: User) -> bool:
    """Could the party buy this tier now: on sale, and its quantity net of the seats
    other members' offers hold for it still takes the party (read under the Event lock)."""
    tier.refresh_from_db()
    if not tier.is_on_sale(timezone.now()):
        return False
    if tier.remaining is None:
        return True
    held = waitlist_selectors.held_seats_for_tier(tier.event_id, tier.pk, exclude_user=user.pk)
    return tier.remaining - held >= party_size


def leave_waitlist(user: User, event: Event) -> None:
    """Leave the queue; a no-op when not on it, and allowed whatever the waitlist's state.

    A held offer is expired first and its seat handed on by a processing pass.
    """
    with transaction.atomic():
        event = lock_event(event.pk)
        released_offer = _expire_held_offer(event, user)
        deleted, _ = EventWaitList.objects.filter(event=event, user=user).delete()
        if deleted:
            record_queue_length(event.pk, timezone.now())
        if released_offer:
            enqueue_waitlist_processing(event.pk)
    if deleted:
        logger.info("waitlist left", extra={"event_id": str(event.pk), "user_id": str(user.pk)})


def _expire_held_offer(event: Event, user: User) -> bool:
    """Expire the user's PENDING offer before the entry goes; True when one was.

    Expiring (not revoking) first makes the entry's post_delete revoke a no-op, and the
    user leaves no soft-skip behind (docs/spec/waitlist-design.md, "Leaving the waitlist"). A lapsed offer
    the sweep has not reached yet is expired too: offer rows are written before the
    queue row, in the sweeper's order, so the two never deadlock.
    """
    now = timezone.now()
    released = WaitlistOffer.objects.filter(event=event, user=user, status=Status.PENDING).update(
        status=Status.EXPIRED, updated_at=now
    )
    return released > 0


def remove_entry(entry: EventWaitList) -> None:
    """Staff delete one queue entry of its event (idempotent: a vanished row is fine).

    The member's pending offer is revoked (`entry_deleted`, its seat handed on) before
    the entry is deleted.
    """
    with transaction.atomic():
        lock_event(entry.event_id)
        revoke_offer_of_removed_entry(entry.event_id, entry.user_id)
        EventWaitList.objects.filter(pk=entry.pk, event_id=entry.event_id).delete()
        record_queue_length(entry.event_id, timezone.now())
    logger.info(
        "waitlist entry removed by staff",
        extra={"event_id": str(entry.event_id), "entry_id": str(entry.pk)},
    )


def revoke_offer_of_removed_entry(event_id: uuid.UUID, user_id: uuid.UUID) -> int:
    """A queue entry going away takes its PENDING offer along (`entry_deleted`).

    The post_delete signal of `EventWaitList` calls it for every delete; services that
    remove entries call it first, so offer rows are written before the queue row (the
    sweeper's order: the two never deadlock) and the signal then finds nothing to do.
    A released seat goes to the next batch.
    """
    revoked = WaitlistOffer.objects.filter(
        event_id=event_id, user_id=user_id, status=Status.PENDING
    ).update(
        status=Status.REVOKED,
        revoked_reason=WaitlistOffer.RevokedReason.ENTRY_DELETED,
        updated_at=timezone.now(),
    )
    if revoked:
        enqueue_waitlist_processing(event_id)
    return revoked
