"""Public event routes: the list, the detail and the iCalendar export.

All three work without a token (anonymous callers see what the public may see); with
a token, the caller's own visibility applies (staff see their drafts, members their
members-only events). A bad token is still a 401.
"""

import uuid

from django.db.models import QuerySet
from django.http import HttpResponse
from ninja import Query
from ninja_extra import api_controller, route
from ninja_extra.pagination import PaginatedResponseSchema, paginate

from accounts.controllers.base import CallerController
from common.api import ErrorSchema, Pagination, optional_jwt_auth
from common.openapi import file_response
from events.core.schemas.event import EventDetail, EventFilterSchema, EventListItem
from events.core.selectors.access import get_visible_event
from events.core.selectors.event import get_public_event, list_public_events
from events.core.selectors.event_calendar import events_calendar
from events.models import Event


@api_controller("/events", auth=optional_jwt_auth(), tags=["events"])
class EventController(CallerController):
    @route.get("", response=PaginatedResponseSchema[EventListItem])
    @paginate(Pagination)
    def list_events(self, filters: Query[EventFilterSchema]) -> QuerySet[Event]:
        return list_public_events(self._viewer(), **filters.model_dump())

    @route.get("/{event_id}", response={200: EventDetail, 404: ErrorSchema})
    def get_event(self, event_id: uuid.UUID) -> Event:
        return get_public_event(self._viewer(), event_id)

    @route.get(
        "/{event_id}/calendar.ics",
        response={404: ErrorSchema},
        openapi_extra=file_response("text/calendar", "The event as an iCalendar file."),
    )
    def event_calendar(self, event_id: uuid.UUID) -> HttpResponse:
        event = get_visible_event(self._viewer(), event_id)
        response = HttpResponse(
            events_calendar([event], name=event.name), content_type="text/calendar; charset=utf-8"
        )
        response["Content-Disposition"] = f'attachment; filename="{event.slug}.ics"'
        return response


CONTROLLERS = [EventController]
