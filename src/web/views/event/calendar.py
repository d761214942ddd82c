"""`/events/{event_id}/calendar.ics`: "Add to calendar" with the page's own session.

The API's `GET /api/events/{id}/calendar.ics` reads a JWT, which a browser following a
link does not send; so a private or members-only event that the signed-in viewer may see
would answer 404 there. This route is the same file (`events_calendar`) through the same
visibility (`get_visible_event`) for the session's user.
"""

import uuid

from django.http import HttpRequest, HttpResponse
from django.views.decorators.http import require_GET

from events.core.selectors.access import get_visible_event
from events.core.selectors.event_calendar import events_calendar


@require_GET
def event_calendar(request: HttpRequest, event_id: uuid.UUID) -> HttpResponse:
    event = get_visible_event(request.user, event_id)
    response = HttpResponse(
        events_calendar([event], name=event.name), content_type="text/calendar; charset=utf-8"
    )
    response["Content-Disposition"] = f'attachment; filename="{event.slug}.ics"'
    return response
