"""Celery tasks of the notifications app. Thin: take ids, call one service, names pinned."""

from celery import Task, shared_task

from notifications.service.delivery import MAX_ATTEMPTS


@shared_task(bind=True, name="notifications.deliver", max_retries=MAX_ATTEMPTS - 1)
def deliver(self: Task, delivery_id: str, retry_of_attempt: int = 0) -> str:
    """Send one delivery; on a transient failure retry after the delay the service names.

    `retry_of_attempt` tells the retried run which failed attempt it continues, so only
    this chain may pick that failed row up again (see `notifications.service.delivery`).
    """
    from notifications.service import delivery

    outcome = delivery.deliver(delivery_id, retry_of_attempt=retry_of_attempt)
    if outcome.retry_in is not None:
        raise self.retry(
            args=(delivery_id,),
            kwargs={"retry_of_attempt": outcome.attempts},
            countdown=outcome.retry_in,
        )
    return outcome.status


@shared_task(name="notifications.redispatch_stranded_deliveries")
def redispatch_stranded_deliveries() -> list[str]:
    """Every 15 minutes (10, 25, 40, 55 UTC): deliveries whose task never ran get another."""
    from django.utils import timezone

    from notifications.service import dispatch

    return [str(pk) for pk in dispatch.redispatch_stranded_deliveries(timezone.now())]
