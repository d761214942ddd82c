"""The body of `GET /event-admin/{event_id}/waitlist/stats` (docs/spec/api.md "Waitlist, second round")."""

from datetime import datetime

from ninja import Field, Schema

from events.core.schemas.durations import IsoDuration
from events.waitlist.selectors.stats import QUEUE_POINTS


class OfferOutcomesSchema(Schema):
    sent: int = Field(description="Offers ever made, cutoff ones included")
    claimed: int
    declined: int = Field(description="EXPIRED with declined_at")
    lapsed: int = Field(description="Any other EXPIRED (a holder leaving the queue included)")
    revoked: int = Field(description="REVOKED for any reason")


class QueuePointSchema(Schema):
    at: datetime
    length: int = Field(description="Queue entries at that moment, offer holders included")


class WaitlistStatsSchema(Schema):
    offers: OfferOutcomesSchema
    claim_rate: float | None = Field(
        description="claimed / (claimed + declined + lapsed), 0..1; null before any outcome"
    )
    median_time_to_claim: IsoDuration | None = Field(
        description="Median time from an offer's creation to its claim; null before a claim"
    )
    queue_length: list[QueuePointSchema] = Field(
        description=(
            f"The queue's length at each join and leave, the newest {QUEUE_POINTS} "
            "samples, oldest first"
        )
    )
