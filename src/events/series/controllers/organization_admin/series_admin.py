"""Listing and editing series under /organization-admin/{slug} (docs/spec/api.md "Series, second round").

`GET .../event-series` needs `view_organization_details` (like the organisation's other
lists); the PATCH needs `edit_event_series`. Another organisation's series is a 404. The
recurrence rule, the template and the occurrences keep their own routes
(`recurring_events.py`).
"""

import uuid

from django.db.models import QuerySet
from ninja_extra import api_controller, route
from ninja_extra.pagination import PaginatedResponseSchema, paginate
from ninja_extra.throttling import throttle
from ninja_jwt.authentication import JWTAuth

from common.api import Pagination, WriteThrottle, error_responses
from events.core.controllers.organization_admin.base import (
    ADMIN_PREFIX,
    OrganizationAdminController,
)
from events.models import EventSeries, StaffPermission
from events.series import services as recurrence_service
from events.series.schemas.series import SeriesDetail
from events.series.schemas.series_edit import SeriesPatchSchema
from events.series.selectors.series import access_series_admin, series_detail
from events.series.selectors.series_list import organization_series

ERRORS = error_responses(400, 401, 403, 404, 409)


class SeriesEditRoutes(OrganizationAdminController):
    """The PATCH of a series. Its path is that of the GET and DELETE of
    `recurring_events.py`, and Django resolves a path to one controller's router (a
    second one would answer PATCH with 405), so that controller inherits these routes."""

    @route.patch("/{slug}/event-series/{series_id}", response={200: SeriesDetail, **ERRORS})
    @throttle(WriteThrottle)
    def update_series(
        self, slug: str, series_id: uuid.UUID, payload: SeriesPatchSchema
    ) -> EventSeries:
        """Name, description, slug (the old one redirects; 409 `slug_taken`), switches."""
        series = access_series_admin(
            self._caller(), slug, series_id, StaffPermission.EDIT_EVENT_SERIES
        )
        recurrence_service.update_series(series, payload.changes())
        return series_detail(series.organization, series.pk)


@api_controller(ADMIN_PREFIX, auth=JWTAuth(), tags=["organization admin: series"])
class OrganizationAdminSeriesController(OrganizationAdminController):
    @route.get("/{slug}/event-series", response=PaginatedResponseSchema[SeriesDetail])
    @paginate(Pagination)
    def list_series(self, slug: str) -> QuerySet[EventSeries]:
        """Series details, active ones first, then by name."""
        organization = self._organization(slug, StaffPermission.VIEW_ORGANIZATION_DETAILS)
        return organization_series(organization)


CONTROLLERS = [OrganizationAdminSeriesController]
