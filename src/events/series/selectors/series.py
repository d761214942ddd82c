"""Reads behind the recurring-series routes (admin and public)."""

import uuid

from django.db.models import QuerySet

from common.errors import first_or_not_found
from events.core.selectors.access import (
    AnyUser,
    access_organization_admin,
    visible_events,
    visible_organizations,
)
from events.core.selectors.event import with_public_fields
from events.core.selectors.organization import get_visible_series
from events.models import Event, EventSeries, Organization


def access_series_admin(
    user: AnyUser, slug: str, series_id: uuid.UUID, permission: str
) -> EventSeries:
    """404 for an invisible organisation or another organisation's series; 403 without
    the permission (checked on the organisation first, as every admin route)."""
    organization = access_organization_admin(user, slug, permission)
    return series_detail(organization, series_id)


def series_detail(organization: Organization, series_id: uuid.UUID) -> EventSeries:
    series = EventSeries.objects.select_related(
        "organization", "recurrence_rule", "template_event"
    ).filter(pk=series_id, organization=organization)
    return first_or_not_found(series, "Event series not found.")


def admin_events(user: AnyUser, event_ids: list[uuid.UUID]) -> list[Event]:
    """Event details for the caller (staff: nothing hidden), start order."""
    events = with_public_fields(Event.objects.filter(pk__in=event_ids), user)
    return list(events.order_by("start", "pk"))


def visible_series_by_slug(user: AnyUser, org_slug: str, series_slug: str) -> EventSeries:
    series = EventSeries.objects.select_related("organization", "recurrence_rule").filter(
        slug=series_slug,
        organization__slug=org_slug,
        organization__in=visible_organizations(user),
    )
    return first_or_not_found(series, "Event series not found.")


def visible_series(user: AnyUser, series_id: uuid.UUID) -> EventSeries:
    return get_visible_series(user, series_id)


def visible_occurrences(user: AnyUser, series: EventSeries) -> QuerySet[Event]:
    """Every occurrence of the series the caller may see (templates never), start order."""
    return with_public_fields(visible_events(user).filter(event_series=series), user).order_by(
        "start", "pk"
    )
