"""Builders for notification tests: a stored notification, its delivery rows."""

from typing import Any

from accounts.models import User
from notifications import rendering
from notifications.models import Notification, NotificationDelivery
from notifications.service.notification import normalise_context
from notifications.tests.contexts import context_for


def make_notification(
    user: User, notification_type: str = "waitlist_spot_available", **context: Any
) -> Notification:
    """Stored as the receiver stores it, but never dispatched: the test decides which
    deliveries exist and when they are sent (also in transaction=True tests)."""
    plain = normalise_context({**context_for(notification_type), **context})
    content = rendering.render_in_app(notification_type, plain, user)
    return Notification.objects.create(
        user=user,
        notification_type=notification_type,
        title=content.title,
        body=content.body,
        context=plain,
    )


def make_delivery(notification: Notification, channel: str, **fields: Any) -> NotificationDelivery:
    return NotificationDelivery.objects.create(notification=notification, channel=channel, **fields)


def run_deliver_task(delivery: NotificationDelivery, task_name: str = "deliver") -> list[str]:
    """Run `notifications.deliver` (or `task_name` of `notifications.tasks`) eagerly,
    following its retries; returns each run's result.

    With `task_eager_propagates` (the test settings) an eager `self.retry()` raises
    `Retry` carrying the signature of the next run instead of running it; a worker would
    publish that signature with its countdown. Here it runs at once, as the next attempt.
    """
    from celery.exceptions import Retry

    from notifications import tasks

    signature = getattr(tasks, task_name).s(str(delivery.pk))
    results: list[str] = []
    while True:
        try:
            results.append(signature.apply().get())
        except Retry as retry:
            results.append(f"retry in {retry.when}s")
            signature = retry.sig  # type: ignore[attr-defined]  # missing from celery-types
            assert signature is not None
        else:
            return results
