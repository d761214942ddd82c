"""The organiser's waitlist statistics: what became of the offers, and the queue over time.

Definitions are docs/spec/api.md's ("Second round: precise points"): `sent` counts every offer
ever made (cutoff ones included); `declined` is EXPIRED with `declined_at`, `lapsed` any
other EXPIRED (leaving while holding one included), `revoked` REVOKED for any reason;
live (PENDING) offers are in `sent` only. `claim_rate` = claimed ÷ (claimed + declined +
lapsed), null before any outcome. Three queries whatever the history: one grouped count,
the claim durations (one row per claimed offer, so at most the seats ever filled from the
queue), and the latest samples of the queue's length (`QUEUE_POINTS`, oldest first).
"""

import statistics
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db.models import Count, Q

from events.models import WaitlistOffer, WaitlistQueueSample

Status = WaitlistOffer.WaitlistOfferStatus

#: The chart and the API show at most this many of the newest samples.
QUEUE_POINTS = 200


@dataclass(frozen=True)
class OfferOutcomes:
    sent: int
    claimed: int
    declined: int
    lapsed: int
    revoked: int


@dataclass(frozen=True)
class QueuePoint:
    at: datetime
    length: int


@dataclass(frozen=True)
class WaitlistStats:
    offers: OfferOutcomes
    claim_rate: float | None
    median_time_to_claim: timedelta | None
    queue_length: list[QueuePoint]


def waitlist_stats(event_id: uuid.UUID) -> WaitlistStats:
    offers = WaitlistOffer.objects.filter(event_id=event_id)
    expired = Q(status=Status.EXPIRED)
    counts = offers.aggregate(
        sent=Count("pk"),
        claimed=Count("pk", filter=Q(status=Status.CLAIMED)),
        declined=Count("pk", filter=expired & Q(declined_at__isnull=False)),
        lapsed=Count("pk", filter=expired & Q(declined_at__isnull=True)),
        revoked=Count("pk", filter=Q(status=Status.REVOKED)),
    )
    outcomes = OfferOutcomes(**{name: int(value) for name, value in counts.items()})
    decided = outcomes.claimed + outcomes.declined + outcomes.lapsed
    return WaitlistStats(
        offers=outcomes,
        claim_rate=outcomes.claimed / decided if decided else None,
        median_time_to_claim=_median_time_to_claim(event_id),
        queue_length=queue_length(event_id),
    )


def _median_time_to_claim(event_id: uuid.UUID) -> timedelta | None:
    """From the offer's creation to its claim (a reactivated offer counts from creation)."""
    pairs = WaitlistOffer.objects.filter(
        event_id=event_id, status=Status.CLAIMED, claimed_at__isnull=False
    ).values_list("created_at", "claimed_at")
    waits = [(claimed - created).total_seconds() for created, claimed in pairs if claimed]
    if not waits:
        return None
    return timedelta(seconds=round(statistics.median(waits)))


def queue_length(event_id: uuid.UUID, points: int = QUEUE_POINTS) -> list[QueuePoint]:
    """The newest `points` samples, oldest first (read backwards along the index)."""
    newest = (
        WaitlistQueueSample.objects.filter(event_id=event_id)
        .order_by("-at", "-id")
        .values_list("at", "length")[:points]
    )
    return [QueuePoint(at, length) for at, length in reversed(list(newest))]
