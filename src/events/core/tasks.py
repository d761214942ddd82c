"""Celery tasks of the core. Thin: take ids, call one service, names pinned (the outbox
sends them by name; `events.tasks` imports them so Celery registers them)."""

import uuid

from celery import shared_task
from django.utils import timezone

from events.core.services import event_notifications, staff_service


@shared_task(name="events.send_event_notification")
def send_event_notification_task(
    notification_type: str,
    event_id: str,
    changed_fields: list[str] | None = None,
    message: str = "",
) -> int:
    """After commit: `event_open`, `event_updated` or `event_cancelled` to the event's
    audience, however large; returns how many people were told. `message`: the
    organiser's words sent with a cancellation."""
    return event_notifications.send_event_notification(
        notification_type, uuid.UUID(event_id), changed_fields, message=message
    )


@shared_task(name="events.send_rsvp_confirmation")
def send_rsvp_confirmation_task(event_id: str, user_id: str, status: str) -> int:
    """After commit: one person's RSVP confirmation (`rsvp_confirmation`)."""
    return event_notifications.send_rsvp_confirmation(
        uuid.UUID(event_id), uuid.UUID(user_id), status
    )


@shared_task(name="events.resend_lost_rsvp_confirmations")
def resend_lost_rsvp_confirmations_task() -> int:
    """After the broker came back empty (`common.broker`): the confirmation of every recent
    answer that has none; returns how many were sent again."""
    return len(event_notifications.resend_lost_rsvp_confirmations(timezone.now()))


@shared_task(name="events.send_staff_welcome")
def send_staff_welcome_task(staff_id: str) -> bool:
    """After commit: tell a new staff member they are on the team (harmless if repeated)."""
    return staff_service.send_staff_welcome(staff_id)
