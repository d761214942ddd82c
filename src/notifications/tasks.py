"""Celery tasks of the notifications app. Thin: take ids, call one service, names pinned.

Two delivery tasks, one body: `notifications.deliver` (queue `bulk`) and
`notifications.deliver_critical` (queue `critical`, for `NotificationSpec.time_critical`
types), so an offer e-mail never waits behind a fan-out's thousands of mails. Both stop
after the delivery time limits (`NOTIFICATION_DELIVERY_*_TIME_LIMIT`).
"""

from celery import Task, shared_task
from django.conf import settings
from django.utils import timezone

from notifications.service import delivery, dispatch
from notifications.service.delivery import MAX_ATTEMPTS

SOFT_TIME_LIMIT: int = settings.NOTIFICATION_DELIVERY_SOFT_TIME_LIMIT
TIME_LIMIT: int = settings.NOTIFICATION_DELIVERY_TIME_LIMIT


def _deliver(task: Task, delivery_id: str, retry_of_attempt: int) -> str:
    """Send one delivery; on a transient failure retry after the delay the service names.

    `retry_of_attempt` tells the retried run which failed attempt it continues, so only
    this chain may pick that failed row up again (see `notifications.service.delivery`).
    The retry is the same task, so it stays on the same queue.
    """
    outcome = delivery.deliver(delivery_id, retry_of_attempt=retry_of_attempt)
    if outcome.retry_in is not None:
        raise task.retry(
            args=(delivery_id,),
            kwargs={"retry_of_attempt": outcome.attempts},
            countdown=outcome.retry_in,
        )
    return outcome.status


@shared_task(
    bind=True,
    name="notifications.deliver",
    max_retries=MAX_ATTEMPTS - 1,
    soft_time_limit=SOFT_TIME_LIMIT,
    time_limit=TIME_LIMIT,
)
def deliver(self: Task, delivery_id: str, retry_of_attempt: int = 0) -> str:
    """One delivery of an ordinary notification (queue `bulk`)."""
    return _deliver(self, delivery_id, retry_of_attempt)


@shared_task(
    bind=True,
    name="notifications.deliver_critical",
    max_retries=MAX_ATTEMPTS - 1,
    soft_time_limit=SOFT_TIME_LIMIT,
    time_limit=TIME_LIMIT,
)
def deliver_critical(self: Task, delivery_id: str, retry_of_attempt: int = 0) -> str:
    """One delivery of a time-critical notification, a waitlist offer (queue `critical`)."""
    return _deliver(self, delivery_id, retry_of_attempt)


@shared_task(name="notifications.redispatch_stranded_deliveries")
def redispatch_stranded_deliveries() -> list[str]:
    """Every minute: deliveries whose task never ran get another; failed deliveries whose
    next attempt is due get another round (see `dispatch`)."""
    return [str(pk) for pk in dispatch.redispatch_stranded_deliveries(timezone.now())]


@shared_task(name="notifications.redispatch_pending_deliveries")
def redispatch_pending_deliveries() -> list[str]:
    """After the broker came back empty (`common.broker`): every pending delivery now."""
    return [str(pk) for pk in dispatch.redispatch_pending(timezone.now())]
