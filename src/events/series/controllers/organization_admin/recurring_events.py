"""Recurring series administration under /organization-admin/{slug} (docs/spec/series-design.md).

Creating needs `create_event`; deleting `delete_event_series`; everything else
`edit_event_series`. A series of another organisation is a 404. The series PATCH is
inherited from `series_admin.SeriesEditRoutes` (same path as this GET and DELETE). Each route parses its
body, fetches the series through `access_series_admin` and calls one function of
`recurrence_service`, which owns the locks and the transaction.
"""

import uuid

from ninja_extra import api_controller, route
from ninja_extra.throttling import throttle
from ninja_jwt.authentication import JWTAuth

from common.api import WriteThrottle, error_responses
from events.core.controllers.organization_admin.base import ADMIN_PREFIX
from events.core.schemas.event import EventDetail
from events.core.selectors import event_admin as admin_selectors
from events.models import Event, EventSeries, StaffPermission
from events.series import services as recurrence_service
from events.series.controllers.organization_admin.series_admin import SeriesEditRoutes
from events.series.schemas.series import (
    CancelledSchema,
    CancelOccurrenceSchema,
    DriftSchema,
    GenerateSchema,
    SeriesCreateSchema,
    SeriesDetail,
    TemplatePatchSchema,
)
from events.series.schemas.series_changes import SeriesChangeDetail, SeriesChangeSchema
from events.series.selectors.series import access_series_admin, admin_events, series_detail

ERRORS = error_responses(400, 401, 403, 404, 409)
READ_ERRORS = error_responses(401, 403, 404)
SERIES = "/{slug}/event-series/{series_id}"
EDIT = StaffPermission.EDIT_EVENT_SERIES


@api_controller(ADMIN_PREFIX, auth=JWTAuth(), tags=["organization admin: series"])
class OrganizationAdminRecurringEventsController(SeriesEditRoutes):
    def _series(self, slug: str, series_id: uuid.UUID, permission: str = EDIT) -> EventSeries:
        return access_series_admin(self._caller(), slug, series_id, permission)

    def _detail(self, series: EventSeries) -> EventSeries:
        return series_detail(series.organization, series.pk)

    @route.post("/{slug}/create-recurring-event", response={201: SeriesDetail, **ERRORS})
    @throttle(WriteThrottle)
    def create_recurring_event(
        self, slug: str, payload: SeriesCreateSchema
    ) -> tuple[int, EventSeries]:
        """Rule, series and template, then a first generation pass; 201 series detail."""
        organization = self._organization(slug, StaffPermission.CREATE_EVENT)
        rule_data = payload.check()
        series = recurrence_service.create_recurring_event_series(
            organization,
            payload.template_data(),
            payload.series_name,
            rule_data,
            description=payload.series_description,
            auto_publish=payload.auto_publish,
            generation_window_weeks=payload.generation_window_weeks,
        )
        return 201, series_detail(organization, series.pk)

    @route.get(SERIES, response={200: SeriesDetail, **READ_ERRORS})
    def get_series(self, slug: str, series_id: uuid.UUID) -> EventSeries:
        return self._series(slug, series_id)

    @route.patch(SERIES + "/template", response={200: EventDetail, **ERRORS})
    @throttle(WriteThrottle)
    def update_template(
        self, slug: str, series_id: uuid.UUID, payload: TemplatePatchSchema, propagate: str = "none"
    ) -> Event:
        """PROPAGATABLE_FIELDS only (else 422); `propagate`: none|future_unmodified|all_future."""
        series = self._series(slug, series_id)
        update = recurrence_service.update_template(series, payload.changes(), propagate)
        return admin_selectors.event_detail(self._caller(), update.template.pk)

    @route.patch(SERIES + "/recurrence", response={200: SeriesChangeDetail, **ERRORS})
    @throttle(WriteThrottle)
    def update_recurrence(
        self, slug: str, series_id: uuid.UUID, payload: SeriesChangeSchema
    ) -> EventSeries:
        """Rule, time of day, duration, window; regenerates in the same call (one plan
        with `/preview`); answers the detail with `last_change`."""
        series = self._series(slug, series_id)
        applied = recurrence_service.apply_series_change(series, payload.change())
        detail = self._detail(series)
        detail.last_change = {  # type: ignore[attr-defined]
            "created": applied.created,
            "moved": applied.moved,
            "cancelled": applied.cancelled,
        }
        return detail

    @route.post(SERIES + "/cancel-occurrence", response={200: SeriesDetail, **ERRORS})
    @throttle(WriteThrottle)
    def cancel_occurrence(
        self, slug: str, series_id: uuid.UUID, payload: CancelOccurrenceSchema
    ) -> EventSeries:
        series = self._series(slug, series_id)
        recurrence_service.cancel_occurrence(series, payload.occurrence_date)
        return self._detail(series)

    @route.post(SERIES + "/cancel-stale", response={200: CancelledSchema, **ERRORS})
    @throttle(WriteThrottle)
    def cancel_stale(self, slug: str, series_id: uuid.UUID) -> dict[str, list[uuid.UUID]]:
        series = self._series(slug, series_id)
        return {"cancelled": recurrence_service.cancel_stale_occurrences(series)}

    @route.post(SERIES + "/generate", response={200: list[EventDetail], **ERRORS})
    @throttle(WriteThrottle)
    def generate(
        self, slug: str, series_id: uuid.UUID, payload: GenerateSchema | None = None
    ) -> list[Event]:
        """A pass now, optionally up to `until` (at most now + 52 weeks, else 400)."""
        series = self._series(slug, series_id)
        until = payload.until if payload is not None else None
        created = recurrence_service.generate_series_events(series, until_override=until)
        return admin_events(self._caller(), [event.pk for event in created])

    @route.post(SERIES + "/pause", response={200: SeriesDetail, **ERRORS})
    @throttle(WriteThrottle)
    def pause(self, slug: str, series_id: uuid.UUID) -> EventSeries:
        series = self._series(slug, series_id)
        recurrence_service.pause_series(series)
        return self._detail(series)

    @route.post(SERIES + "/resume", response={200: SeriesDetail, **ERRORS})
    @throttle(WriteThrottle)
    def resume(self, slug: str, series_id: uuid.UUID) -> EventSeries:
        series = self._series(slug, series_id)
        recurrence_service.resume_series(series)
        return self._detail(series)

    @route.get(SERIES + "/drift", response={200: DriftSchema, **READ_ERRORS})
    def drift(self, slug: str, series_id: uuid.UUID) -> dict[str, list[uuid.UUID]]:
        series = self._series(slug, series_id)
        return {"stale_occurrences": recurrence_service.detect_cadence_drift(series)}

    @route.get(SERIES + "/template-event", response={200: EventDetail, **READ_ERRORS})
    def template_event(self, slug: str, series_id: uuid.UUID) -> Event:
        series = self._series(slug, series_id)
        template = recurrence_service.template_of(series)
        return admin_selectors.event_detail(self._caller(), template.pk)

    @route.delete(SERIES, response={204: None, **ERRORS})
    @throttle(WriteThrottle)
    def delete_series(self, slug: str, series_id: uuid.UUID) -> tuple[int, None]:
        """Pauses the series and cancels its future occurrences (rows stay)."""
        series = self._series(slug, series_id, StaffPermission.DELETE_EVENT_SERIES)
        recurrence_service.delete_series(series)
        return 204, None


CONTROLLERS = [OrganizationAdminRecurringEventsController]
