"""Recurring event series (seed 004): rolling-window generation and series administration.

`generate_series_events` is the single way occurrences come into being. It runs the
seed's flowchart under Encore's decisions (seed-tables.md "Encore decisions for series"):

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
costs a fixed number of queries whatever it creates. Bulk inserts skip `Event.save()`,
which is why `duplicate_event` copies every stored value of the template (its derived
defaults included) and shifts every datetime by the same offset: each rule of
`Event.clean()` compares datetimes of one event with each other, so the shifted copy of
a valid template is valid, and the database constraints check it again.

The administration functions (`update_series_recurrence`, `cancel_occurrence`,
`cancel_stale_occurrences`, `update_template`, `pause_series`, `resume_series`) lock the
series row first as well, then Event rows (pk order), per domain.md.
"""

import logging
import secrets
import uuid
from collections.abc import Mapping, Sequence
from copy import deepcopy
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from django.db import IntegrityError, models, transaction
from django.db.models import Max, Q
from django.utils import timezone
from django.utils.text import slugify

from common import metrics
from common.errors import Conflict, InvalidInput, NotFound
from common.timezones import get_zone
from events.models import (
    Event,
    EventSeries,
    Organization,
    RecurrenceRule,
    TicketTier,
    Venue,
)
from events.models.event_series import DEFAULT_GENERATION_WINDOW_WEEKS
from events.models.recurrence_rule import SCHEDULE_FIELDS
from events.series_errors import NotAnOccurrence, NotARecurringSeries
from events.service import (
    event_notifications,
    event_service,
    series_notifications,
    waitlist_service,
    waitlist_settings_service,
)
from events.service.locks import lock_series
from events.utils.recurrence_validators import GENERATION_WINDOW_WEEKS_MAX

logger = logging.getLogger("encore.series")

ONE_SECOND = timedelta(seconds=1)
ONE_MICROSECOND = timedelta(microseconds=1)
MAX_MANUAL_HORIZON = timedelta(weeks=GENERATION_WINDOW_WEEKS_MAX)
#: Room for "-YYYY-MM-DD-xxxxxx" in the 220-character slug column.
SLUG_BASE_MAX = 202
INSERT_ATTEMPTS = 3
#: Per-occurrence state: never copied from the template (set by `duplicate_event`).
_EVENT_OWN_FIELDS = frozenset(
    {
        "id",
        "created_at",
        "updated_at",
        "slug",
        "start",
        "status",
        "is_template",
        "is_modified",
        "occurrence_index",
        "event_series",
        "attendee_count",
        "scheduled_start",
    }
)
_TIER_OWN_FIELDS = frozenset({"id", "created_at", "updated_at", "event", "quantity_sold"})
#: seed-tables.md: what a template edit may push onto its occurrences.
PROPAGATABLE_FIELDS = frozenset(
    {
        "name",
        "description",
        "visibility",
        "event_type",
        "requires_ticket",
        "max_attendees",
        "venue",
        "visibility_settings",
        "waitlist_open",
        "waitlist_time_window",
        "waitlist_batch_size",
        "waitlist_lottery_mode",
    }
)
PROPAGATION_SCOPES = ("none", "future_unmodified", "all_future")
#: Event.attname of each propagatable field (the venue is compared by id).
_ATTNAMES = {name: ("venue_id" if name == "venue" else name) for name in PROPAGATABLE_FIELDS}


# -- generation ----------------------------------------------------------------------------
@dataclass(frozen=True)
class GenerationWindow:
    """Occurrences with `start_from < start <= horizon` belong to the pass."""

    start_from: datetime
    horizon: datetime


def generate_series_events(
    series: EventSeries, until_override: datetime | None = None
) -> list[Event]:
    """Materialise the rule's occurrences up to the horizon; returns the new events."""
    if not _can_generate(series):
        return []
    _check_until_override(until_override, timezone.now())
    with transaction.atomic():
        locked = lock_series(series.pk)
        if not _can_generate(locked):
            return []
        now = timezone.now()
        window = generation_window(locked, now, until_override)
        created = _materialize_window(locked, window)
        EventSeries.objects.filter(pk=locked.pk).update(
            last_generated_until=window.horizon, updated_at=now
        )
        series.last_generated_until = window.horizon
        metrics.count(metrics.SERIES_GENERATION_PASSES, created=str(bool(created)).lower())
        if created:
            series_notifications.notify_series_events_generated(
                locked.pk, [event.pk for event in created]
            )
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


def generation_window(
    series: EventSeries, now: datetime, until_override: datetime | None = None
) -> GenerationWindow:
    """The window of a pass (module docstring, step 3); `series.recurrence_rule` loaded."""
    rule = _rule_of(series)
    horizon = until_override or now + timedelta(weeks=series.generation_window_weeks)
    start_from = max(series.last_generated_until or rule.dtstart - ONE_SECOND, now)
    return GenerationWindow(start_from=min(start_from, horizon), horizon=horizon)


def _can_generate(series: EventSeries) -> bool:
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


def _materialize_window(series: EventSeries, window: GenerationWindow) -> list[Event]:
    rule = _rule_of(series)
    instants = rule.get_occurrences(window.start_from, window.horizon + ONE_MICROSECOND)
    if not instants:
        return []
    # A slot is taken by the occurrence generated for it, wherever an organiser moved it;
    # an event attached to the series some other way holds the slot of its start.
    after, until = window.start_from, window.horizon
    slots = Q(scheduled_start__gt=after, scheduled_start__lte=until) | Q(
        scheduled_start__isnull=True, start__gt=after, start__lte=until
    )
    existing = Event.objects.filter(slots, event_series=series, is_template=False).values_list(
        "scheduled_start", "start"
    )
    skipped = exdate_instants(series) | {
        (scheduled or start).astimezone(UTC) for scheduled, start in existing
    }
    wanted = [instant for instant in instants if instant not in skipped]
    if not wanted:
        return []
    return materialize_occurrences(series, wanted)


# -- materialisation -----------------------------------------------------------------------
@dataclass
class Occurrence:
    """An unsaved occurrence and its unsaved tiers, ready for the bulk insert."""

    event: Event
    tiers: list[TicketTier] = field(default_factory=list)


def materialize_occurrences(series: EventSeries, starts: Sequence[datetime]) -> list[Event]:
    """Create one occurrence per start (bulk insert; the caller holds the series lock)."""
    template = _template_of(series)
    tiers = list(TicketTier.objects.filter(event=template).order_by("pk"))
    slugs = occurrence_slugs(template, starts, _rule_of(series).timezone)
    first_index = _next_occurrence_index(series)
    occurrences = [
        materialize_occurrence(series, start, first_index + offset, tiers=tiers, slug=slug)
        for offset, (start, slug) in enumerate(zip(starts, slugs, strict=True))
    ]
    _insert(occurrences)
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
    return duplicate_event(_template_of(series), start, index, status, tiers=tiers, slug=slug)


def duplicate_event(
    template: Event,
    start: datetime,
    index: int,
    status: str,
    *,
    tiers: Sequence[TicketTier] | None = None,
    slug: str | None = None,
) -> Occurrence:
    """An unsaved clone of `template` starting at `start`, with clones of its tiers.

    Every stored value is copied except the per-occurrence state; every datetime (end,
    RSVP deadline, check-in window, waitlist cutoff, tier sale windows) shifts by
    `start − template.start`. Tiers start with nothing sold; the event with no attendee.
    """
    shift = start - template.start
    event = Event(
        **_copied_values(template, _EVENT_OWN_FIELDS, shift),
        slug=slug or _dated_slug(template.slug, start, template.timezone or "UTC"),
        start=start,
        status=status,
        is_template=False,
        is_modified=False,
        occurrence_index=index,
        event_series_id=template.event_series_id,
        attendee_count=0,
        scheduled_start=start,
    )
    if tiers is None:
        tiers = list(TicketTier.objects.filter(event=template).order_by("pk"))
    clones = [
        TicketTier(**_copied_values(tier, _TIER_OWN_FIELDS, shift), event=event, quantity_sold=0)
        for tier in tiers
    ]
    return Occurrence(event=event, tiers=clones)


def _copied_values(
    source: models.Model, own_fields: frozenset[str], shift: timedelta
) -> dict[str, Any]:
    values: dict[str, Any] = {}
    for model_field in source._meta.concrete_fields:
        if model_field.name in own_fields:
            continue
        value = getattr(source, model_field.attname)
        if isinstance(model_field, models.DateTimeField) and value is not None:
            value = value + shift
        values[model_field.attname] = deepcopy(value) if isinstance(value, dict | list) else value
    return values


def occurrence_slugs(template: Event, starts: Sequence[datetime], zone_name: str) -> list[str]:
    """`<template slug>-YYYY-MM-DD` (the date in the rule's zone); a random suffix if taken."""
    wanted = [_dated_slug(template.slug, start, zone_name) for start in starts]
    taken = set(
        Event.objects.filter(organization_id=template.organization_id, slug__in=wanted).values_list(
            "slug", flat=True
        )
    )
    slugs: list[str] = []
    for slug in wanted:
        candidate = slug
        while candidate in taken:
            candidate = f"{slug}-{secrets.token_hex(3)}"
        taken.add(candidate)
        slugs.append(candidate)
    return slugs


def _dated_slug(base: str, start: datetime, zone_name: str) -> str:
    local_day = start.astimezone(get_zone(zone_name)).date()
    return f"{base[:SLUG_BASE_MAX].strip('-')}-{local_day.isoformat()}"


def _next_occurrence_index(series: EventSeries) -> int:
    highest = Event.objects.filter(event_series=series).aggregate(top=Max("occurrence_index"))
    return (highest["top"] or 0) + 1


def _insert(occurrences: Sequence[Occurrence]) -> None:
    """Bulk insert events then tiers; a slug another writer took meanwhile gets a suffix."""
    events = [occurrence.event for occurrence in occurrences]
    tiers = [tier for occurrence in occurrences for tier in occurrence.tiers]
    for attempt in range(INSERT_ATTEMPTS):
        try:
            with transaction.atomic():
                Event.objects.bulk_create(events)
                TicketTier.objects.bulk_create(tiers)
            return
        except IntegrityError:
            if attempt == INSERT_ATTEMPTS - 1:
                raise
            _resuffix_taken_slugs(events)


def _resuffix_taken_slugs(events: Sequence[Event]) -> None:
    if not events:
        return
    taken = set(
        Event.objects.filter(
            organization_id=events[0].organization_id, slug__in=[event.slug for event in events]
        ).values_list("slug", flat=True)
    )
    for event in events:
        if event.slug in taken:
            event.slug = f"{event.slug}-{secrets.token_hex(3)}"


# -- exdates -------------------------------------------------------------------------------
def exdate_key(moment: datetime) -> str:
    """The stored form of an excluded instant: ISO 8601 in UTC."""
    return moment.astimezone(UTC).isoformat()


def exdate_instants(series: EventSeries) -> set[datetime]:
    return {datetime.fromisoformat(value).astimezone(UTC) for value in series.exdates or []}


# -- cursor and cadence --------------------------------------------------------------------
def update_series_recurrence(
    series: EventSeries,
    rule_changes: Mapping[str, Any],
    auto_publish: bool | None = None,
    generation_window_weeks: int | None = None,
) -> EventSeries:
    """Apply partial changes to the rule and the series (a refused value writes nothing).

    A changed schedule field or window resets the cursor, so the next pass rescans from
    `max(dtstart, now)`: a shrunk window cannot stall, a grown one or a new cadence
    backfills. Occurrences already materialised keep their dates (see drift).
    """
    unknown = sorted(set(rule_changes) - set(SCHEDULE_FIELDS))
    if unknown:
        raise InvalidInput({name: ["Not a field of the recurrence rule."] for name in unknown})
    with transaction.atomic():
        locked = lock_series(series.pk)
        rule = _rule_of(locked)
        schedule_changed = _apply_rule_changes(rule, rule_changes)
        changed = []
        if auto_publish is not None and auto_publish != locked.auto_publish:
            locked.auto_publish = auto_publish
            changed.append("auto_publish")
        window_changed = False
        if (
            generation_window_weeks is not None
            and generation_window_weeks != locked.generation_window_weeks
        ):
            locked.generation_window_weeks = generation_window_weeks
            changed.append("generation_window_weeks")
            window_changed = True
        if schedule_changed or window_changed:
            locked.last_generated_until = None
            changed.append("last_generated_until")
        if changed:
            locked.full_clean(exclude=["recurrence_rule", "template_event"])
            locked.save(update_fields=[*changed, "updated_at"])
    logger.info(
        "series recurrence updated",
        extra={"series_id": str(series.pk), "schedule_changed": schedule_changed},
    )
    return locked


def _apply_rule_changes(rule: RecurrenceRule, changes: Mapping[str, Any]) -> bool:
    """Set, validate and save the rule; True when the schedule really changed."""
    before = rule.schedule()
    for name, value in changes.items():
        setattr(rule, name, value)
    if isinstance(rule.weekdays, list) and all(isinstance(day, int) for day in rule.weekdays):
        rule.weekdays = sorted(set(rule.weekdays))
    rule.full_clean()
    if rule.schedule() == before:
        return False
    rule.save()
    return True


def detect_cadence_drift(series: EventSeries) -> list[uuid.UUID]:
    """Future, non-template, not cancelled, unmodified occurrences off the current cadence.

    Two queries whatever the number of occurrences: the series with its rule, then the
    candidates. Compared by UTC instant against the rule's instants minus the exdates
    (an occurrence sitting on an exdate is reported, not masked).
    """
    fresh = EventSeries.objects.select_related("recurrence_rule").filter(pk=series.pk).first()
    if fresh is None:
        raise NotFound("Series not found.")
    return _drifted_ids(fresh, timezone.now())


def _drifted_ids(series: EventSeries, now: datetime) -> list[uuid.UUID]:
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


# -- cancelling ----------------------------------------------------------------------------
@dataclass(frozen=True)
class CancelledOccurrence:
    exdate: str
    cancelled_event_ids: list[uuid.UUID]


def cancel_occurrence(series: EventSeries, occurrence_date: datetime) -> CancelledOccurrence:
    """Exclude one instant for good and cancel its occurrence if it was materialised.

    Under the series lock, so concurrent cancellations never overwrite each other's
    exdates; then each matching Event under its own lock (`event_service.change_status`:
    pending offers revoked with `event_cancelled`, attendees told on commit).
    """
    if timezone.is_naive(occurrence_date):
        raise InvalidInput({"occurrence_date": ["Give the time with its UTC offset."]})
    instant = occurrence_date.astimezone(UTC)
    with transaction.atomic():
        locked = lock_series(series.pk)
        rule = _rule_of(locked)
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


def cancel_stale_occurrences(series: EventSeries) -> list[uuid.UUID]:
    """Cancel every occurrence drift detection reports; returns their ids (start order)."""
    with transaction.atomic():
        locked = lock_series(series.pk)
        drifted = _drifted_ids(locked, timezone.now())
        events = Event.objects.filter(pk__in=drifted).order_by("pk")  # Event locks in pk order
        for event in events:
            event_service.change_status(event, Event.Status.CANCELLED)
    logger.info(
        "stale occurrences cancelled", extra={"series_id": str(series.pk), "events": len(drifted)}
    )
    return drifted


# -- pausing -------------------------------------------------------------------------------
def pause_series(series: EventSeries) -> EventSeries:
    """Stop generating; the cursor and the occurrences stay as they are."""
    return _set_active(series, active=False)


def resume_series(series: EventSeries) -> EventSeries:
    return _set_active(series, active=True)


def _set_active(series: EventSeries, *, active: bool) -> EventSeries:
    with transaction.atomic():
        locked = lock_series(series.pk)
        if locked.is_active != active:
            locked.is_active = active
            locked.save(update_fields=["is_active", "updated_at"])
    series.is_active = active
    return locked


# -- template propagation ------------------------------------------------------------------
@dataclass(frozen=True)
class TemplateUpdate:
    template: Event
    propagated_event_ids: list[uuid.UUID]


def update_template(
    series: EventSeries, changes: Mapping[str, Any], propagate: str = "none"
) -> TemplateUpdate:
    """Edit the template and, per scope, its future occurrences, all or nothing.

    `none`: the template only (new occurrences pick it up); `future_unmodified`: also
    future occurrences nobody edited; `all_future`: every future occurrence. Each row is
    validated with `full_clean()` and saved on its own; a refusal anywhere rolls the whole
    edit back. Only PROPAGATABLE_FIELDS may change: schedule, status, slug, series
    fields, counters and tiers stay each occurrence's own. A propagated change is not
    an organiser's edit of the occurrence, so `is_modified` stays as it was.
    """
    _check_template_changes(changes, propagate)
    with transaction.atomic():
        locked = lock_series(series.pk)
        template = _template_of(locked)
        venue = _resolve_venue(locked.organization, changes)
        targets = _propagation_targets(locked, template, propagate, timezone.now())
        for event in targets:
            _apply_template_changes(event, changes, venue)
    updated_template = next(event for event in targets if event.pk == template.pk)
    propagated = [event.pk for event in targets if event.pk != template.pk]
    logger.info(
        "series template updated",
        extra={"series_id": str(series.pk), "scope": propagate, "propagated": len(propagated)},
    )
    return TemplateUpdate(template=updated_template, propagated_event_ids=propagated)


def _check_template_changes(changes: Mapping[str, Any], propagate: str) -> None:
    if propagate not in PROPAGATION_SCOPES:
        raise InvalidInput({"propagate": [f"Expected one of {', '.join(PROPAGATION_SCOPES)}."]})
    refused = sorted(set(changes) - PROPAGATABLE_FIELDS)
    if refused:
        raise InvalidInput(
            {name: ["This field cannot be changed on a series template."] for name in refused}
        )


def _resolve_venue(organization: Organization, changes: Mapping[str, Any]) -> Venue | None:
    """The organisation's venue for a `venue` change (an id, or None to clear it)."""
    return event_service.venue_of(organization, changes.get("venue"), field="venue")


def _propagation_targets(
    series: EventSeries, template: Event, scope: str, now: datetime
) -> list[Event]:
    """The template and the occurrences the scope reaches, locked in pk order."""
    reached = models.Q(pk=template.pk)
    if scope != "none":
        future = models.Q(event_series=series, is_template=False, start__gte=now)
        if scope == "future_unmodified":
            future &= models.Q(is_modified=False)
        reached |= future
    return list(
        Event.objects.select_for_update(of=("self",))
        .select_related("organization", "venue")
        .filter(reached)
        .order_by("pk")
    )


def _apply_template_changes(event: Event, changes: Mapping[str, Any], venue: Venue | None) -> None:
    before = {attname: getattr(event, attname) for attname in _ATTNAMES.values()}
    old_capacity = event.effective_capacity
    for name, value in changes.items():
        if name == "venue":
            event.venue = venue
        elif name == "visibility_settings":
            event.visibility_settings = event_service.merged_visibility_settings(event, value)
        elif name == "name" and isinstance(value, str):
            event.name = value.strip()
        else:
            setattr(event, name, value)
    event.full_clean()
    changed = [attname for attname, value in before.items() if getattr(event, attname) != value]
    if not changed:
        return
    if "requires_ticket" in changed:
        event_service.switch_registration_mode(event)
    event.save(update_fields=[*changed, "updated_at"])
    if event.is_template:
        return
    _after_propagated_change(event, changed, old_capacity, was_open=before["waitlist_open"])


def _after_propagated_change(
    event: Event, changed: list[str], old_capacity: int, *, was_open: bool
) -> None:
    """The event PATCH's trigger rules, for one occurrence (its row is locked)."""
    new_capacity = event.effective_capacity
    if old_capacity and (new_capacity == 0 or new_capacity > old_capacity):
        waitlist_service.enqueue_waitlist_processing(event.pk)
    waitlist_settings_service.after_waitlist_settings_change(
        event, was_open=was_open, changed=changed
    )
    if "venue_id" in changed:
        event_notifications.notify_event_updated(event.pk, ["venue_id"])


# -- creation ------------------------------------------------------------------------------
def create_recurring_event_series(
    organization: Organization,
    event_data: Mapping[str, Any],
    series_name: str,
    recurrence_data: Mapping[str, Any],
    *,
    description: str = "",
    auto_publish: bool = False,
    generation_window_weeks: int = DEFAULT_GENERATION_WINDOW_WEEKS,
) -> EventSeries:
    """Rule + series + DRAFT template (start = dtstart), then the first generation pass,
    in one transaction: a refusal anywhere writes nothing.

    `event_data` takes the fields of the event create body (status aside: a template is a
    draft); the template's timezone defaults to the rule's.
    """
    rule = _new_rule(recurrence_data)
    series = EventSeries(
        organization=organization,
        name=(series_name or "").strip(),
        description=description,
        auto_publish=auto_publish,
        generation_window_weeks=generation_window_weeks,
    )
    series.slug = _free_series_slug(organization, series.name)
    series.full_clean(exclude=["recurrence_rule", "template_event"])
    template_fields = _template_fields(event_data, rule)
    with transaction.atomic():
        rule.save(force_insert=True)
        series.recurrence_rule = rule
        _insert_series(series)
        template = event_service.create_event(organization, template_fields)
        Event.objects.filter(pk=template.pk).update(is_template=True, event_series=series)
        template.is_template, template.event_series = True, series
        series.template_event = template
        series.save(update_fields=["template_event", "updated_at"])
        generate_series_events(series)
    logger.info(
        "recurring series created",
        extra={"series_id": str(series.pk), "organization_id": str(organization.pk)},
    )
    return series


def _new_rule(recurrence_data: Mapping[str, Any]) -> RecurrenceRule:
    unknown = sorted(set(recurrence_data) - set(SCHEDULE_FIELDS))
    if unknown:
        raise InvalidInput({name: ["Not a field of the recurrence rule."] for name in unknown})
    rule = RecurrenceRule(**recurrence_data)
    if isinstance(rule.weekdays, list) and all(isinstance(day, int) for day in rule.weekdays):
        rule.weekdays = sorted(set(rule.weekdays))
    rule.full_clean()
    return rule


def _template_fields(event_data: Mapping[str, Any], rule: RecurrenceRule) -> dict[str, Any]:
    fields = dict(event_data)
    status = fields.pop("status", None)
    if status not in (None, Event.Status.DRAFT):
        raise InvalidInput({"status": ["A series template is always a draft."]})
    start = fields.get("start")
    if start is not None and start != rule.dtstart:
        raise InvalidInput({"start": ["The template starts at the rule's dtstart."]})
    fields["start"] = rule.dtstart
    fields.setdefault("timezone", rule.timezone)
    return fields


def _free_series_slug(organization: Organization, name: str) -> str:
    base = slugify(name)[:150].strip("-") or "series"
    taken = set(
        EventSeries.objects.filter(organization=organization, slug__startswith=base).values_list(
            "slug", flat=True
        )
    )
    candidate = base
    while candidate in taken:
        candidate = f"{base}-{secrets.token_hex(3)}"
    return candidate


def _insert_series(series: EventSeries) -> None:
    try:
        with transaction.atomic():
            series.save(force_insert=True)
    except IntegrityError as exc:
        raise Conflict("A series with this name was just created.", code="series_exists") from exc


# -- shared --------------------------------------------------------------------------------
def _rule_of(series: EventSeries) -> RecurrenceRule:
    if series.recurrence_rule is None:
        raise NotARecurringSeries()
    return series.recurrence_rule


def _template_of(series: EventSeries) -> Event:
    if series.template_event is None:
        raise NotARecurringSeries()
    return series.template_event


# -- deleting ------------------------------------------------------------------------------
def delete_series(series: EventSeries) -> list[uuid.UUID]:
    """DELETE of a recurring series: pause it and cancel its future occurrences.

    Rows stay (tickets, payments and history hang off them); a paused series creates
    nothing more. Under the series lock, then each Event in pk order. Returns the ids of
    the occurrences cancelled now.
    """
    with transaction.atomic():
        locked = lock_series(series.pk)
        if locked.is_active:
            locked.is_active = False
            locked.save(update_fields=["is_active", "updated_at"])
        future = (
            Event.objects.filter(event_series=locked, is_template=False, start__gte=timezone.now())
            .exclude(status=Event.Status.CANCELLED)
            .order_by("pk")
        )
        cancelled = [
            event_service.change_status(event, Event.Status.CANCELLED).pk for event in future
        ]
    series.is_active = False
    logger.info(
        "series deleted (paused, future cancelled)",
        extra={"series_id": str(series.pk), "events": len(cancelled)},
    )
    return cancelled


def template_of(series: EventSeries) -> Event:
    """The series' template; 409 `not_a_recurring_series` when it has none."""
    return _template_of(series)
