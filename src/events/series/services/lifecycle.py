"""A series' life: creation with its first pass, pausing, resuming, deletion.

Deleting keeps the rows (tickets, payments and history hang off the occurrences): the
series is paused and its future occurrences are cancelled. Pausing only stops
generation; the cursor and the occurrences stay as they are.
"""

import logging
import uuid
from collections.abc import Mapping
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone

from common.errors import Conflict, InvalidInput
from events.core.services import event_service, slugs
from events.core.services.locks import lock_series
from events.models import Event, EventSeries, EventSeriesSlug, Organization, RecurrenceRule
from events.series.models import DEFAULT_GENERATION_WINDOW_WEEKS
from events.series.services.cadence import check_rule_fields
from events.series.services.generation import generate_series_events

logger = logging.getLogger("encore.series")


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
    check_rule_fields(recurrence_data)
    rule = RecurrenceRule(**recurrence_data)
    rule.full_clean()
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
    base = slugs.slug_base(name, "series", slugs.SERIES_SLUG_BASE_MAX)
    taken = set(
        EventSeries.objects.filter(organization=organization, slug__startswith=base).values_list(
            "slug", flat=True
        )
    )
    # A renamed series' former slugs still redirect to it (`editing`, ADR 0023).
    taken |= set(
        EventSeriesSlug.objects.filter(
            organization=organization, slug__startswith=base
        ).values_list("slug", flat=True)
    )
    return slugs.free_slug(base, taken=taken)


def _insert_series(series: EventSeries) -> None:
    try:
        with transaction.atomic():
            series.save(force_insert=True)
    except IntegrityError as exc:
        raise Conflict("A series with this name was just created.", code="series_exists") from exc


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


# -- deleting ------------------------------------------------------------------------------
def delete_series(series: EventSeries) -> list[uuid.UUID]:
    """DELETE of a recurring series: pause it and cancel its future occurrences.

    A paused series creates nothing more. Under the series lock, then each Event in pk
    order. Returns the ids of the occurrences cancelled now.
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


# -- publishing ----------------------------------------------------------------------------
def publish_drafts(series: EventSeries) -> list[uuid.UUID]:
    """Open every upcoming draft occurrence at once (a series that does not publish
    automatically leaves its dates as drafts); returns their ids, pk order.

    Past drafts stay drafts: nobody can attend them. Under the series lock, then each
    Event in pk order, each through `change_status` (so an opened date's waitlist gets
    its pass). None to publish → 409 with the reason, and nothing is written.
    """
    with transaction.atomic():
        locked = lock_series(series.pk)
        drafts = Event.objects.filter(
            event_series=locked,
            is_template=False,
            status=Event.Status.DRAFT,
            start__gte=timezone.now(),
        ).order_by("pk")
        published = [event_service.change_status(event, Event.Status.OPEN).pk for event in drafts]
        if not published:
            raise Conflict("The series has no upcoming draft dates to publish.")
    logger.info(
        "series drafts published", extra={"series_id": str(series.pk), "events": len(published)}
    )
    return published
