"""Cancelling one occurrence of a series for good.

The instant becomes an exdate, so no pass ever generates it again, and the occurrence
already materialised for it (if any) is cancelled through the normal status change.
"""

import logging
import uuid
from dataclasses import dataclass
from datetime import UTC, date, datetime

from django.db import transaction
from django.utils import timezone

from common.errors import InvalidInput
from events.core.services import event_service
from events.core.services.locks import lock_series
from events.models import Event, EventSeries, RecurrenceRule
from events.series.errors import NotAnOccurrence
from events.series.services.occurrence_dates import occurrence_on
from events.series.services.occurrences import exdate_instants, exdate_key
from events.series.services.series_parts import ONE_MICROSECOND, rule_of

logger = logging.getLogger("encore.series")


@dataclass(frozen=True)
class CancelledOccurrence:
    exdate: str
    cancelled_event_ids: list[uuid.UUID]


def cancel_occurrence(series: EventSeries, occurrence_date: datetime | date) -> CancelledOccurrence:
    """Exclude one instant for good and cancel its occurrence if it was materialised.

    A local date (no time) names the series' one occurrence that day
    (`occurrence_dates.occurrence_on`: 400 `ambiguous_date` / `not_an_occurrence`).

    Under the series lock, so concurrent cancellations never overwrite each other's
    exdates; then each matching Event under its own lock (`event_service.change_status`:
    pending offers revoked with `event_cancelled`, attendees told on commit).
    """
    if not isinstance(occurrence_date, datetime):
        occurrence_date = occurrence_on(series, occurrence_date)
    if timezone.is_naive(occurrence_date):
        raise InvalidInput({"occurrence_date": ["Give the time with its UTC offset."]})
    instant = occurrence_date.astimezone(UTC)
    with transaction.atomic():
        locked = lock_series(series.pk)
        rule = rule_of(locked)
        occurrences = list(
            Event.objects.filter(event_series=locked, is_template=False, start=instant).order_by(
                "pk"
            )
        )
        if not occurrences and not _is_rule_instant(rule, instant):
            raise NotAnOccurrence()
        key = exdate_key(instant)
        if instant not in exdate_instants(locked):
            locked.exdates = [*(locked.exdates or []), key]
            locked.save(update_fields=["exdates", "updated_at"])
        cancelled = [
            event_service.change_status(event, Event.Status.CANCELLED).pk
            for event in occurrences
            if event.status != Event.Status.CANCELLED
        ]
    series.exdates = locked.exdates
    logger.info(
        "series occurrence cancelled",
        extra={"series_id": str(series.pk), "exdate": key, "events": len(cancelled)},
    )
    return CancelledOccurrence(exdate=key, cancelled_event_ids=cancelled)


def _is_rule_instant(rule: RecurrenceRule, instant: datetime) -> bool:
    return instant in rule.get_occurrences(instant - ONE_MICROSECOND, instant + ONE_MICROSECOND)
