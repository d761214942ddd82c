"""The base of every `/event-admin/{event_id}` controller.

`_event(event_id, permission)` is the one door: 404 when the event is invisible to the
caller, 403 without the permission (docs/spec/api.md conventions). Sub-objects (RSVPs,
invitations, queue entries) are then fetched scoped to that event, so another event's
id is a 404.
"""

import uuid

from accounts.controllers.base import CallerController
from common.api import error_responses
from events.core.selectors.access import access_event_admin
from events.models import Event

EVENT_ADMIN_PREFIX = "/event-admin"

#: The error statuses every event admin route may answer, for the OpenAPI document.
ERRORS = error_responses(400, 401, 403, 404, 409)


class EventAdminController(CallerController):
    def _event(self, event_id: uuid.UUID, permission: str) -> Event:
        return access_event_admin(self._caller(), event_id, permission)
