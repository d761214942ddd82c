"""Extra dates (RFC 5545 RDATE): one-off occurrences beside the rule's own.

They are stored on the series (`EventSeries.rdates`, UTC ISO instants) and expanded by
`RecurrenceRule.get_occurrences` together with the rule, so generation materialises
them, drift never reports them and `rrule_string` carries them as RDATE, without any of
those knowing about this module. What is left here is the organiser's two acts:

- adding one: a date already in the rule (or where an occurrence already starts, or a
  cancelled one) is refused with 400 `already_an_occurrence`, so a stored extra date is
  always one the rule would not produce by itself (and a later cadence change cannot
  keep a date alive behind the organiser's back); the same extra date twice is a no-op.
  After the end of a series that was split, a date belongs to its continuation (409
  `series_continued`). A date up to the generation cursor or inside the window is materialised at once (the
  next pass resumes after the cursor and would never see it); a later one waits for
  the pass that reaches it. A past date, or one on a paused series, is refused.
- removing one: it leaves `rdates`, and its future occurrence (the one generated for
  it, wherever an organiser moved it) is cancelled through the normal status change, so
  attendees are told and pending offers revoked. A past occurrence stays as it was.
"""

import logging
from datetime import UTC, datetime, timedelta

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from common.errors import InvalidInput
from events.core.services import event_service
from events.core.services.locks import lock_series
from events.models import Event, EventSeries
from events.series.errors import (
    AlreadyAnOccurrence,
    NotAnExtraDate,
    SeriesContinued,
    SeriesPaused,
)
from events.series.services import series_notifications
from events.series.services.generation import materialize_occurrences
from events.series.services.occurrences import exdate_instants, exdate_key
from events.series.services.series_parts import (
    ONE_MICROSECOND,
    rule_of,
    template_of,
)

logger = logging.getLogger("encore.series")


def add_extra_date(series: EventSeries, start: datetime) -> EventSeries:
    """Add one extra date; materialise it now when it falls up to the cursor or inside
    the window. Returns the locked, updated series."""
    instant = _instant(start)
    now = timezone.now()
    if instant <= now:
        raise InvalidInput({"start": ["An extra date must lie in the future."]})
    with transaction.atomic():
        locked = lock_series(series.pk)
        rule = rule_of(locked)
        template_of(locked)
        if instant in rule.extra_dates():
            return locked
        if not locked.is_active:
            raise SeriesPaused()
        _refuse_after_split(locked, instant)
        _refuse_existing_date(locked, instant)
        locked.rdates = sorted([*locked.rdates, exdate_key(instant)])
        locked.save(update_fields=["rdates", "updated_at"])
        rule.save(update_fields=["rrule_string", "updated_at"])  # RDATE lines follow
        if instant <= _materialised_until(locked, now):
            created = materialize_occurrences(locked, [instant])
            series_notifications.notify_series_events_generated(
                locked.pk, [event.pk for event in created]
            )
    logger.info(
        "series extra date added", extra={"series_id": str(series.pk), "rdate": instant.isoformat()}
    )
    return locked


def remove_extra_date(series: EventSeries, start: datetime) -> EventSeries:
    """Remove one extra date and cancel its future occurrence (unless the rule itself now
    has that date). Returns the locked, updated series."""
    instant = _instant(start)
    with transaction.atomic():
        locked = lock_series(series.pk)
        rule = rule_of(locked)
        if instant not in rule.extra_dates():
            raise NotAnExtraDate()
        locked.rdates = [
            value for value in locked.rdates if datetime.fromisoformat(value) != instant
        ]
        locked.save(update_fields=["rdates", "updated_at"])
        rule.save(update_fields=["rrule_string", "updated_at"])
        cancelled = []
        if instant > timezone.now() and not _is_rule_date(locked, instant):
            future = Event.objects.filter(
                event_series=locked, is_template=False, scheduled_start=instant
            ).exclude(status=Event.Status.CANCELLED)
            cancelled = [
                event_service.change_status(event, Event.Status.CANCELLED).pk
                for event in future.order_by("pk")  # Event locks in pk order
            ]
    logger.info(
        "series extra date removed",
        extra={"series_id": str(series.pk), "rdate": instant.isoformat(), "events": len(cancelled)},
    )
    return locked


def _instant(start: datetime) -> datetime:
    if timezone.is_naive(start):
        raise InvalidInput({"start": ["Give the time with its UTC offset."]})
    return start.astimezone(UTC)


def _is_rule_date(series: EventSeries, instant: datetime) -> bool:
    rule = rule_of(series)
    window = rule.get_occurrences(instant - ONE_MICROSECOND, instant + ONE_MICROSECOND, rdates=())
    return instant in window


def _refuse_after_split(series: EventSeries, instant: datetime) -> None:
    """409 `series_continued` for a date after the end of a series that was split: the
    old part of a split generates nothing more (see `split`)."""
    until = rule_of(series).until
    if until is not None and instant > until and series.continued_by.exists():
        raise SeriesContinued()


def _refuse_existing_date(series: EventSeries, instant: datetime) -> None:
    """400 `already_an_occurrence` for a rule date, an exdate or an occurrence's slot."""
    if _is_rule_date(series, instant):
        raise AlreadyAnOccurrence("This date is already a date of the series' rule.")
    if instant in exdate_instants(series):
        raise AlreadyAnOccurrence("This date of the series was cancelled.")
    taken = Event.objects.filter(
        Q(start=instant) | Q(scheduled_start=instant), event_series=series, is_template=False
    )
    if taken.exists():
        raise AlreadyAnOccurrence()


def _materialised_until(series: EventSeries, now: datetime) -> datetime:
    """The end of what the passes have covered or the next one will: an extra date up to
    here must be materialised now."""
    horizon = now + timedelta(weeks=series.generation_window_weeks)
    cursor = series.last_generated_until
    return max(horizon, cursor) if cursor is not None else horizon
