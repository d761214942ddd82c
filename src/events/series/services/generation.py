"""Generation: the single way occurrences come into being (docs/spec/series-design.md).

`generate_series_events` runs the seed's flowchart under Encore's decisions
(docs/spec/seed-tables.md "Encore decisions for series"):

1. a cheap pre-check on the instance (active, has a rule and a template), no query;
2. one transaction that starts by locking the EventSeries row (`lock_series`, the first
   lock of the global order), so a beat pass and a manual "generate now" serialise
   instead of racing on the same occurrences; the locked row is checked again;
3. the window: `start_from = max(cursor or dtstart − 1 s, now)` (never in the past),
   `horizon = now + generation_window_weeks` (or a manual `until` ≤ now + 52 weeks),
   `start_from` clamped to the horizon so a shrunk window cannot stall;
4. every instant of the rule with `start_from < start <= horizon` that is neither an
   exdate nor the slot of an existing occurrence (its `scheduled_start`, which stays
   when an organiser moves it; UTC instants compared) is materialised, the occurrence
   indexes continuing from the highest one;
5. the cursor moves to the horizon in the same transaction as the occurrences;
6. after the commit, one SERIES_EVENTS_GENERATED digest for the batch (none when
   nothing was created); occurrences never send `event_open` one by one.

Occurrences are written with `bulk_create` (events, then their cloned tiers), so a pass
costs a fixed number of queries whatever it creates.
"""

import logging
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from django.db import IntegrityError, transaction
from django.db.models import Max, Q
from django.db.models.functions import Coalesce
from django.utils import timezone

from common import dispatch, metrics
from common.errors import InvalidInput
from events.core.services.locks import lock_series
from events.models import Event, EventSeries, TicketTier
from events.series.errors import UntilInPast
from events.series.services import series_notifications
from events.series.services.occurrences import (
    Occurrence,
    duplicate_event,
    exdate_instants,
    occurrence_slugs,
)
from events.series.services.series_parts import ONE_MICROSECOND, rule_of, template_of
from events.utils.recurrence_validators import GENERATION_WINDOW_WEEKS_MAX

logger = logging.getLogger("encore.series")

ONE_SECOND = timedelta(seconds=1)
MAX_MANUAL_HORIZON = timedelta(weeks=GENERATION_WINDOW_WEEKS_MAX)
INSERT_ATTEMPTS = 3


@dataclass(frozen=True)
class GenerationWindow:
    """Occurrences with `start_from < start <= horizon` belong to the pass."""

    start_from: datetime
    horizon: datetime


def generate_series_events(
    series: EventSeries, until_override: datetime | None = None
) -> list[Event]:
    """Materialise the rule's occurrences up to the horizon; returns the new events."""
    if not can_generate(series):
        return []
    _check_until_override(until_override, timezone.now())
    with transaction.atomic():
        locked = lock_series(series.pk)
        if not can_generate(locked):
            return []
        now = timezone.now()
        _check_until_after_cursor(until_override, locked.last_generated_until)
        window = generation_window(locked, now, until_override)
        created = _materialize_window(locked, window)
        finish_pass(locked, window, created, now)
        series.last_generated_until = window.horizon
    logger.info(
        "series generation pass",
        extra={
            "series_id": str(series.pk),
            "events_created": len(created),
            "start_from": window.start_from.isoformat(),
            "horizon": window.horizon.isoformat(),
        },
    )
    return created


def generate_for_series_id(series_id: uuid.UUID) -> int:
    """The per-series task's entry point: one pass; a vanished series creates nothing."""
    series = EventSeries.objects.filter(pk=series_id).first()
    if series is None:
        logger.warning("series to generate no longer exists", extra={"series_id": str(series_id)})
        return 0
    return len(generate_series_events(series))


def generatable_series_ids() -> list[uuid.UUID]:
    """Active series with a rule and a template: the daily fan-out's work list."""
    return list(
        EventSeries.objects.filter(
            is_active=True, recurrence_rule__isnull=False, template_event__isnull=False
        )
        .order_by("pk")
        .values_list("pk", flat=True)
    )


def dispatch_series_generation() -> list[uuid.UUID]:
    """The daily fan-out: one `events.generate_single_series_events` task per generatable
    series, so one failing series never blocks the others. Returns the series the broker
    took; a refused one waits in the outbox, and the next day's run catches up."""
    return [
        series_id
        for series_id in generatable_series_ids()
        if dispatch.now("events.generate_single_series_events", str(series_id))
    ]


def generation_window(
    series: EventSeries, now: datetime, until_override: datetime | None = None
) -> GenerationWindow:
    """The window of a pass (module docstring, step 3); `series.recurrence_rule` loaded."""
    rule = rule_of(series)
    horizon = until_override or now + timedelta(weeks=series.generation_window_weeks)
    start_from = max(series.last_generated_until or rule.dtstart - ONE_SECOND, now)
    return GenerationWindow(start_from=min(start_from, horizon), horizon=horizon)


def finish_pass(
    series: EventSeries, window: GenerationWindow, created: Sequence[Event], now: datetime
) -> None:
    """Steps 5 and 6 of a pass (the caller holds the series lock): the cursor moves to
    the horizon with the occurrences, and the digest is sent once they commit. A series
    change (`changes`) ends its pass here too."""
    EventSeries.objects.filter(pk=series.pk).update(
        last_generated_until=window.horizon, updated_at=now
    )
    series.last_generated_until = window.horizon
    metrics.count(metrics.SERIES_GENERATION_PASSES, created=str(bool(created)).lower())
    if created:
        series_notifications.notify_series_events_generated(
            series.pk, [event.pk for event in created]
        )


def can_generate(series: EventSeries) -> bool:
    return bool(
        series.is_active
        and series.recurrence_rule_id is not None
        and series.template_event_id is not None
    )


def _check_until_override(until: datetime | None, now: datetime) -> None:
    if until is None:
        return
    if timezone.is_naive(until):
        raise InvalidInput({"until": ["Give the time with its UTC offset."]})
    if until > now + MAX_MANUAL_HORIZON:
        raise InvalidInput({"until": ["Occurrences can be generated at most 52 weeks ahead."]})
    if until < now:
        raise UntilInPast("`until` lies in the past.")


def _check_until_after_cursor(until: datetime | None, cursor: datetime | None) -> None:
    """Under the series lock: the cursor never moves back, or the next pass would
    re-create an occurrence deleted since (the cheap check above cannot see the cursor)."""
    if until is not None and cursor is not None and until < cursor:
        raise UntilInPast(
            f"Occurrences are already generated until {cursor.isoformat()}; give a later `until`."
        )


def _materialize_window(series: EventSeries, window: GenerationWindow) -> list[Event]:
    rule = rule_of(series)
    instants = rule.get_occurrences(window.start_from, window.horizon + ONE_MICROSECOND)
    if not instants:
        return []
    # A slot is taken by the occurrence generated for it, wherever an organiser moved it;
    # an event attached to the series some other way holds the slot of its start.
    after, until = window.start_from, window.horizon
    slots = Q(scheduled_start__gt=after, scheduled_start__lte=until) | Q(
        scheduled_start__isnull=True, start__gt=after, start__lte=until
    )
    existing = (
        Event.objects.filter(slots, event_series=series, is_template=False)
        .order_by()
        .values_list(Coalesce("scheduled_start", "start"), flat=True)
    )  # one moment per row, unsorted: a rescan of 52 weeks reads 156 (docs/spec/quality.md c3)
    skipped = exdate_instants(series) | {slot.astimezone(UTC) for slot in existing}
    wanted = [instant for instant in instants if instant not in skipped]
    if not wanted:
        return []
    return materialize_occurrences(series, wanted)


# -- materialisation -----------------------------------------------------------------------
def materialize_occurrences(series: EventSeries, starts: Sequence[datetime]) -> list[Event]:
    """Create one occurrence per start (bulk insert; the caller holds the series lock).

    The series lock keeps other passes out, not a one-off event created meanwhile with
    one of the slugs: the insert then fails, and the batch is tried again with slugs
    chosen afresh (a taken one gets its suffix), at most INSERT_ATTEMPTS times.
    """
    template = template_of(series)
    zone_name = rule_of(series).timezone
    tiers = list(TicketTier.objects.filter(event=template).order_by("pk"))
    slugs = occurrence_slugs(template, starts, zone_name)
    first_index = _next_occurrence_index(series)
    occurrences = [
        materialize_occurrence(series, start, first_index + offset, tiers=tiers, slug=slug)
        for offset, (start, slug) in enumerate(zip(starts, slugs, strict=True))
    ]
    for attempt in range(INSERT_ATTEMPTS):
        try:
            _insert(occurrences)
            break
        except IntegrityError:
            if attempt == INSERT_ATTEMPTS - 1:
                raise
            fresh = occurrence_slugs(template, starts, zone_name)
            for occurrence, slug in zip(occurrences, fresh, strict=True):
                occurrence.event.slug = slug
    return [occurrence.event for occurrence in occurrences]


def materialize_occurrence(
    series: EventSeries,
    start: datetime,
    index: int,
    *,
    tiers: Sequence[TicketTier] | None = None,
    slug: str | None = None,
) -> Occurrence:
    """One occurrence of `series` at `start`: OPEN when the series auto-publishes, else
    DRAFT. Nothing is written: `materialize_occurrences` inserts a batch at once."""
    status = Event.Status.OPEN if series.auto_publish else Event.Status.DRAFT
    return duplicate_event(template_of(series), start, index, status, tiers=tiers, slug=slug)


def _next_occurrence_index(series: EventSeries) -> int:
    highest = Event.objects.filter(event_series=series).aggregate(top=Max("occurrence_index"))
    return (highest["top"] or 0) + 1


def _insert(occurrences: Sequence[Occurrence]) -> None:
    """Bulk insert events then tiers, all or nothing (a savepoint)."""
    with transaction.atomic():
        Event.objects.bulk_create([occurrence.event for occurrence in occurrences])
        TicketTier.objects.bulk_create(
            [tier for occurrence in occurrences for tier in occurrence.tiers]
        )
