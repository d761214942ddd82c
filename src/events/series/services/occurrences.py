"""What one occurrence is: a clone of the template, its slug, and the excluded dates.

Occurrences are written with `bulk_create`, which skips `Event.save()`; that is why
`duplicate_event` copies every stored value of the template (its derived defaults
included) and shifts every datetime by the same offset: each rule of `Event.clean()`
compares datetimes of one event with each other, so the shifted copy of a valid
template is valid, and the database constraints check it again.

An exdate is stored as the ISO 8601 text of a UTC instant and compared as an instant,
so "10:00 Europe/Vienna" and "09:00Z" exclude the same occurrence.
"""

from collections.abc import Sequence
from copy import deepcopy
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from django.db import models

from events.core.services import slugs
from events.models import Event, EventSeries, TicketTier

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


@dataclass
class Occurrence:
    """An unsaved occurrence and its unsaved tiers, ready for the bulk insert."""

    event: Event
    tiers: list[TicketTier] = field(default_factory=list)


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
        slug=slug or slugs.dated_slug(template.slug, start, template.timezone or "UTC"),
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
    """`<template slug>-YYYY-MM-DD` (the date in the rule's zone); a random suffix if taken
    (in the database or by an earlier occurrence of the batch). One query."""
    wanted = [slugs.dated_slug(template.slug, start, zone_name) for start in starts]
    taken = set(
        Event.objects.filter(organization_id=template.organization_id, slug__in=wanted).values_list(
            "slug", flat=True
        )
    )
    chosen: list[str] = []
    for slug in wanted:
        candidate = slugs.free_slug(slug, taken=taken)
        taken.add(candidate)
        chosen.append(candidate)
    return chosen


# -- exdates -------------------------------------------------------------------------------
def exdate_key(moment: datetime) -> str:
    """The stored form of an excluded instant: ISO 8601 in UTC."""
    return moment.astimezone(UTC).isoformat()


def exdate_instants(series: EventSeries) -> set[datetime]:
    return {datetime.fromisoformat(value).astimezone(UTC) for value in series.exdates or []}
