"""Public series routes: the series with its visible occurrences, and its calendar feed.

Without a token the public's view applies; with one, the caller's (staff see drafts,
members their members-only occurrences). A template is never an occurrence and is
never shown. (Following a series lives in `organization/organizations.py`.)
"""

import uuid

from django.http import HttpResponse, HttpResponsePermanentRedirect
from ninja_extra import api_controller, route

from accounts.controllers.base import CallerController
from common.api import ErrorSchema, optional_jwt_auth
from common.errors import NotFound
from common.openapi import file_response
from events.core.selectors.event_calendar import events_calendar
from events.models import EventSeries
from events.series.schemas.series import PublicSeriesSchema
from events.series.selectors.series import (
    visible_occurrences,
    visible_series,
    visible_series_by_slug,
)
from events.series.selectors.series_slugs import current_slug_of_former

NOT_FOUND = {404: ErrorSchema}


class _SeriesReader(CallerController):
    def _public(self, series: EventSeries) -> dict[str, object]:
        rule = series.recurrence_rule
        return {
            "id": series.pk,
            "name": series.name,
            "slug": series.slug,
            "description": series.description,
            "organization_slug": series.organization.slug,
            "is_active": series.is_active,
            "rrule_string": rule.rrule_string if rule is not None else None,
            "occurrences": list(visible_occurrences(self._viewer(), series)),
        }


@api_controller("/event-series", auth=optional_jwt_auth(), tags=["event series"])
class PublicSeriesController(_SeriesReader):
    @route.get("/{series_id}", response={200: PublicSeriesSchema, **NOT_FOUND})
    def get_series(self, series_id: uuid.UUID) -> dict[str, object]:
        return self._public(visible_series(self._viewer(), series_id))

    @route.get(
        "/{series_id}/calendar.ics",
        response=NOT_FOUND,
        openapi_extra=file_response("text/calendar", "The series as an iCalendar feed."),
    )
    def series_calendar(self, series_id: uuid.UUID) -> HttpResponse:
        """Every visible occurrence, cancelled ones as STATUS:CANCELLED; UID `<id>@encore`."""
        series = visible_series(self._viewer(), series_id)
        occurrences = visible_occurrences(self._viewer(), series)
        response = HttpResponse(
            events_calendar(occurrences, name=series.name),
            content_type="text/calendar; charset=utf-8",
        )
        response["Content-Disposition"] = f'attachment; filename="{series.slug}.ics"'
        return response


@api_controller("/events", auth=optional_jwt_auth(), tags=["event series"])
class PublicSeriesBySlugController(_SeriesReader):
    @route.get(
        "/{org_slug}/series/{series_slug}",
        response={200: PublicSeriesSchema, 301: None, **NOT_FOUND},
    )
    def get_series_by_slug(
        self, org_slug: str, series_slug: str
    ) -> dict[str, object] | HttpResponse:
        """A former slug of a renamed series answers 301 with the current address."""
        try:
            series = visible_series_by_slug(self._viewer(), org_slug, series_slug)
        except NotFound:
            moved = current_slug_of_former(self._viewer(), org_slug, series_slug)
            if moved is None:
                raise
            return HttpResponsePermanentRedirect(f"/api/events/{org_slug}/series/{moved}")
        return self._public(series)


CONTROLLERS = [PublicSeriesController, PublicSeriesBySlugController]
