"""Celery tasks of the events app. Thin: take ids, call one service, names pinned."""

import uuid
from datetime import datetime
from typing import Any

from celery import shared_task


@shared_task(name="events.expire_unpaid_tickets")
def expire_unpaid_tickets() -> dict[str, Any]:
    """Hourly (minute 15 UTC): cancel unpaid offline tickets past their payment deadline."""
    from events.service import ticket_admin_service

    result = ticket_admin_service.expire_unpaid_tickets()
    return {
        "cancelled_tickets": result.cancelled_tickets,
        "event_ids": [str(pk) for pk in result.event_ids],
        "skipped_busy_event_ids": [str(pk) for pk in result.skipped_busy_event_ids],
    }


# -- the advanced waitlist (seed 000) ----------------------------------------------------------
@shared_task(name="events.process_waitlist_for_event")
def process_waitlist_for_event_task(event_id: str) -> dict[str, Any]:
    """On demand, via `enqueue_waitlist_processing`: one idempotent processing pass."""
    from events.service import waitlist_service

    result = waitlist_service.process_waitlist_for_event(uuid.UUID(event_id))
    return {
        "status": result.status,
        "offers_created": result.offers_created,
        "batch_id": str(result.batch_id) if result.batch_id else None,
        "is_cutoff_batch": result.is_cutoff_batch,
    }


@shared_task(name="events.expire_waitlist_offers")
def expire_waitlist_offers_task() -> dict[str, Any]:
    """Hourly at minute 0 UTC: lapsed offers → EXPIRED, one processing pass per event."""
    from events.service import waitlist_service

    sweep = waitlist_service.expire_waitlist_offers()
    return {"expired": sweep.expired, "event_ids": [str(pk) for pk in sweep.event_ids]}


@shared_task(name="events.nudge_open_waitlists")
def nudge_open_waitlists_task() -> list[str]:
    """Hourly at minute 30 UTC: the safety net against a lost processing pass."""
    from events.service import waitlist_service

    return [str(pk) for pk in waitlist_service.nudge_open_waitlists()]


@shared_task(name="events.send_waitlist_offer_notification")
def send_waitlist_offer_notification_task(offer_id: str) -> bool:
    """Per offer, on commit: WAITLIST_SPOT_AVAILABLE unless the offer is no longer live."""
    from events.service import waitlist_notifications

    return waitlist_notifications.send_offer_notification(uuid.UUID(offer_id))


@shared_task(name="events.send_offer_expired_notifications")
def send_offer_expired_notifications_task(event_id: str, expired_at: str) -> int:
    """After a sweep: tell each user of the event whose hold lapsed that they are back in line."""
    from events.service import waitlist_notifications

    return waitlist_notifications.send_offer_expired_notifications(
        uuid.UUID(event_id), datetime.fromisoformat(expired_at)
    )
