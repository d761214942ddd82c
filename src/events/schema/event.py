"""The path docs/spec/waitlist-design.md names for the event's schemas (`seats_held` on
the event); they live in `events.core.schemas.event`."""

from events.core.schemas.event import (
    EventDetail,
    EventFilterSchema,
    EventListItem,
    EventOrganizationSchema,
    EventStatus,
    EventTierSchema,
    EventVenueSchema,
)

__all__ = [
    "EventDetail",
    "EventFilterSchema",
    "EventListItem",
    "EventOrganizationSchema",
    "EventStatus",
    "EventTierSchema",
    "EventVenueSchema",
]
