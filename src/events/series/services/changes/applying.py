"""Applying a series change: the plan of `planning`, executed under the series lock.

Lock order: the series row, then the Event rows the plan touches (pk order). Moves and
slots are bulk updates; stale occurrences are cancelled through the normal status
change; the planned dates are materialised by generation's own code path.
"""

import logging
import uuid
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db import transaction
from django.utils import timezone

from events.core.services import event_notifications, event_service
from events.core.services.locks import lock_series
from events.models import Event, EventSeries, TicketTier
from events.series.services.changes.planning import (
    ChangePlan,
    Move,
    SeriesChange,
    plan_series_change,
)
from events.series.services.generation import finish_pass, materialize_occurrences
from events.series.services.series_parts import template_of

logger = logging.getLogger("encore.series")

#: Event datetimes that move with the start (the end is set from the duration).
_SHIFTED_EVENT_FIELDS = (
    "rsvp_before",
    "check_in_starts_at",
    "check_in_ends_at",
    "waitlist_cutoff_date",
)
_SHIFTED_TIER_FIELDS = ("sales_start_at", "sales_end_at")


@dataclass(frozen=True)
class AppliedChange:
    series: EventSeries
    created: list[uuid.UUID]
    moved: list[uuid.UUID]
    cancelled: list[uuid.UUID]


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
