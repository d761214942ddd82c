"""Fan a stored notification out to its channels: one delivery row per channel.

Runs after the sender's transaction committed (`transaction.on_commit`). The channels come
from the user's preferences (`preferences.resolve_channels`). In-app is the stored row
itself, so its delivery is recorded as sent at once and the row is flagged `in_app`
(which puts it in the inbox); every other channel gets one Celery task
(`notifications.deliver`, or `notifications.deliver_critical` on the `critical` queue
for time-critical types), so a slow or failing channel never holds up another. A row
whose user gets no in-app delivery (silenced, type off, in_app not chosen) stays out of
the inbox.

Running dispatch twice for one notification is harmless: the delivery rows are unique
per (notification, channel) and a task only sends a row it claims while still pending.
Time-critical types (waitlist offers) go out here and now like every type; nothing in
this path batches or delays, and their sends never queue behind bulk mail.
"""

import logging
import uuid
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import F, QuerySet
from django.utils import timezone

from common import dispatch
from notifications.channels import in_app
from notifications.models import Channel, Notification, NotificationDelivery
from notifications.service import delivery as delivery_service
from notifications.service import preferences
from notifications.types import get_spec

logger = logging.getLogger(__name__)

#: A delivery's task may still be queued this long after its row was written.
STRANDED_AFTER = timedelta(minutes=10)
REVIVE_BATCH = 500

Status = NotificationDelivery.Status


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
    """One task per delivery, on the critical or the bulk queue by the type's spec. A
    failure to send one never stops the others (`common.dispatch` keeps a refused one in
    the outbox and logs anything else; the row stays pending for the stranded sweep)."""
    if _is_time_critical(delivery):
        dispatch.now("notifications.deliver_critical", str(delivery.pk))
    else:
        dispatch.now("notifications.deliver", str(delivery.pk))


def _is_time_critical(delivery: NotificationDelivery) -> bool:
    return get_spec(delivery.notification.notification_type).time_critical


def redispatch_stranded_deliveries(now: datetime) -> list[uuid.UUID]:
    """The deliveries' safety net, every minute. Returns the rows enqueued again.

    1. `sending` rows older than `NOTIFICATION_SENDING_STALE_SECONDS` lost their worker
       mid-send (killed, out of memory): they become `failed`, due again at once. Whether
       the message left before the worker died is unknowable; it almost never did (the
       window is the instant between the server's answer and the record), and a repeat
       carries the same Message-ID (ADR 0036).
    2. `pending` rows well after they were written: their task never reached a worker (the
       broker was down when `_enqueue` ran, or the message was lost). Re-sending is safe
       because a task only sends a row it claims while pending: a late original and its
       re-dispatch send once. After the broker lost its messages, `redispatch_pending`
       takes them all at once instead.
    3. `failed` rows whose `next_attempt_at` has come (the delivery service sets it on
       every transient failure): time-critical ones first, soonest useless first; one no
       longer useful is `skipped`, any other gets a new round of attempts.
    """
    _fail_stale_sending(now)
    stranded = list(_pending(now).filter(created_at__lte=now - STRANDED_AFTER))
    revived = _revive_due(now)
    for delivery in [*stranded, *revived]:
        _enqueue(delivery)
    if stranded or revived:
        logger.info(
            "stranded deliveries re-dispatched",
            extra={"deliveries": len(stranded), "revived": len(revived)},
        )
    return [delivery.pk for delivery in [*stranded, *revived]]


def redispatch_pending(now: datetime) -> list[uuid.UUID]:
    """Every pending delivery, whatever its age: after the broker lost its messages
    (restarted empty) none of their tasks is coming. A task that did survive finds its
    row claimed by the first of the two and sends nothing."""
    pending = list(_pending(now))
    for delivery in pending:
        _enqueue(delivery)
    if pending:
        logger.warning("pending deliveries re-dispatched", extra={"deliveries": len(pending)})
    return [delivery.pk for delivery in pending]


def _pending(now: datetime) -> QuerySet[NotificationDelivery]:
    retry_for = timedelta(hours=settings.NOTIFICATION_RETRY_FOR_HOURS)
    return (
        NotificationDelivery.objects.filter(status=Status.PENDING, created_at__gt=now - retry_for)
        .select_related("notification")
        .only("pk", "channel", "notification__notification_type")
    )


def _fail_stale_sending(now: datetime) -> int:
    stale_after = timedelta(seconds=settings.NOTIFICATION_SENDING_STALE_SECONDS)
    stale = NotificationDelivery.objects.filter(
        status=Status.SENDING, updated_at__lte=now - stale_after
    ).update(
        status=Status.FAILED,
        transient_failure=True,
        error=f"no outcome recorded {stale_after} after the send began (worker lost)",
        next_attempt_at=now,
        updated_at=now,
    )
    if stale:
        logger.warning("deliveries stuck in sending marked failed", extra={"deliveries": stale})
    return stale


def _revive_due(now: datetime) -> list[NotificationDelivery]:
    due = (
        NotificationDelivery.objects.filter(status=Status.FAILED, next_attempt_at__lte=now)
        .select_related("notification")
        .order_by(F("notification__expires_at").asc(nulls_last=True), "next_attempt_at")
    )[:REVIVE_BATCH]
    revived = []
    for delivery in due:
        # Conditional: a concurrent job or a late retry of the chain that changed the row wins.
        unchanged = NotificationDelivery.objects.filter(
            pk=delivery.pk,
            status=Status.FAILED,
            attempts=delivery.attempts,
            redispatches=delivery.redispatches,
        )
        if not delivery_service.still_useful(delivery.notification, now):
            unchanged.update(
                status=Status.SKIPPED,
                error=delivery_service.NO_LONGER_USEFUL,
                transient_failure=False,
                next_attempt_at=None,
                updated_at=now,
            )
            continue
        taken = unchanged.update(
            status=Status.PENDING,
            redispatches=delivery.redispatches + 1,
            transient_failure=False,
            next_attempt_at=None,
            updated_at=now,
        )
        if taken:
            revived.append(delivery)
    return revived
