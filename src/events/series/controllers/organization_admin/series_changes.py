"""The preview of a series change (docs/spec/api.md "Series, second round").

`POST .../event-series/{id}/preview` takes the recurrence PATCH body and answers what the
PATCH would do, writing nothing: the same planning function runs for both
(`recurrence_service.changes`). Permission `edit_event_series`; another organisation's
series is a 404. Throttled like the writes: it is as costly as the PATCH's planning.
"""

import uuid
from typing import Any

from ninja_extra import api_controller, route
from ninja_extra.throttling import throttle
from ninja_jwt.authentication import JWTAuth

from common.api import WriteThrottle, error_responses
from events.core.controllers.organization_admin.base import (
    ADMIN_PREFIX,
    OrganizationAdminController,
)
from events.models import StaffPermission
from events.series import services as recurrence_service
from events.series.schemas.series_changes import SeriesChangeSchema, SeriesPreviewSchema
from events.series.selectors.series import access_series_admin

ERRORS = error_responses(400, 401, 403, 404, 409)


@api_controller(ADMIN_PREFIX, auth=JWTAuth(), tags=["organization admin: series"])
class OrganizationAdminSeriesChangesController(OrganizationAdminController):
    @route.post(
        "/{slug}/event-series/{series_id}/preview",
        response={200: SeriesPreviewSchema, **ERRORS},
        by_alias=True,
    )
    @throttle(WriteThrottle)
    def preview(self, slug: str, series_id: uuid.UUID, payload: SeriesChangeSchema) -> Any:
        """What the recurrence PATCH with this body would create, move and leave stale."""
        series = access_series_admin(
            self._caller(), slug, series_id, StaffPermission.EDIT_EVENT_SERIES
        )
        plan = recurrence_service.preview_series_change(series, payload.change())
        return {
            "created": plan.created,
            "moved": [
                {
                    "event_id": move.event_id,
                    "start_from": move.start_from,
                    "start_to": move.start_to,
                    "end": move.end_to,
                    "attendees": move.attendees,
                }
                for move in plan.moved
            ],
            "stale": plan.stale,
        }


CONTROLLERS = [OrganizationAdminSeriesChangesController]
