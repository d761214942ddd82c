"""Celery tasks of the events app. Thin: take ids, call one service, names pinned."""

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
