"""The pipeline's answer, as the API returns it."""

import uuid
from dataclasses import asdict, dataclass, replace
from datetime import datetime, tzinfo
from typing import Any

from events.service.event_manager.enums import NextStep, Reasons


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

    def in_zone(self, zone: tzinfo) -> "EventUserEligibility":
        """`next_batch_at` as the user reads it: in their own timezone (seed-tables)."""
        if self.next_batch_at is None:
            return self
        return replace(self, next_batch_at=self.next_batch_at.astimezone(zone))

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)
