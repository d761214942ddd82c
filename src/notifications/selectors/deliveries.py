"""What the organiser of an event sees of the mail Encore sends about it.

A notification names its event in its context (`event_id`, every event type's required
key), so the deliveries about one event are found through it; in-app rows are the inbox
itself and never fail, so only the channels that leave Encore are listed.
"""

import uuid

from django.db.models import QuerySet

from notifications.models import Channel, NotificationDelivery


def deliveries_about_event(
    event_id: uuid.UUID, status: str | None = None
) -> QuerySet[NotificationDelivery]:
    """Newest first; `status` narrows to one delivery status (`failed`: the given-up ones
    and those waiting for their next attempt, each with its reason)."""
    deliveries = NotificationDelivery.objects.filter(
        notification__context__event_id=str(event_id)
    ).exclude(channel=Channel.IN_APP)
    if status is not None:
        deliveries = deliveries.filter(status=status)
    return deliveries.select_related("notification__user").order_by("-created_at", "-pk")
