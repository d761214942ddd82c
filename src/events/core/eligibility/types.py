"""The pipeline's answer, as the API returns it."""

import uuid
from dataclasses import asdict, dataclass, replace
from datetime import datetime, tzinfo
from typing import Any

from events.core.eligibility.enums import NextStep, Reasons


@dataclass(frozen=True)
class EventUserEligibility:
    allowed: bool
    event_id: uuid.UUID
    reason: str | None = None
    reason_code: str | None = None
    next_step: str | None = None
    pending_offers_count: int | None = None
    next_batch_at: datetime | None = None
    waitlist_position: int | None = None
    active_offer_expires_at: datetime | None = None

    @classmethod
    def refuse(
        cls, event_id: uuid.UUID, reason: Reasons, next_step: NextStep | None = None, **extra: Any
    ) -> "EventUserEligibility":
        return cls(
            allowed=False,
            event_id=event_id,
            reason=str(reason),
            reason_code=reason.code,
            next_step=str(next_step) if next_step else None,
            **extra,
        )

    def as_seen_by(
        self, zone: tzinfo | None, own_offer_expires_at: datetime | None
    ) -> "EventUserEligibility":
        """A refusal as the user reads it: their own live offer still counting down (a
        cutoff offer on a full event is refused, yet still an offer) and `next_batch_at`
        in their timezone (seed-tables); a visitor has no zone, and reads UTC."""
        next_batch_at = self.next_batch_at
        if next_batch_at is not None and zone is not None:
            next_batch_at = next_batch_at.astimezone(zone)
        return replace(
            self, next_batch_at=next_batch_at, active_offer_expires_at=own_offer_expires_at
        )

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)
