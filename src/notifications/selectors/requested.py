"""Which notifications were already stored: how a sender that may run twice (a task
redelivered, or published again after the broker lost its messages) tells that its
notification is already there."""

import uuid
from datetime import datetime
from typing import Any

from notifications.models import Notification


def stored_since(
    user_id: uuid.UUID, notification_type: str, since: datetime, **context: str
) -> bool:
    """Whether `user_id` got a `notification_type` notification at or after `since`
    whose context holds every key and value of `context`."""
    lookups = {f"context__{key}": value for key, value in context.items()}
    return Notification.objects.filter(
        user_id=user_id, notification_type=notification_type, created_at__gte=since, **lookups
    ).exists()


def stored_of_type_since(notification_type: str, since: datetime) -> list[dict[str, Any]]:
    """`user_id`, `context` and `created_at` of every `notification_type` notification
    stored at or after `since`, for a sender that checks many at once."""
    rows = Notification.objects.filter(
        notification_type=notification_type, created_at__gte=since
    ).values("user_id", "context", "created_at")
    return [dict(row) for row in rows]
