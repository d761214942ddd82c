"""Fan a stored notification out to its channels: one delivery row per channel.

Runs after the sender's transaction committed (`transaction.on_commit`). The channels come
from the user's preferences (`preferences.resolve_channels`). In-app is the stored row
itself, so its delivery is recorded as sent at once and the row is flagged `in_app`
(which puts it in the inbox); every other channel gets one Celery task
(`notifications.deliver`), so a slow or failing channel never holds up another. A row
whose user gets no in-app delivery (silenced, type off, in_app not chosen) stays out of
the inbox.

Running dispatch twice for one notification is harmless: the delivery rows are unique
per (notification, channel) and a task only sends a row it claims while still pending.
Time-critical types (waitlist offers) go out here and now like every type; nothing in
this path batches or delays.
"""

import logging
import uuid
from datetime import datetime, timedelta

from django.db import transaction
from django.utils import timezone

from notifications.channels import in_app
from notifications.models import Channel, Notification, NotificationDelivery
from notifications.service import preferences

logger = logging.getLogger(__name__)

#: A delivery's task may still be queued this long after its row was written.
STRANDED_AFTER = timedelta(minutes=10)
#: Past this age a notification is news no more: a stranded delivery stays unsent.
GIVE_UP_AFTER = timedelta(hours=24)


def dispatch_notification(notification_id: uuid.UUID | str) -> list[NotificationDelivery]:
    """Create the deliveries of a notification and enqueue the ones that need a network call."""
    notification = Notification.objects.select_related("user").filter(pk=notification_id).first()
    if notification is None:
        logger.warning(
            "notification to dispatch no longer exists",
            extra={"notification_id": str(notification_id)},
        )
        return []
    preference = preferences.get_preferences(notification.user)
    channels = preferences.resolve_channels(preference, notification.notification_type)
    deliveries = _create_deliveries(notification, channels)
    for delivery in deliveries:
        if delivery.status == NotificationDelivery.Status.PENDING:
            _enqueue(delivery)
    logger.info(
        "notification dispatched",
        extra={
            "notification_id": str(notification.pk),
            "notification_type": notification.notification_type,
            "channels": channels,
        },
    )
    return deliveries


def _create_deliveries(
    notification: Notification, channels: list[str]
) -> list[NotificationDelivery]:
    now = timezone.now()
    deliveries = []
    with transaction.atomic(durable=True):
        for channel in channels:
            defaults = in_app.delivered_state(now) if channel == Channel.IN_APP else {}
            delivery, _created = NotificationDelivery.objects.get_or_create(
                notification=notification, channel=channel, defaults=defaults
            )
            deliveries.append(delivery)
        if Channel.IN_APP in channels and not notification.in_app:
            # Together with its delivery row: the inbox shows exactly what was delivered.
            Notification.objects.filter(pk=notification.pk).update(in_app=True)
            notification.in_app = True
    return deliveries


def _enqueue(delivery: NotificationDelivery) -> None:
    """One task per delivery; a failure to enqueue one never stops the others.

    The broad except is deliberate: with a broker down the row stays pending and the
    committed change that caused the notification must not turn into an error. (With
    eager tasks a task's own exception also lands here.)
    """
    from notifications.tasks import deliver

    try:
        deliver.delay(str(delivery.pk))
    except Exception:
        logger.exception(
            "notification delivery could not be enqueued",
            extra={"delivery_id": str(delivery.pk), "channel": delivery.channel},
        )


def redispatch_stranded_deliveries(now: datetime) -> list[uuid.UUID]:
    """Enqueue again the deliveries still `pending` well after they were written.

    Their task never reached a worker: the broker was down when `_enqueue` ran (the row
    stays pending by design), or the message was lost. Re-sending is safe because a
    task only sends a row it claims while pending: a late original and its
    re-dispatch send once. A row that went `sending` and was never finished is not
    retried (at most once; see `delivery`).
    """
    stranded = list(
        NotificationDelivery.objects.filter(
            status=NotificationDelivery.Status.PENDING,
            created_at__lte=now - STRANDED_AFTER,
            created_at__gt=now - GIVE_UP_AFTER,
        ).only("pk", "channel")
    )
    for delivery in stranded:
        _enqueue(delivery)
    if stranded:
        logger.info("stranded deliveries re-dispatched", extra={"deliveries": len(stranded)})
    return [delivery.pk for delivery in stranded]
