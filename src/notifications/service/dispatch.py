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
#: Past this age a notification is news no more: a stranded delivery stays unsent.
GIVE_UP_AFTER = timedelta(hours=24)
#: A row `sending` this long has no live worker any more: the send is bounded far below
#: it (socket timeouts, the delivery tasks' time limits).
SENDING_STALE_AFTER = timedelta(minutes=10)
#: A failed time-critical delivery untouched this long has no retry of its chain coming
#: (those follow within the 30 s / 60 s backoff): it gets a new round. Reviving a row whose
#: chain were still alive would not send twice: only one task claims it.
REVIVE_AFTER = timedelta(minutes=4)
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
    """The deliveries' safety net, every 5 minutes. Returns the rows enqueued again.

    1. `sending` rows older than `SENDING_STALE_AFTER` lost their worker mid-send (killed,
       out of memory): they become `failed` (transient), so they no longer look in flight.
       Whether the message left before the worker died is unknowable.
    2. `pending` rows well after they were written: their task never reached a worker (the
       broker was down when `_enqueue` ran, or the message was lost). Re-sending is safe
       because a task only sends a row it claims while pending: a late original and its
       re-dispatch send once.
    3. `failed` rows of a time-critical notification still useful (`expires_at` ahead, not
       withdrawn by its sender) whose last failure was transient and whose retries are
       over (an SMTP outage longer than the retries' ~90 s, or a stale row of step 1):
       another round of attempts, up to `NOTIFICATION_MAX_REDISPATCHES` rounds. For these types a duplicate (after a worker
       died mid-send) is the lesser harm than a lost offer; every other type stays
       at most once.
    """
    _fail_stale_sending(now)
    stranded = list(
        NotificationDelivery.objects.filter(
            status=Status.PENDING,
            created_at__lte=now - STRANDED_AFTER,
            created_at__gt=now - GIVE_UP_AFTER,
        )
        .select_related("notification")
        .only("pk", "channel", "notification__notification_type")
    )
    revived = _revive_failed_time_critical(now)
    for delivery in [*stranded, *revived]:
        _enqueue(delivery)
    if stranded or revived:
        logger.info(
            "stranded deliveries re-dispatched",
            extra={"deliveries": len(stranded), "revived": len(revived)},
        )
    return [delivery.pk for delivery in [*stranded, *revived]]


def _fail_stale_sending(now: datetime) -> int:
    stale = NotificationDelivery.objects.filter(
        status=Status.SENDING, updated_at__lte=now - SENDING_STALE_AFTER
    ).update(
        status=Status.FAILED,
        transient_failure=True,
        error=f"no outcome recorded {SENDING_STALE_AFTER} after the send began (worker lost)",
        updated_at=now,
    )
    if stale:
        logger.warning("deliveries stuck in sending marked failed", extra={"deliveries": stale})
    return stale


def _revive_failed_time_critical(now: datetime) -> list[NotificationDelivery]:
    candidates = (
        NotificationDelivery.objects.filter(
            status=Status.FAILED,
            transient_failure=True,
            redispatches__lt=settings.NOTIFICATION_MAX_REDISPATCHES,
            updated_at__lte=now - REVIVE_AFTER,
            notification__expires_at__gt=now,
        )
        .select_related("notification")
        .order_by("updated_at")[:REVIVE_BATCH]
    )
    revived = []
    for delivery in candidates:
        if not delivery_service.still_useful(delivery.notification, now):
            # Withdrawn (the offer was claimed or revoked): never worth another round.
            NotificationDelivery.objects.filter(pk=delivery.pk, status=Status.FAILED).update(
                transient_failure=False, updated_at=now
            )
            continue
        # Conditional: a concurrent job or a late retry that changed the row wins.
        taken = NotificationDelivery.objects.filter(
            pk=delivery.pk,
            status=Status.FAILED,
            attempts=delivery.attempts,
            redispatches=delivery.redispatches,
        ).update(
            status=Status.PENDING,
            redispatches=delivery.redispatches + 1,
            transient_failure=False,
            updated_at=now,
        )
        if taken:
            revived.append(delivery)
    return revived
