"""Changing a running series: cadence, time of day, duration, window. Plan, then apply.

`plan_series_change` works out, without writing, what a change does to the series:
which dates are created, which occurrences move and which become stale. The preview
route answers with that plan; `apply_series_change` computes the same plan under the
series lock and executes exactly it, so a preview can never promise something the
apply does not do (ADR 0024).

How an existing occurrence is matched to the changed rule (its *slot* is the instant it
was generated for, `scheduled_start`, else its start):

1. a slot that is still an instant of the series stays where it is;
2. otherwise the new rule's instant on the same local date takes it: a time-of-day change
   moves the occurrence to the new time that day (wall clock in the series' zone, so a
   DST switch between dtstart and the date changes nothing), unless that time has passed;
3. otherwise (the date left the rule) a future, unmodified, not-cancelled occurrence is
   stale: kept or cancelled (`stale`), exactly what drift reports afterwards.

Only future, unmodified, not-cancelled occurrences move. Past, modified and cancelled
ones stay put but keep the slot of their date (steps 1–2), so the new rule never puts a
second occurrence on that date; their `scheduled_start` follows the new instant, which
is what later generation passes skip. Exdates of the old rule follow their date the same
way, so a cancelled date stays cancelled at the new time.

A moved occurrence keeps its row, tickets, RSVPs and offers; every datetime of it and
its tiers shifts by the move, its end is start + the (new) duration, and its attendees
get `event_updated`. Dates are created by one generation pass over the new window, in
the same transaction.
"""

import copy
import logging
import uuid
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from typing import Any

from django.db import transaction
from django.db.models import Count, IntegerField, OuterRef, Q, Subquery, Value
from django.db.models.functions import Coalesce
from django.utils import timezone

from common.errors import InvalidInput
from common.timezones import get_zone
from events.models import Event, EventSeries, EventWaitList, RecurrenceRule, TicketTier
from events.service import event_notifications, event_service
from events.service.locks import lock_series
from events.service.recurrence_service.cadence import check_rule_fields
from events.service.recurrence_service.generation import (
    GenerationWindow,
    can_generate,
    finish_pass,
    generation_window,
    materialize_occurrences,
)
from events.service.recurrence_service.occurrences import exdate_instants, exdate_key
from events.service.recurrence_service.series_parts import ONE_MICROSECOND, rule_of, template_of
from events.utils import recurrence_validators as rv

logger = logging.getLogger("encore.series")

STALE_CHOICES = ("keep", "cancel")
#: The shortest and longest occurrence a duration may describe.
DURATION_MIN = timedelta(minutes=1)
DURATION_MAX = timedelta(days=31)
#: No zone is more than a day from UTC: a local date's instant lies within this of it.
_DAY_MARGIN = timedelta(days=2)
#: Event datetimes that move with the start (the end is set from the duration).
_SHIFTED_EVENT_FIELDS = (
    "rsvp_before",
    "check_in_starts_at",
    "check_in_ends_at",
    "waitlist_cutoff_date",
)
_SHIFTED_TIER_FIELDS = ("sales_start_at", "sales_end_at")


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
class AppliedChange:
    series: EventSeries
    created: list[uuid.UUID]
    moved: list[uuid.UUID]
    cancelled: list[uuid.UUID]


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


# -- applying ------------------------------------------------------------------------------
def apply_series_change(series: EventSeries, change: SeriesChange) -> AppliedChange:
    """Plan under the series lock and execute the plan, all in one transaction.

    Lock order: the series row, then the Event rows the plan touches (pk order). Moved
    occurrences are told with `event_updated` after the commit; stale ones are cancelled
    through the normal status change when `stale` is `cancel`.
    """
    with transaction.atomic():
        locked = lock_series(series.pk)
        now = timezone.now()
        plan = plan_series_change(locked, change, now)
        _save_rule_and_template(locked, plan)
        cancel = [s.event_id for s in plan.stale] if change.stale == "cancel" else []
        _lock_events([*plan.new_slots, *(m.event_id for m in plan.moved), *cancel])
        _move(plan.moved, plan.duration)
        _set_slots(plan.new_slots)
        for event in Event.objects.filter(pk__in=cancel).order_by("pk"):
            event_service.change_status(event, Event.Status.CANCELLED)
        created = _save_series(locked, plan, now)
    series.refresh_from_db()
    logger.info(
        "series change applied",
        extra={
            "series_id": str(series.pk),
            "events_created": len(created),
            "events_moved": len(plan.moved),
            "events_cancelled": len(cancel),
        },
    )
    return AppliedChange(
        series=series,
        created=[event.pk for event in created],
        moved=[move.event_id for move in plan.moved],
        cancelled=cancel,
    )


def _save_rule_and_template(series: EventSeries, plan: ChangePlan) -> None:
    """The rule, and the template: it starts at dtstart and lasts the duration."""
    if plan.schedule_changed:
        plan.rule.save()
        series.recurrence_rule = plan.rule
    template = template_of(series)
    start = plan.rule.dtstart
    if template.start == start and template.end == start + plan.duration:
        return
    shift = start - template.start
    old_end = template.end
    _shift(template, shift, old_end, start + plan.duration)
    template.save(update_fields=["start", "end", *_SHIFTED_EVENT_FIELDS, "updated_at"])
    _shift_tiers([template.pk], {template.pk: shift})


def _lock_events(event_ids: Iterable[uuid.UUID]) -> None:
    ids = sorted(set(event_ids))
    if ids:
        list(
            Event.objects.select_for_update(of=("self",))
            .filter(pk__in=ids)
            .order_by("pk")
            .values_list("pk", flat=True)
        )


def _move(moves: Sequence[Move], duration: timedelta) -> None:
    """Shift each moved occurrence and its tiers; bulk updates, then `event_updated`."""
    if not moves:
        return
    by_id = {move.event_id: move for move in moves}
    events = list(Event.objects.filter(pk__in=by_id).order_by("pk"))
    shifts: dict[uuid.UUID, timedelta] = {}
    for event in events:
        move = by_id[event.pk]
        shifts[event.pk] = move.start_to - event.start
        changed = [name for name in ("start", "end") if _moved_value(event, move, name)]
        _shift(event, shifts[event.pk], event.end, move.end_to)
        event.scheduled_start = move.start_to
        event_notifications.notify_event_updated(event.pk, changed)
    Event.objects.bulk_update(
        events, ["start", "end", "scheduled_start", *_SHIFTED_EVENT_FIELDS], batch_size=500
    )
    _shift_tiers(list(shifts), shifts)


def _moved_value(event: Event, move: Move, name: str) -> bool:
    return (event.start != move.start_to) if name == "start" else (event.end != move.end_to)


def _shift(event: Event, shift: timedelta, old_end: datetime, new_end: datetime) -> None:
    """Every datetime moves with the start; a check-in that ended with the event still does."""
    event.start = event.start + shift
    for name in _SHIFTED_EVENT_FIELDS:
        value = getattr(event, name)
        if value is None:
            continue
        if name == "check_in_ends_at" and value == old_end:
            setattr(event, name, new_end)
        else:
            setattr(event, name, value + shift)
    event.end = new_end


def _shift_tiers(event_ids: Sequence[uuid.UUID], shifts: Mapping[uuid.UUID, timedelta]) -> None:
    tiers = list(TicketTier.objects.filter(event_id__in=event_ids).order_by("pk"))
    moved = []
    for tier in tiers:
        shift = shifts[tier.event_id]
        if not shift:
            continue
        for name in _SHIFTED_TIER_FIELDS:
            value = getattr(tier, name)
            if value is not None:
                setattr(tier, name, value + shift)
        moved.append(tier)
    if moved:
        TicketTier.objects.bulk_update(moved, list(_SHIFTED_TIER_FIELDS), batch_size=500)


def _set_slots(new_slots: Mapping[uuid.UUID, datetime]) -> None:
    """Occurrences that stay take the new instant of their date as their slot."""
    events = list(Event.objects.filter(pk__in=new_slots).only("pk", "scheduled_start"))
    for event in events:
        event.scheduled_start = new_slots[event.pk]
    if events:
        Event.objects.bulk_update(events, ["scheduled_start"], batch_size=500)


def _save_series(series: EventSeries, plan: ChangePlan, now: datetime) -> list[Event]:
    """The series' switches, exdates and cursor; then the planned dates are created."""
    series.auto_publish = plan.auto_publish
    series.generation_window_weeks = plan.generation_window_weeks
    if plan.exdates is not None:
        series.exdates = plan.exdates
    if plan.reset_cursor:
        series.last_generated_until = None
    series.full_clean(exclude=["recurrence_rule", "template_event"])
    series.save(
        update_fields=[
            "auto_publish",
            "generation_window_weeks",
            "exdates",
            "last_generated_until",
            "updated_at",
        ]
    )
    if plan.window is None:
        return []
    created = materialize_occurrences(series, plan.created) if plan.created else []
    finish_pass(series, plan.window, created, now)
    return created
