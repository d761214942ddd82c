"""In-app: the stored `Notification` row is the message (listed, counted, marked read by
the inbox API), so it is delivered the moment it exists. Nothing goes over the network."""

from datetime import datetime
from typing import Any

from notifications.models import NotificationDelivery


def delivered_state(now: datetime) -> dict[str, Any]:
    """Field values of an in-app delivery row, created already sent."""
    return {"status": NotificationDelivery.Status.SENT, "attempts": 1, "sent_at": now}
