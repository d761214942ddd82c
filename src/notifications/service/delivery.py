"""Deliver one `NotificationDelivery` over its channel: claim, send, record. At most once.

1. Claim, in a short transaction with the row locked (`FOR UPDATE OF self`): only a
   `pending` row, or a `failed` one that this task's own retry chain left behind
   (`retry_of_attempt` equals the row's attempts), moves to `sending` with attempts + 1.
   A duplicate task finds the row no longer claimable and does nothing, so a dispatch or
   a message that runs twice never sends twice.
2. Send with no transaction open and no lock held (docs/spec/domain.md: no network call under a lock).
3. Record the outcome: `sent` (sent_at), `failed` (error text), or `skipped` when there is
   nothing to deliver to any more.

A transient failure (the server is down or hung) is never the end while the server may
come back (ADR 0036): within a round the task retries itself (30 s, then 60 s later, or
the wait the remote side named); once a round of `MAX_ATTEMPTS` is spent, the row gets a
`next_attempt_at` for the re-dispatch job (`dispatch.redispatch_stranded_deliveries`),
growing each round, shorter for time-critical types. Every transient failure records a
`next_attempt_at`, also within a round: should the chain's retry be lost with the broker,
the job takes the row up shortly after it was due. Only `NOTIFICATION_RETRY_FOR_HOURS`
after the notification was written is a delivery given up, failed with its reason.

A notification with a "useful until" (`Notification.expires_at`, an offer's expiry) is
checked before every attempt: past it, or withdrawn by its sender
(`notification_still_wanted`, say the offer was claimed), the row is `skipped`, never sent.
"""

import logging
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

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
from notifications.types import get_spec

logger = logging.getLogger(__name__)

MAX_ATTEMPTS = 3
ERROR_MAX_LENGTH = 2000
NOT_CLAIMED = "not_claimed"
NO_LONGER_USEFUL = "no longer useful: expired or withdrawn by its sender"
#: After a chain's retry was due, how long the re-dispatch job waits for it before it
#: takes the row up itself (the retry was lost with the broker or its worker).
CHAIN_GRACE = timedelta(minutes=2)

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
        return _failed_for_now(delivery, exc)
    except PermanentDeliveryError as exc:
        return _record(delivery, Status.FAILED, error=str(exc))
    except Exception as exc:
        # A bug (a missing template, say): record it so the row is not stuck in `sending`,
        # then let it propagate to the worker's log. Never retried.
        _record(delivery, Status.FAILED, error=f"unexpected error: {exc!r}")
        raise
    return _record(delivery, Status.SENT)


def _failed_for_now(delivery: NotificationDelivery, exc: BaseException) -> DeliveryOutcome:
    """Record a transient failure with when to try again: the chain's own retry within a
    round, the re-dispatch job's next round after it, or nothing once the day is over."""
    now = timezone.now()
    error = _describe(exc)
    if delivery.attempts < attempt_limit(delivery):
        retry_in = retry_delay(delivery.attempts, getattr(exc, "retry_after", None))
        if retry_in > settings.ETA_HOP_SECONDS:
            # A wait no worker should hold a message for (a long `retry_after`): the
            # re-dispatch job sends it when it is due.
            later = now + timedelta(seconds=retry_in)
            return _record(delivery, Status.FAILED, error=error, transient=True, next_attempt=later)
        overdue = now + timedelta(seconds=retry_in) + CHAIN_GRACE
        outcome = _record(
            delivery, Status.FAILED, error=error, transient=True, next_attempt=overdue
        )
        return DeliveryOutcome(status=outcome.status, attempts=outcome.attempts, retry_in=retry_in)
    due = next_round_at(delivery, now)
    if due is None:
        error = f"given up after {settings.NOTIFICATION_RETRY_FOR_HOURS} hours of attempts: {error}"
    return _record(
        delivery, Status.FAILED, error=error, transient=due is not None, next_attempt=due
    )


def next_round_at(delivery: NotificationDelivery, now: datetime) -> datetime | None:
    """When the next round of attempts is due after `delivery.redispatches` rounds, or
    None once that would be past the retry period of its notification."""
    if get_spec(delivery.notification.notification_type).time_critical:
        base = settings.NOTIFICATION_CRITICAL_ROUND_DELAY_SECONDS
        cap = settings.NOTIFICATION_CRITICAL_ROUND_DELAY_MAX_SECONDS
    else:
        base = settings.NOTIFICATION_ROUND_DELAY_SECONDS
        cap = settings.NOTIFICATION_ROUND_DELAY_MAX_SECONDS
    due = now + timedelta(seconds=min(base * 2 ** min(delivery.redispatches, 16), cap))
    retry_until = delivery.notification.created_at + timedelta(
        hours=settings.NOTIFICATION_RETRY_FOR_HOURS
    )
    return due if due <= retry_until else None


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
    """Seconds before the next attempt of a round: the remote side's wish, else 1×, 2×…
    the base, counted from the round's first attempt (the pause between rounds is
    `next_round_at`'s)."""
    if retry_after is not None:
        return max(float(retry_after), 1.0)
    base = float(settings.NOTIFICATION_RETRY_BACKOFF_SECONDS)
    return base * 2 ** (max(attempts_made - 1, 0) % MAX_ATTEMPTS)


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
    delivery: NotificationDelivery,
    status: str,
    *,
    error: str = "",
    transient: bool = False,
    next_attempt: datetime | None = None,
) -> DeliveryOutcome:
    """Leave `sending` for the outcome (a single conditional UPDATE, no lock held)."""
    now = timezone.now()
    NotificationDelivery.objects.filter(pk=delivery.pk, status=Status.SENDING).update(
        status=status,
        error=error[:ERROR_MAX_LENGTH],
        sent_at=now if status == Status.SENT else None,
        transient_failure=transient,
        next_attempt_at=next_attempt,
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
