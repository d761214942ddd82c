"""Sample contexts, one per notification type, as a sender in `events` would build them.

The event is in Europe/Vienna: 19:00 local on 3 March 2026 is 18:00 UTC.
"""

import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

from notifications.models import NotificationType
from notifications.service.formatting import format_in_zone, humanize_time_remaining

EVENT_ZONE = "Europe/Vienna"
EVENT_START = datetime(2026, 3, 3, 18, 0, tzinfo=UTC)
OFFER_EXPIRES = datetime(2026, 3, 2, 17, 30, tzinfo=UTC)
EVENT_ID = uuid.UUID("0c6f6c41-0000-4000-8000-000000000001")
ORG_ID = uuid.UUID("0c6f6c41-0000-4000-8000-0000000000aa")


def event_context(**extra: Any) -> dict[str, Any]:
    return {
        "event_id": EVENT_ID,
        "event_name": "Rock & Roll Night",
        "event_url": f"http://frontend.test/events/{EVENT_ID}",
        "event_start": EVENT_START,
        "event_start_formatted": format_in_zone(EVENT_START, EVENT_ZONE),
        "organization_id": ORG_ID,
        "organization_name": "Vienna Jazz Club",
        **extra,
    }


def offer_context(*, cutoff: bool = False, **extra: Any) -> dict[str, Any]:
    return event_context(
        offer_id=uuid.uuid4(),
        expires_at=OFFER_EXPIRES,
        expires_at_formatted=format_in_zone(OFFER_EXPIRES, EVENT_ZONE),
        time_remaining_formatted=humanize_time_remaining(timedelta(hours=23, minutes=10)),
        is_cutoff_batch=cutoff,
        **extra,
    )


def digest_context() -> dict[str, Any]:
    starts = [EVENT_START + timedelta(weeks=week) for week in range(3)]
    return {
        "series_id": uuid.uuid4(),
        "series_name": "Tuesday Jam",
        "series_url": "http://frontend.test/events/vienna-jazz/series/tuesday-jam",
        "organization_id": ORG_ID,
        "organization_name": "Vienna Jazz Club",
        "events_count": len(starts),
        "occurrences": [
            {
                "event_id": uuid.uuid4(),
                "name": "Tuesday Jam",
                "start": start,
                "start_formatted": format_in_zone(start, EVENT_ZONE),
                "event_url": f"http://frontend.test/events/{index}",
            }
            for index, start in enumerate(starts)
        ],
    }


def context_for(notification_type: str) -> dict[str, Any]:
    """A complete context for any type."""
    ticket = {"ticket_id": uuid.uuid4(), "tier_name": "Early bird"}
    builders: dict[str, Any] = {
        NotificationType.WAITLIST_SPOT_AVAILABLE: offer_context,
        NotificationType.WAITLIST_OFFER_EXPIRED: lambda: event_context(offer_id=uuid.uuid4()),
        NotificationType.WAITLIST_OFFER_REVOKED: lambda: event_context(offer_id=uuid.uuid4()),
        NotificationType.SERIES_EVENTS_GENERATED: digest_context,
        NotificationType.EVENT_OPEN: event_context,
        NotificationType.EVENT_UPDATED: lambda: event_context(
            changed_fields=["start", "venue"], venue_name="Porgy & Bess"
        ),
        NotificationType.EVENT_CANCELLED: event_context,
        NotificationType.TICKET_CREATED: lambda: event_context(**ticket),
        NotificationType.TICKET_CANCELLED: lambda: event_context(**ticket),
        NotificationType.RSVP_CONFIRMATION: lambda: event_context(status="yes"),
    }
    context: dict[str, Any] = builders[notification_type]()
    return context
