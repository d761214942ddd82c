"""The event's check-in window, one rule for tickets and RSVPs."""

from datetime import datetime

from events.models import Event
from events.ticketing.errors import OutsideCheckInWindow


def assert_check_in_open(event: Event, now: datetime) -> None:
    """`check_in_starts_at ≤ now ≤ check_in_ends_at` (an empty bound is open), else 400
    `outside_check_in_window` naming both bounds."""
    starts, ends = event.check_in_starts_at, event.check_in_ends_at
    if (starts is None or starts <= now) and (ends is None or now <= ends):
        return
    raise OutsideCheckInWindow(
        extra={"check_in_starts_at": _iso(starts), "check_in_ends_at": _iso(ends)}
    )


def _iso(value: datetime | None) -> str | None:
    return value.isoformat() if value else None
