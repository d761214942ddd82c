"""Extra dates and "this and following" of a recurring series (docs/spec/api.md "Series, second
round"), under /organization-admin/{slug}/event-series/{id}.

Every route needs `edit_event_series`; another organisation's series is a 404. Each
parses its body, fetches the series through `access_series_admin` and calls one
function of `recurrence_service`, which owns the locks and the transaction.
"""

import uuid

from ninja_extra import api_controller, route
from ninja_extra.throttling import throttle
from ninja_jwt.authentication import JWTAuth

from common.api import WriteThrottle, error_responses
from events.core.controllers.organization_admin.base import (
    ADMIN_PREFIX,
    OrganizationAdminController,
)
from events.models import EventSeries, StaffPermission
from events.series import services as recurrence_service
from events.series.schemas.series import SeriesDetail
from events.series.schemas.series_split import ExtraDateSchema, SplitAnswer, SplitSchema
from events.series.selectors.series import access_series_admin, series_detail

ERRORS = error_responses(400, 401, 403, 404, 409)
SERIES = "/{slug}/event-series/{series_id}"


@api_controller(ADMIN_PREFIX, auth=JWTAuth(), tags=["organization admin: series"])
class OrganizationAdminSeriesSplitController(OrganizationAdminController):
    def _series(self, slug: str, series_id: uuid.UUID) -> EventSeries:
        return access_series_admin(
            self._caller(), slug, series_id, StaffPermission.EDIT_EVENT_SERIES
        )

    @route.post(SERIES + "/extra-dates", response={200: SeriesDetail, **ERRORS})
    @throttle(WriteThrottle)
    def add_extra_date(
        self, slug: str, series_id: uuid.UUID, payload: ExtraDateSchema
    ) -> EventSeries:
        """One-off date (RDATE); materialised at once inside the window; twice is a no-op."""
        series = self._series(slug, series_id)
        recurrence_service.add_extra_date(series, payload.start)
        return series_detail(series.organization, series.pk)

    @route.post(SERIES + "/extra-dates/remove", response={200: SeriesDetail, **ERRORS})
    @throttle(WriteThrottle)
    def remove_extra_date(
        self, slug: str, series_id: uuid.UUID, payload: ExtraDateSchema
    ) -> EventSeries:
        """Removes the date and cancels its future occurrence."""
        series = self._series(slug, series_id)
        recurrence_service.remove_extra_date(series, payload.start)
        return series_detail(series.organization, series.pk)

    @route.post(SERIES + "/split", response={201: SplitAnswer, **ERRORS})
    @throttle(WriteThrottle)
    def split(
        self, slug: str, series_id: uuid.UUID, payload: SplitSchema
    ) -> tuple[int, dict[str, EventSeries]]:
        """This and following: 201 `{old, new}` series details."""
        series = self._series(slug, series_id)
        result = recurrence_service.split_series(
            series,
            payload.from_,
            recurrence=payload.rule_changes(),
            template=payload.template_changes(),
            stale=payload.stale,
        )
        organization = series.organization
        return 201, {
            "old": series_detail(organization, result.old.pk),
            "new": series_detail(organization, result.new.pk),
        }


CONTROLLERS = [OrganizationAdminSeriesSplitController]
