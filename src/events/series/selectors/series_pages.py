"""Reads of the organiser's series page (`/manage/series/{id}`), which has no slug, and
the event page's link to the public series page of an occurrence.

The series' own organisation stands in for the API's `{slug}`, so the checks are those
of `access_series_admin`: 404 when the caller cannot see the organisation (or there is
no such series), 403 without the permission.
"""

import uuid
from dataclasses import dataclass
from datetime import datetime

from common.errors import NotFound
from events.core.selectors.access import AnyUser
from events.models import Event, EventSeries, EventSeriesFollow
from events.series.selectors.series import access_series_admin


def access_series_by_id(user: AnyUser, series_id: uuid.UUID, permission: str) -> EventSeries:
    slug = (
        EventSeries.objects.filter(pk=series_id)
        .values_list("organization__slug", flat=True)
        .first()
    )
    if slug is None:
        raise NotFound("Event series not found.")
    return access_series_admin(user, slug, series_id, permission)


def series_occurrences(series: EventSeries) -> list[Event]:
    """Every occurrence (templates never), start order, in one query."""
    return list(
        Event.objects.filter(event_series=series, is_template=False)
        .only("id", "name", "start", "end", "status", "is_modified", "timezone")
        .order_by("start", "pk")
    )


def follows_series(user: AnyUser, series: EventSeries) -> bool:
    """Whether `user` follows `series` now (an unfollow archives the row, never deletes it)."""
    if not user.is_authenticated:
        return False
    return EventSeriesFollow.objects.filter(
        user_id=user.pk, event_series=series, is_archived=False
    ).exists()


@dataclass(frozen=True)
class SeriesLink:
    name: str
    url: str  # the public series page, `/events/{org_slug}/series/{series_slug}`


def series_link_of(event: Event) -> SeriesLink | None:
    """The series an occurrence belongs to, for "Part of …" on its page (one query, none
    for an event outside a series)."""
    if event.event_series_id is None:
        return None
    found = (
        EventSeries.objects.filter(pk=event.event_series_id)
        .values_list("name", "slug", "organization__slug")
        .first()
    )
    if found is None:
        return None
    name, slug, org_slug = found
    return SeriesLink(name=name, url=f"/events/{org_slug}/series/{slug}")


def occurrence_at(series: EventSeries, moment: datetime) -> Event | None:
    """The occurrence starting at `moment`, with its attendee count, if there is one."""
    return (
        Event.objects.filter(event_series=series, is_template=False, start=moment)
        .only("id", "start", "attendee_count", "timezone")
        .first()
    )
