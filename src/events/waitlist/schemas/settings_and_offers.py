"""Bodies of the advanced waitlist's admin routes: its settings and its offers (docs/spec/waitlist-design.md).

`WaitlistSettingsSchema` is the single source of truth for the configuration form: the
seven Event fields with their defaults (docs/spec/seed-tables.md "Defaults"), durations as ISO 8601
(`PT2H`). It is both the GET answer and the PATCH body; on PATCH only the fields sent
change (`model_dump(exclude_unset=True)`). The schema checks shapes and types (a
violation is a 422); the values are checked by `Event.clean()` (window 1 h..7 d, a
cutoff needs a window and lies strictly before the start: a 400 `invalid`), so the form
and the event PATCH refuse the same things.
"""

import uuid
from datetime import datetime
from typing import Any, Literal

from ninja import Field, Schema
from pydantic import ConfigDict, StrictBool

from common.http.fields import Instant
from events.core.models.event import WAITLIST_PARTY_MAX
from events.core.schemas.durations import IsoDuration
from events.core.schemas.event_admin import Count, EventTime, UserRefSchema


class WaitlistSettingsSchema(Schema):
    """The configuration form of the active waitlist; the defaults are a new event's."""

    model_config = ConfigDict(extra="forbid")

    waitlist_open: StrictBool = Field(
        default=False, description="Master switch of the queue; closing it revokes pending offers."
    )
    waitlist_time_window: IsoDuration | None = Field(
        default=None,
        description="ISO 8601 duration (PT2H), 1 hour .. 7 days; null = legacy passive queue.",
    )
    waitlist_batch_size: Count = Field(
        default=0, description="Users offered a seat per round; 0 = everyone up to the free seats."
    )
    waitlist_cutoff_date: EventTime | None = Field(
        default=None,
        description="After it, one all-hands batch expiring at the start; needs a window "
        "and lies strictly before the start.",
    )
    waitlist_lottery_mode: StrictBool = Field(
        default=False, description="Draw each batch at random instead of taking the queue's head."
    )
    waitlist_max_party_size: int = Field(
        default=1,
        description=f"Largest party one member may queue for, 1..{WAITLIST_PARTY_MAX} seats.",
    )
    waitlist_party_policy: Literal["strict", "fill"] = Field(
        default="strict",
        description="strict: the queue waits until the head's party fits; fill: smaller "
        "parties behind take seats the head's party cannot use (the head keeps its place).",
    )

    def service_data(self) -> dict[str, Any]:
        """The fields sent (PATCH): an explicit null clears the window or the cutoff."""
        return {name: getattr(self, name) for name in self.model_fields_set}


class OfferSchema(Schema):
    """An offer as organisers see it (docs/spec/api.md "Offer schema", plus `revoked_reason`)."""

    id: uuid.UUID
    event_id: uuid.UUID
    user: UserRefSchema
    status: str
    expires_at: datetime
    claimed_at: datetime | None
    notified_at: datetime | None
    batch_id: uuid.UUID
    is_cutoff_batch: bool
    seats: int = Field(description="Seats the offer holds: the member's party.")
    tier_id: uuid.UUID | None = Field(
        description="The ticket tier whose seats it holds; null = any (or an RSVP event)."
    )
    declined_at: datetime | None = Field(
        description="When the holder declined it (then EXPIRED; they stayed queued)."
    )
    created_at: datetime
    revoked_reason: str = Field(
        "",
        description="organizer | event_cancelled | waitlist_closed | entry_deleted; "
        "empty unless revoked.",
    )


class OfferCreateSchema(Schema):
    model_config = ConfigDict(extra="forbid")

    waitlist_entry_id: uuid.UUID
    expires_at: Instant | None = Field(
        default=None,
        description="Defaults to now + the waitlist time window (required without one).",
    )


class OfferReactivateSchema(Schema):
    model_config = ConfigDict(extra="forbid")

    expires_at: Instant | None = Field(
        default=None,
        description="Defaults to now + the waitlist time window (required without one).",
    )
