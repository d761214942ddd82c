"""A processing pass: the single place batches of offers are created (docs/spec/waitlist-design.md flowchart).

The pass locks the Event row, counts the free seats net of the seats live offers hold
(and, for a ticketed event, what its tiers on sale can still sell), and offers the next
members: a FIFO or lottery batch with the event's window, or after the cutoff one
all-hands batch that reserves nothing. A lottery pass (RSVP or ticketed, `lottery`,
`tier_lottery`) draws on the ring and records every draw. An offer holds its member's whole party
(`WaitlistOffer.seats`); who fits is `batch_planning` (the party rule `party_fit`, the
per-tier queues), the candidates are read by `selectors.waitlist_candidates`, and the
offers are written in one statement by `offer_batches`; when an offer is of use is
`useful_offers`.
"""

import logging
import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from django.db import transaction
from django.utils import timezone

from common import metrics
from events.core.services.locks import lock_event
from events.models import Event, TicketTier, WaitlistOffer
from events.waitlist.selectors import candidates as waitlist_candidates
from events.waitlist.selectors import queue as waitlist_selectors
from events.waitlist.services.batch_planning import (
    TIER_SERVING_ORDER,
    BatchPlan,
    plan_tier_batches,
)
from events.waitlist.services.lottery import create_lottery_batch
from events.waitlist.services.offer_batches import insert_cutoff_batch, insert_offers
from events.waitlist.services.tier_lottery import draw_tier_batches
from events.waitlist.services.triggering import (
    notify_offers_on_commit,
    schedule_offer_expiry,
)
from events.waitlist.services.useful_offers import offer_deadline, offers_are_useful

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


@transaction.atomic(savepoint=False)
def process_waitlist_for_event(event_id: uuid.UUID) -> WaitlistProcessingResult:
    """Create the next batch of offers for the event if seats are free (docs/spec/waitlist-design.md flowchart).

    Serialised per event by the Event row lock, so concurrent passes create one batch:
    everything is read after the lock, by statements that see what earlier passes
    committed. A FIFO pass of an RSVP event costs the lock, one read of the queue's
    head that also sums the held seats, and one INSERT, whatever the length of the
    queue (docs/spec/quality.md a1); a lottery pass reads the held seats on their own (a2); a
    ticketed event adds its tiers and one head per tier on sale.

    No savepoint when called inside a transaction (a decline, an expiry at the deadline):
    no caller recovers from a failed pass but by rolling its own work back with it, and
    the savepoint cost two of a pass's five round trips (docs/spec/quality.md a1).
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
    if event.waitlist_cutoff_date is not None and now >= event.waitlist_cutoff_date:
        return _cutoff_pass(event, room, now)
    if event.requires_ticket:
        return _ticketed_pass(event, room, now)
    if event.waitlist_lottery_mode:
        return _lottery_pass(event, room, now)
    return _rsvp_fifo_pass(event, room, now)


def _offers_left(event: Event) -> int | None:
    """Batch size counts offers, not seats; 0 is the open mode (no bound but the seats)."""
    return event.waitlist_batch_size or None


def _rsvp_fifo_pass(event: Event, room: int, now: datetime) -> WaitlistProcessingResult:
    """The common pass in three statements: the head is read with the held seats."""
    policy = event.waitlist_party_policy
    limit = waitlist_candidates.candidate_limit(
        seats=room, batch_size=_offers_left(event), policy=policy
    )
    held, head = waitlist_candidates.fifo_head_and_held(event.pk, now=now, limit=limit)
    if held is None:  # nobody selectable: only the status needs the held seats
        held = waitlist_selectors.held_seat_count(event.pk, now)
        return WaitlistProcessingResult("no_spots" if room - held <= 0 else "no_eligible_users")
    plan = BatchPlan(seats_left=room - held, offers_left=_offers_left(event))
    if plan.full:
        return WaitlistProcessingResult("no_spots")
    plan.take(head, seats=plan.seats_left, policy=policy, tier_id=None)
    return _write_batch(event, plan, now)


def _lottery_pass(event: Event, room: int, now: datetime) -> WaitlistProcessingResult:
    """An RSVP event's lottery: drawn on the ring from a recorded seed (ADR 0018).

    The held seats on their own, then one read of the ring and one write of the offers
    with their draw records (`lottery.create_lottery_batch`), whatever the queue's length
    (docs/spec/quality.md a2, a3).
    """
    seats = room - waitlist_selectors.held_seat_count(event.pk, now)
    if seats <= 0:
        return WaitlistProcessingResult("no_spots")
    # Open mode (size 0): no bound but the seats, and every offer takes one at least.
    size = event.waitlist_batch_size or seats
    batch_id = uuid.uuid4()
    expires_at = offer_deadline(event, now)
    batch = create_lottery_batch(
        event, size=size, seats=seats, batch_id=batch_id, expires_at=expires_at, now=now
    )
    return _created(event, batch.offer_ids, batch_id, cutoff=False, expires_at=expires_at)


def _ticketed_pass(event: Event, room: int, now: datetime) -> WaitlistProcessingResult:
    """Every tier's own queue first, then members queued for the whole event for the tiers
    nobody waits for (FIFO: `batch_planning`; lottery mode: `tier_lottery`, the same
    routing drawn)."""
    held_by_tier = waitlist_selectors.held_seats_by_tier(event.pk, now)
    held = sum(held_by_tier.values())
    tiers = _tiers_on_sale(event, now)
    available = room - held
    tickets_left = _tickets_left(tiers)
    if tickets_left is not None:
        available = min(available, tickets_left - held)
    plan = BatchPlan(seats_left=available, offers_left=_offers_left(event))
    if plan.full:
        return WaitlistProcessingResult("no_spots")
    if event.waitlist_lottery_mode:
        return _ticketed_lottery_pass(event, tiers, held_by_tier, available, now)
    fifo = waitlist_candidates.fifo_candidates
    plan_tier_batches(event, plan, tiers, held_by_tier, candidates=fifo, now=now)
    return _write_batch(event, plan, now)


def _ticketed_lottery_pass(
    event: Event,
    tiers: list[TicketTier],
    held_by_tier: dict[uuid.UUID | None, int],
    seats: int,
    now: datetime,
) -> WaitlistProcessingResult:
    """The tiers' routing with each queue's seats drawn on the ring and recorded (ADR 0018):
    one draw record per queue drawn, tier = the tier served; the result names the first."""
    expires_at = offer_deadline(event, now)
    batches = draw_tier_batches(
        event, tiers, held_by_tier, seats=seats, now=now, expires_at=expires_at
    )
    if not batches:
        return WaitlistProcessingResult("no_eligible_users")
    offer_ids = [offer_id for batch in batches for offer_id in batch.offer_ids]
    first = batches[0].draws[0].batch_id
    return _created(event, offer_ids, first, cutoff=False, expires_at=expires_at)


def _tiers_on_sale(event: Event, now: datetime) -> list[TicketTier]:
    return [
        tier
        for tier in TicketTier.objects.filter(event=event).order_by(*TIER_SERVING_ORDER)
        if tier.is_on_sale(now)
    ]


def _tickets_left(tiers: list[TicketTier]) -> int | None:
    """What the tiers on sale can still sell (None: an unlimited tier lifts the bound).

    An offer the holder cannot turn into a ticket is no use (seed-tables "Only useful
    offers"): for a ticketed event the tiers bound the batch as the event's capacity
    does, the seats already held counted against them too. No tier on sale: nothing.
    """
    left = 0
    for tier in tiers:
        if tier.remaining is None:
            return None
        left += tier.remaining
    return left


def _cutoff_pass(event: Event, room: int, now: datetime) -> WaitlistProcessingResult:
    """After the cutoff: one all-hands batch if any seat is free after the holds."""
    held = waitlist_selectors.held_seat_count(event.pk, now)
    available = room - held
    if event.requires_ticket:
        tickets_left = _tickets_left(_tiers_on_sale(event, now))
        if tickets_left is not None:
            available = min(available, tickets_left - held)
    if available <= 0:
        return WaitlistProcessingResult("no_spots")
    if WaitlistOffer.objects.filter(event=event, is_cutoff_batch=True).exists():
        return WaitlistProcessingResult("cutoff_already_processed")
    batch_id = uuid.uuid4()
    offer_ids = insert_cutoff_batch(event.pk, batch_id=batch_id, expires_at=event.start, now=now)
    return _created(event, offer_ids, batch_id, cutoff=True, expires_at=event.start)


def _write_batch(event: Event, plan: BatchPlan, now: datetime) -> WaitlistProcessingResult:
    """The planned offers in one INSERT, with the event's window."""
    if not plan.offers:
        return WaitlistProcessingResult("no_eligible_users")
    batch_id = uuid.uuid4()
    expires_at = offer_deadline(event, now)
    offer_ids = insert_offers(
        event.pk,
        [(offer.candidate, offer.tier_id) for offer in plan.offers],
        batch_id=batch_id,
        expires_at=expires_at,
        now=now,
    )
    return _created(event, offer_ids, batch_id, cutoff=False, expires_at=expires_at)


def _created(
    event: Event,
    offer_ids: list[uuid.UUID],
    batch_id: uuid.UUID,
    *,
    cutoff: bool,
    expires_at: datetime,
) -> WaitlistProcessingResult:
    if not offer_ids:
        return WaitlistProcessingResult("no_eligible_users")
    notify_offers_on_commit(offer_ids)
    schedule_offer_expiry(event.pk, expires_at)
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
