"""This and following: a series ends before a date and a new series takes over from it.

Google Calendar's way to change a series from a date on without rewriting its past. The
old series keeps everything before `from`; from `from` on, the same Event rows belong
to the new series (attendees, tickets, offers and iCalendar UIDs stay as they are), and
the new series generates the rest with its own rule and its own copy of the template.

- The old rule's `until` becomes the last instant before `from` (an earlier end it
  already had stays; a COUNT that would still reach `from` becomes that `until`, which
  names the same dates). Its extra dates and exdates from `from` on move to the new
  series, so it has nothing more to generate, and it is paused (`is_active` false): the
  daily fan-out skips it, and a pass queued behind the split stops at the pause.
- The new rule is the old one with the `recurrence` changes; its `dtstart` is the
  rule's first date at or after `from`, found from the old anchor (or a new `dtstart`
  given), so an every-other-week rule keeps its phase. Without a new end it inherits the
  old one: the same `until`, or what is left of the `count`.
- The new template is a copy of the old one at the new `dtstart`, edited by `template`
  (the propagatable fields only). It takes over the old template's slug, so the new
  occurrences keep the `<slug>-YYYY-MM-DD` pattern; the old template, which nothing
  reads any more, gets a suffixed one.
- Occurrences whose start or rule slot is at or after `from` move, in one UPDATE. The
  `template` edits then reach the unmodified, not cancelled ones, as the template PATCH
  with `future_unmodified` would (one save each, with its follow-ups). Moved ones off
  the new rule are stale (drift's definition): kept, or cancelled with `stale: cancel`.
- A first generation pass of the new series fills its window, in the same transaction.

`from` must lie in the future and after the series' start (400 `invalid` otherwise):
the past is not rewritten, and a split at or before the start is an edit of the whole
series. Locks: the old series row, then the moved Event rows in pk order; the new
series' row is locked by its generation pass afterwards, which nobody can contend
because the row is not committed yet. Without `template` edits or stale cancellations,
the query count does not grow with the number of occurrences moved.
"""

import logging
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from common.errors import InvalidInput
from events.core.services import event_fields, event_service, slugs
from events.core.services.locks import lock_series
from events.models import Event, EventSeries, RecurrenceRule, TicketTier
from events.series.services.cadence import check_rule_fields
from events.series.services.drift import drifted_ids
from events.series.services.generation import generate_series_events
from events.series.services.occurrences import duplicate_event
from events.series.services.propagation import (
    PROPAGATABLE_FIELDS,
    _apply_template_changes,
)
from events.series.services.series_parts import (
    ONE_MICROSECOND,
    rule_of,
    template_of,
)

logger = logging.getLogger("encore.series")

STALE_CHOICES = ("keep", "cancel")
_FALLBACK_SLUG_ATTEMPTS = 3


@dataclass(frozen=True)
class SeriesSplit:
    old: EventSeries
    new: EventSeries
    moved_event_ids: list[uuid.UUID]
    stale_event_ids: list[uuid.UUID]
    cancelled_event_ids: list[uuid.UUID]


def split_series(
    series: EventSeries,
    from_: datetime,
    *,
    recurrence: Mapping[str, Any] | None = None,
    template: Mapping[str, Any] | None = None,
    stale: str = "keep",
) -> SeriesSplit:
    """End `series` before `from_` and continue it as a new series (module docstring);
    all or nothing."""
    rule_changes = dict(recurrence or {})
    template_changes = dict(template or {})
    _check_input(from_, rule_changes, template_changes, stale)
    instant = from_.astimezone(UTC)
    if instant <= timezone.now():
        raise InvalidInput({"from": ["A split starts in the future; the past stays as it is."]})
    with transaction.atomic():
        old = lock_series(series.pk)
        old_rule, old_template = rule_of(old), template_of(old)
        if instant <= old_rule.dtstart:
            raise InvalidInput({"from": ["The series starts on or after this date: edit it."]})
        new_rule = _successor_rule(old_rule, instant, rule_changes)
        moving = _lock_moving(old, instant)
        new = _successor_series(old, new_rule, instant)
        _end_before(old, old_rule, instant)
        new_template = _copy_template(old_template, new, new_rule.dtstart, template_changes)
        moved_ids = [event.pk for event in moving]
        Event.objects.filter(pk__in=moved_ids).update(event_series=new)
        _propagate(moving, template_changes, new_template)
        moved = set(moved_ids)
        stale_ids = [pk for pk in drifted_ids(new, timezone.now()) if pk in moved]
        cancelled = []
        if stale == "cancel":
            off_rule = set(stale_ids)
            cancelled = [
                event_service.change_status(event, Event.Status.CANCELLED).pk
                for event in moving  # pk order, as locked
                if event.pk in off_rule
            ]
        generate_series_events(new)
    logger.info(
        "series split",
        extra={
            "series_id": str(old.pk),
            "new_series_id": str(new.pk),
            "from": instant.isoformat(),
            "moved": len(moved_ids),
            "stale": len(stale_ids),
            "cancelled": len(cancelled),
        },
    )
    return SeriesSplit(old, new, moved_ids, stale_ids, cancelled)


def _check_input(
    from_: datetime,
    rule_changes: Mapping[str, Any],
    template_changes: Mapping[str, Any],
    stale: str,
) -> None:
    if timezone.is_naive(from_):
        raise InvalidInput({"from": ["Give the time with its UTC offset."]})
    if stale not in STALE_CHOICES:
        raise InvalidInput({"stale": [f"Expected one of {', '.join(STALE_CHOICES)}."]})
    check_rule_fields(rule_changes)
    refused = sorted(set(template_changes) - PROPAGATABLE_FIELDS)
    if refused:
        raise InvalidInput(
            {
                f"template.{name}": ["This field cannot be changed on a series template."]
                for name in refused
            }
        )


# -- the two rules -------------------------------------------------------------------------
def _successor_rule(
    old_rule: RecurrenceRule, instant: datetime, changes: Mapping[str, Any]
) -> RecurrenceRule:
    """The new rule, validated and unsaved: the old one with the changes, anchored on its
    first date at or after `instant`, with the old end unless a new one is given."""
    fields = {**old_rule.schedule(), **changes}
    if not {"until", "count"} & set(changes) and old_rule.count is not None:
        fields["count"] = old_rule.count - len(_rule_dates_before(old_rule, instant))
        if fields["count"] <= 0:
            raise InvalidInput({"from": ["The series has no dates left from this date on."]})
    probe = RecurrenceRule(**{**fields, "count": None})
    probe.full_clean()
    first = probe.first_occurrence_from(instant)
    if first is None:
        raise InvalidInput({"from": ["The rule has no date from this date on."]})
    rule = RecurrenceRule(**{**fields, "dtstart": first})
    rule.full_clean()
    return rule


def _rule_dates_before(rule: RecurrenceRule, instant: datetime) -> list[datetime]:
    return rule.get_occurrences(rule.dtstart - ONE_MICROSECOND, instant, rdates=())


def _end_before(series: EventSeries, rule: RecurrenceRule, instant: datetime) -> None:
    """The old series ends before `instant`: its rule, extra dates and exdates; and it is
    paused, because it has nothing more to generate (also a generation pass queued
    behind this split: `lock_series` reads the series, paused, after its lock)."""
    last = instant - ONE_MICROSECOND
    # A count that ends the rule before `instant` already stays; one that would reach
    # it is replaced by the `until` that names the same dates.
    reaches = rule.count is None or len(_rule_dates_before(rule, instant)) < rule.count
    if reaches and (rule.until is None or rule.until > last):
        rule.until, rule.count = last, None
    series.rdates = [value for value in series.rdates if _instant(value) < instant]
    series.exdates = [value for value in series.exdates if _instant(value) < instant]
    series.is_active = False
    series.save(update_fields=["rdates", "exdates", "is_active", "updated_at"])
    rule.full_clean()
    rule.save()


def _instant(value: str) -> datetime:
    return datetime.fromisoformat(value).astimezone(UTC)


# -- the new series ------------------------------------------------------------------------
def _successor_series(old: EventSeries, rule: RecurrenceRule, instant: datetime) -> EventSeries:
    """Insert the new rule and series; the old one's switches, and its dates from
    `instant` on (the rule is saved after the series knows them: RDATE lines)."""
    new = EventSeries(
        organization=old.organization,
        name=old.name,
        slug=_successor_slug(old, instant),
        description=old.description,
        is_active=old.is_active,
        auto_publish=old.auto_publish,
        generation_window_weeks=old.generation_window_weeks,
        continues=old,
        rdates=[value for value in old.rdates if _instant(value) >= instant],
        exdates=[value for value in old.exdates if _instant(value) >= instant],
    )
    new.recurrence_rule = rule
    rule.save(force_insert=True)
    new.full_clean(exclude=["recurrence_rule", "template_event", "continues"])
    new.save(force_insert=True)
    return new


def _successor_slug(old: EventSeries, instant: datetime) -> str:
    """`<old slug>-YYYY-MM-DD` (the local date of `from`), a suffix when taken."""
    room = slugs.SERIES_SLUG_BASE_MAX - slugs.DATE_PART_LENGTH
    zone_name = rule_of(old).timezone
    wanted = slugs.dated_slug(old.slug[:room].strip("-"), instant, zone_name)
    taken = set(
        EventSeries.objects.filter(
            organization_id=old.organization_id, slug__startswith=wanted
        ).values_list("slug", flat=True)
    )
    return slugs.free_slug(wanted, taken=taken)


def _copy_template(
    old_template: Event, series: EventSeries, start: datetime, changes: Mapping[str, Any]
) -> Event:
    """The old template copied to `start` (every datetime shifted alike, tiers too),
    under the old template's slug, then edited by `changes`."""
    slug = old_template.slug
    Event.objects.filter(pk=old_template.pk).update(slug=_retired_slug(old_template))
    copy = duplicate_event(old_template, start, 0, Event.Status.DRAFT, slug=slug)
    template = copy.event
    template.is_template, template.event_series = True, series
    template.occurrence_index = old_template.occurrence_index
    template.scheduled_start = old_template.scheduled_start
    template.save(force_insert=True)
    TicketTier.objects.bulk_create(copy.tiers)
    EventSeries.objects.filter(pk=series.pk).update(template_event=template)
    series.template_event = template
    if changes:
        template.organization = series.organization
        venue = event_fields.venue_of(series.organization, changes.get("venue"), field="venue")
        _apply_template_changes(template, changes, venue)
    return template


def _retired_slug(template: Event) -> str:
    candidates = [slugs.suffixed(template.slug) for _ in range(_FALLBACK_SLUG_ATTEMPTS)]
    taken = set(
        Event.objects.filter(
            organization_id=template.organization_id, slug__in=candidates
        ).values_list("slug", flat=True)
    )
    return slugs.free_slug(*candidates, taken=taken)


# -- the occurrences -----------------------------------------------------------------------
def _lock_moving(series: EventSeries, instant: datetime) -> list[Event]:
    """The occurrences from `instant` on (by start or by rule slot), locked in pk order."""
    return list(
        Event.objects.select_for_update(of=("self",))
        .select_related("organization", "venue")
        .filter(Q(start__gte=instant) | Q(scheduled_start__gte=instant))
        .filter(event_series=series, is_template=False)
        .order_by("pk")
    )


def _propagate(moving: list[Event], changes: Mapping[str, Any], template: Event) -> None:
    """The `template` edits reach the moved, unmodified, not cancelled occurrences."""
    if not changes:
        return
    venue = template.venue
    for event in moving:
        if event.is_modified or event.status == Event.Status.CANCELLED:
            continue
        event.event_series_id = template.event_series_id
        _apply_template_changes(event, changes, venue)
