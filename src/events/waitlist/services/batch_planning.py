"""Who a batch goes to: the queues in their order, each party whole, per-tier seats first.

A processing pass knows how many seats it may offer (`available`: the event's free
seats net of what live offers hold, bounded by what the tiers on sale can still sell)
and how many offers (`batch_size`, 0 = no bound but the seats). This module turns that
into the list of offers to write, reading bounded heads of the queues
(`selectors.waitlist_candidates`) and deciding with the one party rule
(`party_fit.fit_batch`), so each decision is made in one place:

- RSVP events have one queue: the batch is its head, parties fitted to the seats.
- Ticketed events serve in two rounds over the tiers on sale, each round in the tiers'
  serving order (`TIER_SERVING_ORDER`: the order the event page lists them). First every
  tier's own queue takes the tier's seats (its remaining quantity net of the offers held
  for it, within the event's seats); then members queued for the whole event take the
  seats of the tiers nobody waits for. A freed VIP seat therefore never goes to a
  whole-event member through another tier while a VIP fan waits. Every offer names the
  tier whose seats it holds, so a checkout of that tier by anyone else counts the hold.

The planner holds no lock and writes nothing: the caller holds the Event row lock and
inserts the offers (`offer_batches`).
"""

import uuid
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Protocol

from events.models import Event, TicketTier
from events.waitlist.selectors.candidates import Candidate, candidate_limit
from events.waitlist.services.party_fit import fit_batch

#: The order tiers are served in within each round: the order the event page lists them
#: (cheapest first, then by name, unique within an event; ADR 0033). Never the key order,
#: which is random for UUIDs.
TIER_SERVING_ORDER = ("price", "name")


class CandidatesFunction(Protocol):
    """The shape of a candidates function (FIFO; a ticketed lottery draws in `tier_lottery`)."""

    def __call__(
        self,
        event_id: uuid.UUID,
        *,
        now: datetime,
        limit: int,
        tier_id: uuid.UUID | None = None,
        any_tier: bool = False,
    ) -> list[Candidate]: ...


@dataclass(frozen=True)
class PlannedOffer:
    candidate: Candidate
    #: The tier whose seats the offer holds (None on RSVP events).
    tier_id: uuid.UUID | None


@dataclass
class BatchPlan:
    """Offers decided so far, with the seats and offers still left to give."""

    seats_left: int
    offers_left: int | None  # None: open mode, no bound but the seats
    offers: list[PlannedOffer] = field(default_factory=list)

    @property
    def full(self) -> bool:
        return self.seats_left <= 0 or self.offers_left == 0

    @property
    def chosen_entries(self) -> set[uuid.UUID]:
        return {offer.candidate.entry_id for offer in self.offers}

    def take(
        self, candidates: Iterable[Candidate], *, seats: int, policy: str, tier_id: uuid.UUID | None
    ) -> int:
        """Fit `candidates` into `seats` (at most what is left); returns the seats taken."""
        seats = min(seats, self.seats_left)
        picked = fit_batch(
            ((c, c.party_size) for c in candidates),
            seats=seats,
            batch_size=self.offers_left,
            policy=policy,
        )
        taken = sum(c.party_size for c in picked)
        self.offers += [PlannedOffer(c, tier_id) for c in picked]
        self.seats_left -= taken
        if self.offers_left is not None:
            self.offers_left -= len(picked)
        return taken


def plan_tier_batches(
    event: Event,
    plan: BatchPlan,
    tiers: list[TicketTier],
    held_by_tier: dict[uuid.UUID | None, int],
    *,
    candidates: CandidatesFunction,
    now: datetime,
) -> BatchPlan:
    """Every tier's own queue first, then the whole-event queue for the tiers nobody
    waits for; `tiers` come in `TIER_SERVING_ORDER`."""
    policy = event.waitlist_party_policy
    unclaimed: list[TicketTier] = []
    for tier in tiers:
        seats = _tier_seats(tier, held_by_tier, plan)
        if plan.full or seats <= 0:
            continue
        limit = candidate_limit(seats=seats, batch_size=plan.offers_left, policy=policy)
        own = candidates(event.pk, now=now, limit=limit, tier_id=tier.pk)
        taken = plan.take(own, seats=seats, policy=policy, tier_id=tier.pk)
        held_by_tier[tier.pk] = held_by_tier.get(tier.pk, 0) + taken
        if not own:
            unclaimed.append(tier)
        # Otherwise the tier's queue has somebody selectable: its seats wait for them
        # (strict) or went to them (fill); whole-event members get none of them.
    for tier in unclaimed:
        seats = _tier_seats(tier, held_by_tier, plan)
        if plan.full or seats <= 0:
            continue
        taken = _whole_event_members_take(event, plan, tier, seats, candidates=candidates, now=now)
        held_by_tier[tier.pk] = held_by_tier.get(tier.pk, 0) + taken
    return plan


def _tier_seats(
    tier: TicketTier, held_by_tier: dict[uuid.UUID | None, int], plan: BatchPlan
) -> int:
    """The tier's seats free for offers: its remaining quantity less what offers for it
    hold, within the event's seats left (an unlimited tier: the event's seats)."""
    if tier.remaining is None:
        return plan.seats_left
    return min(plan.seats_left, tier.remaining - held_by_tier.get(tier.pk, 0))


def _whole_event_members_take(
    event: Event,
    plan: BatchPlan,
    tier: TicketTier,
    seats: int,
    *,
    candidates: CandidatesFunction,
    now: datetime,
) -> int:
    """Members queued for the whole event take the tier's seats nobody waits for.

    The same member can be the head for several tiers of one pass: those already chosen
    are read past (the limit grows by as many) and skipped.
    """
    policy = event.waitlist_party_policy
    chosen = plan.chosen_entries
    limit = candidate_limit(seats=seats, batch_size=plan.offers_left, policy=policy)
    head = candidates(event.pk, now=now, limit=limit + len(chosen))
    fresh = [c for c in head if c.entry_id not in chosen]
    return plan.take(fresh, seats=seats, policy=policy, tier_id=tier.pk)
