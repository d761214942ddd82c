"""Cadence drift: future occurrences that no longer sit on an instant of the rule.

A cadence change never moves existing occurrences; drift detection reports the ones
left off the new cadence and `cancel_stale_occurrences` cancels exactly those. Edited
occurrences (`is_modified`) are left out on purpose: an organiser moved them.
"""

import logging
import uuid
from datetime import UTC, datetime

from django.db import transaction
from django.utils import timezone

from common.errors import NotFound
from events.core.services import event_service
from events.core.services.locks import lock_series
from events.models import Event, EventSeries
from events.series.services.occurrences import exdate_instants
from events.series.services.series_parts import ONE_MICROSECOND

logger = logging.getLogger("encore.series")


def detect_cadence_drift(series: EventSeries) -> list[uuid.UUID]:
    """Future, non-template, not cancelled, unmodified occurrences off the current cadence.

    Two queries whatever the number of occurrences: the series with its rule, then the
    candidates. Compared by UTC instant against the rule's instants minus the exdates
    (an occurrence sitting on an exdate is reported, not masked).
    """
    fresh = EventSeries.objects.select_related("recurrence_rule").filter(pk=series.pk).first()
    if fresh is None:
        raise NotFound("Series not found.")
    return drifted_ids(fresh, timezone.now())


def cancel_stale_occurrences(series: EventSeries) -> list[uuid.UUID]:
    """Cancel every occurrence drift detection reports; returns their ids (start order)."""
    with transaction.atomic():
        locked = lock_series(series.pk)
        drifted = drifted_ids(locked, timezone.now())
        events = Event.objects.filter(pk__in=drifted).order_by("pk")  # Event locks in pk order
        for event in events:
            event_service.change_status(event, Event.Status.CANCELLED)
    logger.info(
        "stale occurrences cancelled", extra={"series_id": str(series.pk), "events": len(drifted)}
    )
    return drifted


def drifted_ids(series: EventSeries, now: datetime) -> list[uuid.UUID]:
    """The future, unmodified, live occurrences whose start the rule no longer yields.

    It takes no lock of its own: a caller that acts on the answer holds the series lock
    (`cancel_stale_occurrences`, and the split for the occurrences it moved).
    """
    rule = series.recurrence_rule
    if rule is None:
        return []
    candidates = list(
        Event.objects.filter(
            event_series=series, is_template=False, is_modified=False, start__gte=now
        )
        .exclude(status=Event.Status.CANCELLED)
        .order_by("start", "pk")
        .values_list("pk", "start")
    )
    if not candidates:
        return []
    first, last = candidates[0][1], candidates[-1][1]
    expected = set(rule.get_occurrences(first - ONE_MICROSECOND, last + ONE_MICROSECOND))
    expected -= exdate_instants(series)
    return [pk for pk, start in candidates if start.astimezone(UTC) not in expected]
