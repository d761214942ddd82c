"""A ticketed event's lottery pass: the per-tier routing of a FIFO pass, drawn on the ring.

A ticketed pass serves the tiers on sale in two rounds (`batch_planning`, ADR 0033):
first every tier's own queue takes the tier's seats, then members queued for the whole
event take the seats of the tiers nobody waits for, each round in the tiers' serving
order. In lottery mode the same routing holds, but who is offered within a queue is a
provable draw (ADR 0018), never `ORDER BY random()`: each queue read is its own draw on
the ring, with its own seed and `WaitlistDraw` (tier = the tier whose seats it gave), so
every record replays on its own with `lottery.replay_draw`.

Kept out of `lottery.py` (the algorithm and its record) and `batch_planning.py` (the
FIFO planner over a bounded head): this module only decides which queue a tier's seats
are drawn from and how many seats and offers each draw may give. The caller holds the
Event lock; one ring read per queue drawn and one write for the whole pass, whatever
the queue's length.
"""

import uuid
from dataclasses import dataclass, field
from datetime import datetime

from events.models import Event, TicketTier
from events.waitlist.selectors.lottery import WHOLE_EVENT_MEMBERS, RingQueue, tier_queue
from events.waitlist.services.lottery import (
    LotteryBatch,
    draw_lottery_batch,
    write_lottery_batches,
)


def draw_tier_batches(
    event: Event,
    tiers: list[TicketTier],
    held_by_tier: dict[uuid.UUID | None, int],
    *,
    seats: int,
    now: datetime,
    expires_at: datetime,
) -> list[LotteryBatch]:
    """Draw the tiers' seats (own queues first, then the whole-event queue for the tiers
    nobody waits for) and write every offer and record at once.

    `seats`: what the pass may offer in all (the event's free seats net of the holds,
    bounded by what the tiers can still sell). The batch size counts offers across the
    whole pass, as a FIFO pass does (0: open mode, no bound but the seats).
    """
    pass_ = _LotteryPass(event, held_by_tier, seats, event.waitlist_batch_size or None)
    unclaimed = []
    for tier in tiers:
        batch = pass_.draw(tier, now, expires_at, tier_queue(tier.pk))
        if batch is not None and not batch.found:
            unclaimed.append(tier)
    for tier in unclaimed:
        # A member chosen for an earlier tier of this pass is read past.
        pass_.draw(tier, now, expires_at, WHOLE_EVENT_MEMBERS, exclude=frozenset(pass_.chosen))
    write_lottery_batches(pass_.batches, event_id=event.pk, expires_at=expires_at, now=now)
    return [batch for batch in pass_.batches if batch.offers]


@dataclass
class _LotteryPass:
    """The seats and offers a ticketed lottery pass has left, and what it drew so far."""

    event: Event
    held_by_tier: dict[uuid.UUID | None, int]
    seats: int
    offers_left: int | None
    batches: list[LotteryBatch] = field(default_factory=list)
    chosen: set[uuid.UUID] = field(default_factory=set)

    def draw(
        self,
        tier: TicketTier,
        now: datetime,
        expires_at: datetime,
        queue: RingQueue,
        *,
        exclude: frozenset[uuid.UUID] = frozenset(),
    ) -> LotteryBatch | None:
        """Draw `queue` for the tier's free seats; None when the pass or the tier has none."""
        if self.seats <= 0 or self.offers_left == 0:
            return None
        tier_seats = _tier_seats(tier, self.held_by_tier, self.seats)
        if tier_seats <= 0:
            return None
        draw = _TierDraw(self.event, tier, tier_seats, self.offers_left, now, expires_at)
        batch = draw.of(queue, exclude=exclude)
        self.batches.append(batch)
        self.chosen.update(offer.user_id for offer in batch.offers)
        self.seats -= batch.seats
        self.held_by_tier[tier.pk] = self.held_by_tier.get(tier.pk, 0) + batch.seats
        if self.offers_left is not None:
            self.offers_left -= len(batch.offers)
        return batch


def _tier_seats(tier: TicketTier, held_by_tier: dict[uuid.UUID | None, int], seats: int) -> int:
    """The tier's remaining quantity less what offers for it hold, within the pass's seats
    (an unlimited tier: the pass's seats), as `batch_planning._tier_seats` counts them."""
    if tier.remaining is None:
        return seats
    return min(seats, tier.remaining - held_by_tier.get(tier.pk, 0))


@dataclass(frozen=True)
class _TierDraw:
    """What every draw for one tier's seats shares; `of` draws one queue for them."""

    event: Event
    tier: TicketTier
    seats: int
    offers_left: int | None
    now: datetime
    expires_at: datetime

    def of(self, queue: RingQueue, *, exclude: frozenset[uuid.UUID] = frozenset()) -> LotteryBatch:
        # Open mode: no bound but the seats, and every offer takes one seat at least.
        return draw_lottery_batch(
            self.event,
            size=self.offers_left if self.offers_left is not None else self.seats,
            seats=self.seats,
            batch_id=uuid.uuid4(),
            expires_at=self.expires_at,
            now=self.now,
            queue=queue,
            tier_id=self.tier.pk,
            exclude=exclude,
        )
