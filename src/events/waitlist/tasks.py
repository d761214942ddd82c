"""Celery tasks of the waitlist (docs/spec/waitlist-design.md). Thin: take ids, call one
service, names pinned (beat and the outbox send them by name; `events.tasks` imports
them so Celery registers them under the design's names)."""

import uuid
from datetime import datetime, timedelta
from typing import Any

from celery import shared_task
from django.utils import timezone

from events.waitlist import services as waitlist_service
from events.waitlist.services import notifications as waitlist_notifications
from events.waitlist.services import sweeps


@shared_task(name="events.process_waitlist_for_event")
def process_waitlist_for_event_task(event_id: str) -> dict[str, Any]:
    """On demand, via `enqueue_waitlist_processing`: one idempotent processing pass."""
    result = waitlist_service.process_waitlist_for_event(uuid.UUID(event_id))
    return {
        "status": result.status,
        "offers_created": result.offers_created,
        "batch_id": str(result.batch_id) if result.batch_id else None,
        "is_cutoff_batch": result.is_cutoff_batch,
    }


@shared_task(name="events.expire_event_offers")
def expire_event_offers_task(event_id: str, due: str | None = None) -> dict[str, Any]:
    """At an offer deadline (ETA, `schedule_offer_expiry`): that event's lapsed offers →
    EXPIRED and the next batch, in seconds; early, it sends itself again (ADR 0019)."""
    result = waitlist_service.expire_event_offers(
        uuid.UUID(event_id), datetime.fromisoformat(due) if due else None
    )
    return {
        "expired": result.expired,
        "offers_created": result.offers_created,
        "early": result.early,
    }


@shared_task(name="events.expire_waitlist_offers")
def expire_waitlist_offers_task() -> dict[str, Any]:
    """Hourly at minute 0 UTC: lapsed offers → EXPIRED, one processing pass per event."""
    sweep = waitlist_service.expire_waitlist_offers()
    return {"expired": sweep.expired, "event_ids": [str(pk) for pk in sweep.event_ids]}


@shared_task(name="events.nudge_open_waitlists")
def nudge_open_waitlists_task() -> list[str]:
    """Hourly at minute 30 UTC: the safety net against a lost processing pass."""
    return [str(pk) for pk in waitlist_service.nudge_open_waitlists()]


@shared_task(name="events.recover_lost_waitlist_tasks")
def recover_lost_waitlist_tasks_task() -> dict[str, int]:
    """After the broker came back empty (`common.broker`): a pass for every open queue,
    every pending offer's expiry scheduled again, every unannounced offer announced."""
    now = timezone.now()
    return {
        "passes": len(sweeps.nudge_open_waitlists(now)),
        "expiries": len(sweeps.reschedule_offer_expiries(now)),
        "announcements": len(
            waitlist_notifications.resend_lost_offer_notifications(now, after=timedelta(0))
        ),
    }


@shared_task(name="events.send_waitlist_offer_notification")
def send_waitlist_offer_notification_task(offer_id: str) -> bool:
    """Per offer, on commit: WAITLIST_SPOT_AVAILABLE unless the offer is no longer live."""
    return waitlist_notifications.send_offer_notification(uuid.UUID(offer_id))


@shared_task(name="events.resend_waitlist_offer_notifications")
def resend_waitlist_offer_notifications_task() -> list[str]:
    """Every 15 minutes (5, 20, 35, 50 UTC): re-dispatch offer notifications that were
    lost on their way (the offers' own safety net, as the nudge is the passes')."""
    lost = waitlist_notifications.resend_lost_offer_notifications(timezone.now())
    return [str(pk) for pk in lost]


# Acknowledged on receipt, unlike every other task: run twice it would tell each member
# twice; lost with a killed worker, they are not told they are back in line (ADR 0012).
@shared_task(name="events.send_offer_expired_notifications", acks_late=False)
def send_offer_expired_notifications_task(event_id: str, expired_at: str) -> int:
    """After a sweep: tell each user of the event whose hold lapsed that they are back in line."""
    return waitlist_notifications.send_offer_expired_notifications(
        uuid.UUID(event_id), datetime.fromisoformat(expired_at)
    )
