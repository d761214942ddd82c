"""A processing pass: the single place batches of offers are created (seed 000 flowchart).

The pass locks the Event row, counts the free seats net of the seats live offers hold
(and, for a ticketed event, what its tiers on sale can still sell), and offers the next
members: a FIFO or lottery batch with the event's window, or after the cutoff one
all-hands batch that reserves nothing. The statement that picks the members and writes
their offers is `offer_batches`; when an offer is of use is `useful_offers`.
"""

import logging
import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from django.db import transaction
from django.utils import timezone

from common import metrics
from events.models import Event, TicketTier, WaitlistOffer
from events.selectors import waitlist as waitlist_selectors
from events.service.locks import lock_event
from events.service.waitlist_service.lottery import create_lottery_batch
from events.service.waitlist_service.offer_batches import Draw, insert_offer_batch
from events.service.waitlist_service.triggering import notify_offers_on_commit
from events.service.waitlist_service.useful_offers import offer_deadline, offers_are_useful

logger = logging.getLogger("encore.waitlist")

ProcessingStatus = Literal[
    "disabled", "no_spots", "cutoff_already_processed", "no_eligible_users", "ok"
]


@dataclass(frozen=True)
class WaitlistProcessingResult:
    status: ProcessingStatus
    offers_created: int = 0
    batch_id: uuid.UUID | None = None
    is_cutoff_batch: bool = False


@transaction.atomic
def process_waitlist_for_event(event_id: uuid.UUID) -> WaitlistProcessingResult:
    """Create the next batch of offers for the event if seats are free (seed 000 flowchart).

    Serialised per event by the Event row lock, so concurrent passes create one batch:
    everything is read after the lock, by statements that see what earlier passes
    committed. Any pass costs the lock, one count of the held seats (and, for a
    ticketed event, one read of its tiers) and one INSERT ... SELECT that picks the
    members, whatever the length of the queue (quality.md a1, a2).
    """
    try:
        event = lock_event(event_id)
    except Event.DoesNotExist:
        return WaitlistProcessingResult("disabled")
    now = timezone.now()
    if not offers_are_useful(event, now):
        return WaitlistProcessingResult("disabled")
    room = event.effective_capacity - event.attendee_count  # reservations not yet netted
    if room <= 0:
        return WaitlistProcessingResult("no_spots")
    held = waitlist_selectors.held_seat_count(event.pk, now)
    available = room - held
    tickets_left = _tickets_left(event, now)
    if tickets_left is not None:
        available = min(available, tickets_left - held)
    if available <= 0:
        return WaitlistProcessingResult("no_spots")
    if event.waitlist_cutoff_date is not None and now >= event.waitlist_cutoff_date:
        return _create_cutoff_batch(event, now)
    return _create_batch(
        event,
        "lottery" if event.waitlist_lottery_mode else "fifo",
        size=_batch_size(event, available),
        expires_at=offer_deadline(event, now),
        now=now,
        seats=available,
    )


def _tickets_left(event: Event, now: datetime) -> int | None:
    """What the tiers on sale can still sell (None: no such bound, or an unlimited tier).

    An offer the holder cannot turn into a ticket is no use (seed-tables "Only useful
    offers"): for a ticketed event the tiers bound the batch as the event's capacity
    does, the seats already held counted against them too. No tier on sale: nothing.
    """
    if not event.requires_ticket:
        return None
    left = 0
    for tier in TicketTier.objects.filter(event=event):
        if not tier.is_on_sale(now):
            continue
        if tier.remaining is None:
            return None
        left += tier.remaining
    return left


def _batch_size(event: Event, available: int) -> int:
    """Batch size 0 is the open mode: everyone up to the free seats."""
    size = event.waitlist_batch_size
    return available if size == 0 else min(size, available)


def _create_cutoff_batch(event: Event, now: datetime) -> WaitlistProcessingResult:
    """One all-hands batch after the cutoff, expiring at the start; it reserves nothing."""
    if WaitlistOffer.objects.filter(event=event, is_cutoff_batch=True).exists():
        return WaitlistProcessingResult("cutoff_already_processed")
    return _create_batch(event, "cutoff", size=None, expires_at=event.start, now=now)


def _create_batch(
    event: Event,
    draw: Draw,
    *,
    size: int | None,
    expires_at: datetime,
    now: datetime,
    seats: int | None = None,
) -> WaitlistProcessingResult:
    """Offers for the first `size` selectable members in the draw's order, in one statement.

    A lottery batch is drawn on the ring and recorded with its seed (`lottery`, ADR 0018).
    """
    batch_id = uuid.uuid4()
    if draw == "lottery" and size is not None and seats is not None:
        offer_ids = create_lottery_batch(
            event, size=size, seats=seats, batch_id=batch_id, expires_at=expires_at, now=now
        ).offer_ids
    else:
        offer_ids = insert_offer_batch(
            event.pk, draw, size=size, batch_id=batch_id, expires_at=expires_at, now=now
        )
    if not offer_ids:
        return WaitlistProcessingResult("no_eligible_users")
    cutoff = draw == "cutoff"
    notify_offers_on_commit(offer_ids)
    metrics.count(metrics.OFFERS_CREATED, len(offer_ids), kind="cutoff" if cutoff else "batch")
    logger.info(
        "waitlist batch created",
        extra={
            "event_id": str(event.pk),
            "batch_id": str(batch_id),
            "offers": len(offer_ids),
            "cutoff": cutoff,
        },
    )
    return WaitlistProcessingResult("ok", len(offer_ids), batch_id, cutoff)
