"""Editing a series' own fields: name, description, slug and the two switches.

A slug is the series' public address (`/events/{org_slug}/series/{slug}`), printed in
digests and calendars, so a renamed series keeps every slug it had in `EventSeriesSlug`
and those addresses redirect (301) to the current one. A slug is therefore taken while
it is any series' current slug *or* another series' former one (ADR 0023): handing a
former slug to a second series would silently send the first one's old links there.
A series may take back a slug it had itself.

`auto_publish` and the window go through `cadence.update_series_recurrence`, the
recurrence PATCH's path, so both routes change them the same way (a window change
resets the cursor). The occurrences keep their own slugs and states.
"""

import logging
from collections.abc import Mapping
from typing import Any

from django.db import IntegrityError, transaction

from events.core.services.locks import lock_series
from events.models import EventSeries, EventSeriesSlug
from events.series.errors import SeriesSlugTaken
from events.series.services.cadence import update_series_recurrence

logger = logging.getLogger("encore.series")

#: Fields of the series row itself; the others are the switches of `cadence`.
OWN_FIELDS = ("name", "description", "slug")
SWITCHES = ("auto_publish", "generation_window_weeks")


def update_series(series: EventSeries, changes: Mapping[str, Any]) -> EventSeries:
    """Apply the sent fields under the series lock, all or nothing.

    A new slug is checked against the organisation's current and former series slugs
    (409 `slug_taken`); the old one is recorded as a former slug. The unique constraints
    of both tables catch a concurrent twin, which is the same 409.
    """
    with transaction.atomic():
        locked = lock_series(series.pk)
        changed = [
            name
            for name in OWN_FIELDS
            if name in changes and changes[name] != getattr(locked, name)
        ]
        old_slug = locked.slug
        for name in changed:
            setattr(locked, name, changes[name])
        if "slug" in changed:
            _check_slug_free(locked)
        if changed:
            locked.full_clean(exclude=["recurrence_rule", "template_event", "slug"])
            try:
                with transaction.atomic():
                    if "slug" in changed:
                        _move_slug(locked, old_slug)
                    locked.save(update_fields=[*changed, "updated_at"])
            except IntegrityError as exc:
                raise SeriesSlugTaken() from exc
        switches = {name: changes[name] for name in SWITCHES if changes.get(name) is not None}
        if switches:
            locked = update_series_recurrence(locked, {}, **switches)
    logger.info(
        "series edited",
        extra={"series_id": str(series.pk), "fields": sorted([*changed, *switches])},
    )
    return locked


def _check_slug_free(series: EventSeries) -> None:
    current = EventSeries.objects.filter(organization_id=series.organization_id, slug=series.slug)
    former = EventSeriesSlug.objects.filter(
        organization_id=series.organization_id, slug=series.slug
    ).exclude(series=series)
    if current.exclude(pk=series.pk).exists() or former.exists():
        raise SeriesSlugTaken(f"The slug '{series.slug}' is or was used by another series.")


def _move_slug(series: EventSeries, old_slug: str) -> None:
    """Record the old slug as a former one; a slug the series takes back is current again."""
    EventSeriesSlug.objects.filter(series=series, slug=series.slug).delete()
    EventSeriesSlug.objects.create(
        organization_id=series.organization_id, series=series, slug=old_slug
    )
