"""Celery tasks of ticketing. Thin: take ids, call one service, names pinned (beat and the
outbox send them by name; `events.tasks` imports them so Celery registers them)."""

from typing import Any

from celery import shared_task

from events.ticketing.services import payments as payment_service
from events.ticketing.services import ticket_admin as ticket_admin_service


@shared_task(name="events.expire_unpaid_tickets")
def expire_unpaid_tickets() -> dict[str, Any]:
    """Hourly (minute 15 UTC): cancel unpaid offline tickets past their payment deadline."""
    result = ticket_admin_service.expire_unpaid_tickets()
    return {
        "cancelled_tickets": result.cancelled_tickets,
        "event_ids": [str(pk) for pk in result.event_ids],
        "skipped_busy_event_ids": [str(pk) for pk in result.skipped_busy_event_ids],
    }


@shared_task(name="events.expire_online_checkouts")
def expire_online_checkouts() -> dict[str, Any]:
    """Every 5 minutes: give back the seats of online checkouts left unpaid (issue 14)."""
    return {"expired_payments": payment_service.expire_open_checkouts()}
