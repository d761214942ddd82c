"""Response and query bodies of the public event routes (`GET /events`, `GET /events/{id}`).

The rows come from `events.core.selectors.event.with_public_fields`, which annotates
`viewer_is_staff` and the seats held, so nothing here touches the database.
`visibility_settings` hides numbers from everyone but the organisation's owner and staff:
`show_capacity=false` nulls `max_attendees`, `effective_capacity`, `seats_held` (and the
venue's capacity, which would give the number away); `show_attendee_count=false` nulls
`attendee_count`.
"""

import uuid
from datetime import datetime
from decimal import Decimal
from typing import Any, Literal

from ninja import Schema

from common.http.fields import LenientInstant
from events.core.schemas.durations import IsoDuration
from events.core.selectors.event import seats_held
from events.models import Event, TicketTier

EventStatus = Literal["draft", "open", "closed", "cancelled"]


def _viewer_is_staff(event: Event) -> bool:
    return bool(getattr(event, "viewer_is_staff", False))


def shows_capacity(event: Event) -> bool:
    return event.show_capacity or _viewer_is_staff(event)


def shows_attendee_count(event: Event) -> bool:
    return event.show_attendee_count or _viewer_is_staff(event)


class EventOrganizationSchema(Schema):
    id: uuid.UUID
    slug: str
    name: str


class EventVenueSchema(Schema):
    id: uuid.UUID
    name: str
    address: str
    capacity: int | None


class EventTierSchema(Schema):
    id: uuid.UUID
    name: str
    description: str
    price: Decimal
    currency: str
    payment_method: str
    total_quantity: int | None
    remaining: int | None
    sales_start_at: datetime | None
    sales_end_at: datetime | None
    max_tickets_per_user: int | None


class EventListItem(Schema):
    id: uuid.UUID
    name: str
    slug: str
    description: str
    status: str
    visibility: str
    event_type: str
    start: datetime
    end: datetime
    timezone: str
    rsvp_before: datetime | None
    requires_ticket: bool
    max_attendees: int | None
    effective_capacity: int | None
    attendee_count: int | None
    seats_held: int | None
    waitlist_open: bool
    event_series_id: uuid.UUID | None
    occurrence_index: int | None
    is_modified: bool
    organization: EventOrganizationSchema
    venue: EventVenueSchema | None
    tiers: list[EventTierSchema]

    @staticmethod
    def resolve_max_attendees(obj: Event) -> int | None:
        return obj.max_attendees if shows_capacity(obj) else None

    @staticmethod
    def resolve_effective_capacity(obj: Event) -> int | None:
        return obj.effective_capacity if shows_capacity(obj) else None

    @staticmethod
    def resolve_seats_held(obj: Event) -> int | None:
        return seats_held(obj) if shows_capacity(obj) else None

    @staticmethod
    def resolve_attendee_count(obj: Event) -> int | None:
        return obj.attendee_count if shows_attendee_count(obj) else None

    @staticmethod
    def resolve_venue(obj: Event) -> dict[str, Any] | None:
        venue = obj.venue
        if venue is None:
            return None
        return {
            "id": venue.pk,
            "name": venue.name,
            "address": venue.address,
            "capacity": venue.capacity if shows_capacity(obj) else None,
        }

    @staticmethod
    def resolve_tiers(obj: Event) -> list[TicketTier]:
        return list(obj.ticket_tiers.all())  # prefetched for the whole page


class EventDetail(EventListItem):
    check_in_starts_at: datetime | None
    check_in_ends_at: datetime | None
    max_tickets_per_user: int | None
    visibility_settings: dict[str, bool]
    waitlist_time_window: IsoDuration | None
    waitlist_batch_size: int
    waitlist_cutoff_date: datetime | None
    waitlist_lottery_mode: bool
    waitlist_max_party_size: int
    waitlist_party_policy: str
    created_at: datetime
    updated_at: datetime

    @staticmethod
    def resolve_visibility_settings(obj: Event) -> dict[str, bool]:
        return {"show_capacity": obj.show_capacity, "show_attendee_count": obj.show_attendee_count}


class EventFilterSchema(Schema):
    """Query of `GET /events`. A time without an offset is read as UTC."""

    organization: str | None = None
    series: uuid.UUID | None = None
    start_after: LenientInstant | None = None
    start_before: LenientInstant | None = None
    status: EventStatus | None = None
