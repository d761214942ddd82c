"""Deliver one `NotificationDelivery` over its channel: claim, send, record. At most once.

1. Claim, in a short transaction with the row locked (`FOR UPDATE OF self`): only a
   `pending` row, or a `failed` one that this task's own retry chain left behind
   (`retry_of_attempt` equals the row's attempts), moves to `sending` with attempts + 1.
   A duplicate task finds the row no longer claimable and does nothing, so a dispatch or
   a message that runs twice never sends twice.
2. Send with no transaction open and no lock held (docs/spec/domain.md: no network call under a lock).
3. Record the outcome: `sent` (sent_at), `failed` (error text), or `skipped` when there is
   nothing to deliver to any more. A transient failure asks for a retry, with exponential
   backoff or the wait the remote side named, until `MAX_ATTEMPTS` attempts were made.

A notification with a "useful until" (`Notification.expires_at`, an offer's expiry) is
checked before every attempt: past it, or withdrawn by its sender
(`notification_still_wanted`, say the offer was claimed), the row is `skipped`, never sent.

A row a worker died on while `sending` is not re-sent by this module: the re-dispatch job
(`dispatch.redispatch_stranded_deliveries`) moves it to `failed` once it is stale, and
only a still-useful time-critical one is then tried again (see there).
"""

import logging
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.db import transaction
from django.utils import timezone

from common import metrics
from notifications.channels import (
    ChannelUnavailable,
    PermanentDeliveryError,
    TransientDeliveryError,
    email,
    telegram,
)
from notifications.models import Channel, Notification, NotificationDelivery
from notifications.signals import notification_still_wanted

logger = logging.getLogger(__name__)

MAX_ATTEMPTS = 3
ERROR_MAX_LENGTH = 2000
NOT_CLAIMED = "not_claimed"
NO_LONGER_USEFUL = "no longer useful: expired or withdrawn by its sender"

Status = NotificationDelivery.Status
SENDERS: dict[str, Callable[[Notification], None]] = {
    Channel.EMAIL: email.send,
    Channel.TELEGRAM: telegram.send,
}


@dataclass(frozen=True)
class DeliveryOutcome:
    """What one attempt did. `retry_in` (seconds) is set when another attempt should follow."""

    status: str
    attempts: int = 0
    retry_in: float | None = None


def deliver(delivery_id: uuid.UUID | str, *, retry_of_attempt: int = 0) -> DeliveryOutcome:
    delivery = _claim(delivery_id, retry_of_attempt)
    if delivery is None:
        return DeliveryOutcome(status=NOT_CLAIMED)
    if not still_useful(delivery.notification, timezone.now()):
        return _record(delivery, Status.SKIPPED, error=NO_LONGER_USEFUL)
    try:
        _send(delivery)
    except ChannelUnavailable as exc:
        return _record(delivery, Status.SKIPPED, error=str(exc))
    except (TransientDeliveryError, SoftTimeLimitExceeded) as exc:
        # The soft time limit: a peer that kept the send busy too long is a transient fault.
        outcome = _record(delivery, Status.FAILED, error=_describe(exc), transient=True)
        if delivery.attempts < attempt_limit(delivery):
            return DeliveryOutcome(
                status=outcome.status,
                attempts=outcome.attempts,
                retry_in=retry_delay(delivery.attempts, getattr(exc, "retry_after", None)),
            )
        return outcome
    except PermanentDeliveryError as exc:
        return _record(delivery, Status.FAILED, error=str(exc))
    except Exception as exc:
        # A bug (a missing template, say): record it so the row is not stuck in `sending`,
        # then let it propagate to the worker's log. Never retried.
        _record(delivery, Status.FAILED, error=f"unexpected error: {exc!r}")
        raise
    return _record(delivery, Status.SENT)


def attempt_limit(delivery: NotificationDelivery) -> int:
    """Attempts allowed so far: `MAX_ATTEMPTS` per round, the first and each revival."""
    return MAX_ATTEMPTS * (1 + delivery.redispatches)


def still_useful(notification: Notification, now: datetime) -> bool:
    """False once a notification with a "useful until" is past it or its sender withdrew
    it; a notification without one (every ordinary type) is always worth sending."""
    if notification.expires_at is None:
        return True
    if notification.expires_at <= now:
        return False
    answers = notification_still_wanted.send(
        sender=Notification,
        notification_type=notification.notification_type,
        context=notification.context,
    )
    return all(answer is not False for _receiver, answer in answers)


def retry_delay(attempts_made: int, retry_after: float | None = None) -> float:
    """Seconds before the next attempt: the remote side's wish, else 1×, 2×, 4×… the base."""
    if retry_after is not None:
        return max(float(retry_after), 1.0)
    base = float(settings.NOTIFICATION_RETRY_BACKOFF_SECONDS)
    return base * 2 ** max(attempts_made - 1, 0)


def _claim(delivery_id: uuid.UUID | str, retry_of_attempt: int) -> NotificationDelivery | None:
    with transaction.atomic(durable=True):
        delivery = (
            NotificationDelivery.objects.select_related("notification__user")
            .select_for_update(of=("self",))
            .filter(pk=delivery_id)
            .first()
        )
        if delivery is None or not _claimable(delivery, retry_of_attempt):
            logger.info(
                "notification delivery not claimed",
                extra={
                    "delivery_id": str(delivery_id),
                    "status": delivery.status if delivery else None,
                    "attempts": delivery.attempts if delivery else None,
                },
            )
            return None
        delivery.status = Status.SENDING
        delivery.attempts += 1
        delivery.error = ""
        delivery.save(update_fields=["status", "attempts", "error", "updated_at"])
    return delivery


def _claimable(delivery: NotificationDelivery, retry_of_attempt: int) -> bool:
    if delivery.attempts >= attempt_limit(delivery):
        return False
    if delivery.status == Status.PENDING:
        return True
    return (
        delivery.status == Status.FAILED
        and retry_of_attempt > 0
        and delivery.attempts == retry_of_attempt
    )


def _send(delivery: NotificationDelivery) -> None:
    sender = SENDERS.get(delivery.channel)
    if sender is None:
        raise PermanentDeliveryError(f"no sender for channel {delivery.channel!r}")
    sender(delivery.notification)


def _describe(exc: BaseException) -> str:
    if isinstance(exc, SoftTimeLimitExceeded):
        return f"send took longer than {settings.NOTIFICATION_DELIVERY_SOFT_TIME_LIMIT} s"
    return str(exc)


def _record(
    delivery: NotificationDelivery, status: str, *, error: str = "", transient: bool = False
) -> DeliveryOutcome:
    """Leave `sending` for the outcome (a single conditional UPDATE, no lock held)."""
    now = timezone.now()
    NotificationDelivery.objects.filter(pk=delivery.pk, status=Status.SENDING).update(
        status=status,
        error=error[:ERROR_MAX_LENGTH],
        sent_at=now if status == Status.SENT else None,
        transient_failure=transient,
        updated_at=now,
    )
    metrics.NOTIFICATION_DELIVERIES.labels(channel=delivery.channel, outcome=status).inc()
    log = logger.info if status == Status.SENT else logger.warning
    log(
        "notification delivery %s",
        status,
        extra={
            "delivery_id": str(delivery.pk),
            "notification_id": str(delivery.notification_id),
            "channel": delivery.channel,
            "attempts": delivery.attempts,
            "error": error[:200],
        },
    )
    return DeliveryOutcome(status=status, attempts=delivery.attempts)
