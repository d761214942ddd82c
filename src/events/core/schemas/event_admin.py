"""Bodies of the event administration routes (create, PATCH, RSVPs, invitations).

Request schemas check shapes and types (a violation is a 422); the services check
values against the model (`Event.clean()`: schedule, waitlist window 1 h..7 d, cutoff
before start, venue of the organisation; a violation is a 400 `invalid`). PATCH bodies
forbid unknown fields, so a typo never turns into a silent no-op, and only the fields
sent change (`model_dump(exclude_unset=True)`); an explicit `null` clears a nullable
field and is refused (400) for a required one.
"""

import uuid
from datetime import datetime
from typing import Annotated, Any

from ninja import Field, Schema
from pydantic import AfterValidator, ConfigDict, StrictBool, StrictInt

from accounts.schema.user import UserRefSchema
from common.http.fields import Instant
from events.core.schemas.choices import RSVPStatus
from events.core.schemas.durations import IsoDuration
from events.core.schemas.venue import MAX_CAPACITY
from events.models import Event

EARLIEST = 1900
LATEST = 9000


def _reasonable_year(value: datetime) -> datetime:
    """Keeps derived times (end = start + 1 day, check-in = start − 1 h) representable."""
    if not EARLIEST <= value.year < LATEST:
        raise ValueError(f"Dates must lie between the years {EARLIEST} and {LATEST}.")
    return value


EventTime = Annotated[Instant, AfterValidator(_reasonable_year)]
Count = Annotated[int, Field(ge=0, le=MAX_CAPACITY)]


class VisibilitySettingsSchema(Schema):
    model_config = ConfigDict(extra="forbid")

    show_capacity: StrictBool | None = None
    show_attendee_count: StrictBool | None = None


class _EventFieldsSchema(Schema):
    """The organiser-set Event fields (docs/spec/domain.md "Events") shared by create and PATCH."""

    model_config = ConfigDict(extra="forbid")

    slug: str | None = Field(None, max_length=220)
    description: str | None = None
    visibility: Event.Visibility | None = None
    event_type: Event.EventType | None = None
    end: EventTime | None = None
    timezone: str | None = Field(None, max_length=64)
    rsvp_before: EventTime | None = None
    check_in_starts_at: EventTime | None = None
    check_in_ends_at: EventTime | None = None
    max_tickets_per_user: Count | None = None
    requires_ticket: StrictBool | None = None
    max_attendees: Count | None = None
    venue_id: uuid.UUID | None = None
    visibility_settings: VisibilitySettingsSchema | None = None
    waitlist_open: StrictBool | None = None
    waitlist_time_window: IsoDuration | None = None
    waitlist_batch_size: Count | None = None
    waitlist_cutoff_date: EventTime | None = None
    waitlist_lottery_mode: StrictBool | None = None
    waitlist_max_party_size: StrictInt | None = None
    waitlist_party_policy: Event.PartyPolicy | None = None


class EventCreateSchema(_EventFieldsSchema):
    """docs/spec/api.md "Event create body": `name` and `start` required; `status` draft or open."""

    name: str = Field(..., min_length=1, max_length=200)
    start: EventTime
    status: str | None = Field(None, description="'draft' (default) or 'open'")

    def service_data(self) -> dict[str, Any]:
        """The fields sent, without nulls for fields the model cannot store empty."""
        return _service_data(self, drop_none=True)


class EventUpdateSchema(_EventFieldsSchema):
    name: str | None = Field(None, min_length=1, max_length=200)
    start: EventTime | None = None

    def service_data(self) -> dict[str, Any]:
        return _service_data(self, drop_none=False)


#: Nullable Event columns: `null` in a body clears them. Any other `null` means "not sent"
#: on create and is refused by the model on PATCH.
NULLABLE_FIELDS = frozenset(
    {
        "rsvp_before",
        "check_in_starts_at",
        "check_in_ends_at",
        "max_tickets_per_user",
        "venue_id",
        "waitlist_time_window",
        "waitlist_cutoff_date",
    }
)


def _service_data(schema: Schema, *, drop_none: bool) -> dict[str, Any]:
    data = schema.model_dump(exclude_unset=True)
    if isinstance(data.get("visibility_settings"), dict):
        data["visibility_settings"] = {
            key: value for key, value in data["visibility_settings"].items() if value is not None
        }
    if drop_none:
        data = {k: v for k, v in data.items() if v is not None or k in NULLABLE_FIELDS}
    return data


class AdminRSVPSchema(Schema):
    id: uuid.UUID
    event_id: uuid.UUID
    user: UserRefSchema
    status: str
    guests: int = Field(0, description="People the attendee brings; a YES takes 1 + guests seats.")
    checked_in_at: datetime | None
    created_at: datetime
    updated_at: datetime


class AdminRSVPCreateSchema(Schema):
    model_config = ConfigDict(extra="forbid")

    user_id: uuid.UUID
    status: RSVPStatus


class AdminRSVPUpdateSchema(Schema):
    model_config = ConfigDict(extra="forbid")

    status: RSVPStatus


class InvitationSchema(Schema):
    id: uuid.UUID
    event_id: uuid.UUID
    user: UserRefSchema
    overrides_max_attendees: bool
    created_at: datetime


class InvitationCreateSchema(Schema):
    model_config = ConfigDict(extra="forbid")

    user_id: uuid.UUID
    overrides_max_attendees: StrictBool = False
