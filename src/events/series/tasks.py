"""Celery tasks of the series (docs/spec/series-design.md). Thin: take ids, call one
service, names pinned. `events.tasks` imports this module, so Celery's autodiscovery of
the `events` app registers them."""

import uuid
from typing import Any

from celery import shared_task
from celery.utils.time import get_exponential_backoff_interval
from django.db import InterfaceError, OperationalError

from common.locking import is_transient_db_error
from events.series import services as recurrence_service

SERIES_MAX_RETRIES = 3
SERIES_RETRY_FACTOR_SECONDS = 10
SERIES_RETRY_MAX_SECONDS = 300


@shared_task(name="events.generate_recurring_events")
def generate_recurring_events_task() -> list[str]:
    """Daily at 04:00 UTC: one `generate_single_series_events` per active series."""
    return [str(pk) for pk in recurrence_service.dispatch_series_generation()]


@shared_task(bind=True, name="events.generate_single_series_events", max_retries=SERIES_MAX_RETRIES)
def generate_single_series_events_task(self: Any, series_id: str) -> int:
    """One generation pass for one series; retried with exponential backoff only on
    transient database errors, so a programming error fails on the first run."""
    try:
        return recurrence_service.generate_for_series_id(uuid.UUID(series_id))
    except (OperationalError, InterfaceError) as error:
        if not is_transient_db_error(error):
            raise
        countdown = get_exponential_backoff_interval(
            SERIES_RETRY_FACTOR_SECONDS,
            self.request.retries,
            SERIES_RETRY_MAX_SECONDS,
            full_jitter=True,
        )
        raise self.retry(exc=error, countdown=countdown) from error
