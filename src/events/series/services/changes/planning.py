"""Planning a series change: what it creates, moves and leaves stale (`changes`).

Reads only; `plan_series_change` is the one function the preview answers and the apply
executes (ADR 0024). The module docstring of the package says how occurrences are
matched to the changed rule.
"""

import copy
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from typing import Any

from django.db.models import Count, IntegerField, OuterRef, Q, Subquery, Value
from django.db.models.functions import Coalesce
from django.utils import timezone

from common.errors import InvalidInput
from common.timezones import get_zone
from events.models import Event, EventSeries, EventWaitList, RecurrenceRule
from events.series.services.cadence import check_rule_fields
from events.series.services.generation import (
    GenerationWindow,
    can_generate,
    generation_window,
)
from events.series.services.occurrences import exdate_instants, exdate_key
from events.series.services.series_parts import ONE_MICROSECOND, rule_of, template_of
from events.utils import recurrence_validators as rv

STALE_CHOICES = ("keep", "cancel")
#: The shortest and longest occurrence a duration may describe.
DURATION_MIN = timedelta(minutes=1)
DURATION_MAX = timedelta(days=31)
#: No zone is more than a day from UTC: a local date's instant lies within this of it.
_DAY_MARGIN = timedelta(days=2)


@dataclass(frozen=True)
class SeriesChange:
    """The recurrence PATCH body (and the preview's), as the service takes it."""

    rule_changes: Mapping[str, Any] = field(default_factory=dict)
    duration: timedelta | None = None
    stale: str = "keep"
    auto_publish: bool | None = None
    generation_window_weeks: int | None = None


@dataclass(frozen=True)
class Move:
    event_id: uuid.UUID
    start_from: datetime
    start_to: datetime
    end_to: datetime
    attendees: int


@dataclass(frozen=True)
class StaleOccurrence:
    event_id: uuid.UUID
    start: datetime
    attendees: int
    queued: int


@dataclass(frozen=True)
class ChangePlan:
    """What a change does; `rule` is the changed rule, unsaved."""

    rule: RecurrenceRule
    schedule_changed: bool
    duration: timedelta
    generation_window_weeks: int
    auto_publish: bool
    #: The exdates after the change (None: unchanged).
    exdates: list[str] | None
    reset_cursor: bool
    window: GenerationWindow | None
    created: list[datetime]
    moved: list[Move]
    stale: list[StaleOccurrence]
    #: Occurrences that stay but hold the new instant of their date: {event id: slot}.
    new_slots: dict[uuid.UUID, datetime]


@dataclass(frozen=True)
class _Row:
    pk: uuid.UUID
    start: datetime
    end: datetime
    slot: datetime
    scheduled_start: datetime | None
    stays: bool
    attendees: int
    queued: int


# -- instants ------------------------------------------------------------------------------
def series_instants(
    series: EventSeries, rule: RecurrenceRule, after: datetime, before: datetime
) -> list[datetime]:
    """The dates of the series strictly between two bounds, before exdates: the one place
    planning reads them (a series' extra dates join here; they are never drift)."""
    return rule.get_occurrences(after, before)


def _local_date(moment: datetime, zone_name: str) -> date:
    return moment.astimezone(get_zone(zone_name)).date()


class _Matching:
    """Steps 1–2 of the module docstring: which new instant each occurrence takes.

    Occurrences that stay claim first (their date's slot is theirs), then the movers whose
    slot is still on the rule, then the movers matched by date; an instant goes once.
    """

    def __init__(
        self,
        rows: Sequence[_Row],
        *,
        expected: set[datetime],
        excluded: set[datetime],
        new_by_date: Mapping[date, datetime],
        old_zone: str,
        now: datetime,
    ) -> None:
        self.expected, self.excluded, self.now = expected, excluded, now
        self.new_by_date, self.old_zone = new_by_date, old_zone
        self.claimed: set[datetime] = set()
        self.new_slots: dict[uuid.UUID, datetime] = {}
        for row in rows:
            if not row.stays:
                continue
            held = row.slot if row.slot in expected else self.same_day(row.slot)
            if held is not None and self.claim(held) and held != row.slot:
                self.new_slots[row.pk] = held

    def same_day(self, slot: datetime) -> datetime | None:
        instant = self.new_by_date.get(_local_date(slot, self.old_zone))
        return instant if instant is not None and instant not in self.excluded else None

    def claim(self, instant: datetime) -> bool:
        if instant in self.claimed:
            return False
        self.claimed.add(instant)
        return True

    def targets(self, movers: Sequence[_Row]) -> dict[uuid.UUID, datetime]:
        targets = {
            row.pk: row.slot for row in movers if row.slot in self.expected and self.claim(row.slot)
        }
        for row in movers:
            if row.pk not in targets:
                target = self.same_day(row.slot)
                # never into the past: "10:00 from now on" at 10:30 leaves today stale
                if target is not None and target >= self.now and self.claim(target):
                    targets[row.pk] = target
        return targets


# -- planning ------------------------------------------------------------------------------
def plan_series_change(series: EventSeries, change: SeriesChange, now: datetime) -> ChangePlan:
    """The plan of `change` on `series` (rule and template loaded); writes nothing.

    One query whatever the number of occurrences (the caller has loaded the series with
    its rule and template): the occurrences from a day before now on, with their queue
    lengths. A refused value is a 400 `invalid` before that query runs.
    """
    old_rule, template = rule_of(series), template_of(series)
    rule = _changed_rule(old_rule, change.rule_changes)
    duration = _checked_duration(change, template)
    weeks = _checked_weeks(change, series)
    if change.stale not in STALE_CHOICES:
        raise InvalidInput({"stale": [f"Expected one of {', '.join(STALE_CHOICES)}."]})
    schedule_changed = rule.schedule() != old_rule.schedule()
    reset_cursor = schedule_changed or weeks != series.generation_window_weeks
    rows = _occurrence_rows(series, now - _DAY_MARGIN, now)

    low = now - _DAY_MARGIN
    exdates = exdate_instants(series)
    high = max([now + timedelta(weeks=weeks), *(r.slot for r in rows), *exdates, now]) + _DAY_MARGIN
    new_by_date = {_local_date(i, rule.timezone): i for i in rule.get_occurrences(low, high)}
    moved_exdates = (
        _moved_exdates(exdates, old_rule, new_by_date, low, high) if schedule_changed else []
    )
    excluded = set(moved_exdates) if schedule_changed else exdates
    expected = set(series_instants(series, rule, low, high)) - excluded

    matching = _Matching(
        rows,
        expected=expected,
        excluded=excluded,
        new_by_date=new_by_date,
        old_zone=old_rule.timezone,
        now=now,
    )
    movers = [row for row in rows if not row.stays]
    targets = matching.targets(movers)
    moved = [
        Move(row.pk, row.start, targets[row.pk], targets[row.pk] + duration, row.attendees)
        for row in movers
        if row.pk in targets
        and (row.start != targets[row.pk] or row.end != targets[row.pk] + duration)
    ]
    moved_ids = {move.event_id for move in moved}
    new_slots = matching.new_slots
    new_slots.update(
        {
            row.pk: targets[row.pk]
            for row in movers
            if row.pk in targets and row.slot != targets[row.pk] and row.pk not in moved_ids
        }
    )
    stale = [
        StaleOccurrence(row.pk, row.start, row.attendees, row.queued)
        for row in movers
        if row.pk not in targets
    ]
    taken = matching.claimed | {row.slot for row in movers if row.pk not in targets}
    auto_publish = series.auto_publish if change.auto_publish is None else change.auto_publish
    window, created = _created(
        series,
        rule,
        weeks=weeks,
        cursor=None if reset_cursor else series.last_generated_until,
        now=now,
        skipped=excluded | taken,
    )
    return ChangePlan(
        rule=rule,
        schedule_changed=schedule_changed,
        duration=duration,
        generation_window_weeks=weeks,
        auto_publish=auto_publish,
        exdates=[exdate_key(moment) for moment in moved_exdates]
        if schedule_changed and set(moved_exdates) != exdates
        else None,
        reset_cursor=reset_cursor,
        window=window,
        created=created,
        moved=moved,
        stale=stale,
        new_slots=new_slots,
    )


def _changed_rule(rule: RecurrenceRule, changes: Mapping[str, Any]) -> RecurrenceRule:
    """An unsaved copy of the rule with the changes, normalised and validated (400).

    The field checks and `clean()` (which covers the table's two CHECK constraints)
    run in Python: the constraints are not re-queried, so a preview costs no query here.
    """
    check_rule_fields(changes)
    changed = copy.copy(rule)
    if not changes:
        return changed
    for name, value in changes.items():
        setattr(changed, name, value)
    changed.full_clean(validate_unique=False, validate_constraints=False)
    return changed


def _checked_duration(change: SeriesChange, template: Event) -> timedelta:
    if change.duration is None:
        return template.end - template.start
    if not DURATION_MIN <= change.duration <= DURATION_MAX:
        raise InvalidInput({"duration": ["An occurrence lasts between one minute and 31 days."]})
    return change.duration


def _checked_weeks(change: SeriesChange, series: EventSeries) -> int:
    weeks = change.generation_window_weeks
    if weeks is None:
        return series.generation_window_weeks
    message = rv.generation_window_weeks_error(weeks)
    if message:
        raise InvalidInput({"generation_window_weeks": [message]})
    return weeks


def _occurrence_rows(series: EventSeries, since: datetime, now: datetime) -> list[_Row]:
    """Occurrences starting or scheduled from `since` on, in start order; one query."""
    queued = (
        EventWaitList.objects.filter(event=OuterRef("pk"))
        .order_by()
        .values("event")
        .annotate(n=Count("pk"))
        .values("n")
    )
    rows = (
        Event.objects.filter(Q(start__gte=since) | Q(scheduled_start__gte=since))
        .filter(event_series=series, is_template=False)
        .annotate(queued=Coalesce(Subquery(queued, output_field=IntegerField()), Value(0)))
        .order_by("start", "pk")
        .values_list(
            "pk",
            "start",
            "end",
            "scheduled_start",
            "is_modified",
            "status",
            "attendee_count",
            "queued",
        )
    )
    return [
        _Row(
            pk=pk,
            start=start.astimezone(UTC),
            end=end.astimezone(UTC),
            slot=(scheduled or start).astimezone(UTC),
            scheduled_start=scheduled,
            stays=start < now or modified or status == Event.Status.CANCELLED,
            attendees=attendees,
            queued=queued_count,
        )
        for pk, start, end, scheduled, modified, status, attendees, queued_count in rows
    ]


def _moved_exdates(
    exdates: set[datetime],
    old_rule: RecurrenceRule,
    new_by_date: Mapping[date, datetime],
    low: datetime,
    high: datetime,
) -> list[datetime]:
    """Exdates after the change: an excluded instant of the old rule from `low` on moves
    to the new rule's instant of its date; the others stay as they are."""
    if not exdates:
        return []
    old_instants = set(old_rule.get_occurrences(low, high))
    moved = set()
    for moment in exdates:
        target = None
        if moment in old_instants:
            target = new_by_date.get(_local_date(moment, old_rule.timezone))
        moved.add(target or moment)
    return sorted(moved)


def _created(
    series: EventSeries,
    rule: RecurrenceRule,
    *,
    weeks: int,
    cursor: datetime | None,
    now: datetime,
    skipped: set[datetime],
) -> tuple[GenerationWindow | None, list[datetime]]:
    """The generation pass over the changed series' window: what it would materialise."""
    if not can_generate(series):
        return None, []
    changed = copy.copy(series)
    changed.recurrence_rule = rule
    changed.generation_window_weeks = weeks
    changed.last_generated_until = cursor
    window = generation_window(changed, now)
    instants = series_instants(series, rule, window.start_from, window.horizon + ONE_MICROSECOND)
    return window, [instant for instant in instants if instant not in skipped]


def preview_series_change(series: EventSeries, change: SeriesChange) -> ChangePlan:
    """The plan of `change` as of now, for the preview route (no lock, no write)."""
    return plan_series_change(series, change, timezone.now())
