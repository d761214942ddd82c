"""Reads about the waitlist queue."""

import uuid

from events.models import EventWaitList


def queue_position(event_id: uuid.UUID, user_id: uuid.UUID) -> int | None:
    """1-based FIFO position of the user in the event's queue, or None when not queued."""
    entry = (
        EventWaitList.objects.filter(event_id=event_id, user_id=user_id)
        .values("created_at")
        .first()
    )
    if entry is None:
        return None
    return (
        EventWaitList.objects.filter(event_id=event_id, created_at__lt=entry["created_at"]).count()
        + 1
    )
