"""Receiver of `notification_requested`; connected in `NotificationsConfig.ready`."""

from datetime import datetime
from typing import Any

from accounts.models import User
from notifications.models import Notification
from notifications.service import notification


def on_notification_requested(
    sender: Any,
    *,
    notification_type: str,
    user: User,
    context: dict[str, Any],
    expires_at: datetime | None = None,
    **kwargs: Any,
) -> Notification:
    """Store the notification and schedule its delivery on commit (see the service).
    `expires_at` (optional): when the notification stops being useful (an offer's expiry)."""
    return notification.create_notification(
        user=user, notification_type=notification_type, context=context, expires_at=expires_at
    )
