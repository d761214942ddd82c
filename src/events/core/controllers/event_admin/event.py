"""The event itself: PATCH and DELETE /event-admin/{event_id}, and status changes."""

import uuid

from ninja_extra import api_controller, route
from ninja_extra.throttling import throttle
from ninja_jwt.authentication import JWTAuth

from common.api import WriteThrottle
from events.core.controllers.event_admin.event_admin_base import (
    ERRORS,
    EVENT_ADMIN_PREFIX,
    EventAdminController,
)
from events.core.schemas.choices import EventStatus
from events.core.schemas.event import EventDetail
from events.core.schemas.event_admin import EventUpdateSchema
from events.core.selectors import event_admin as admin_selectors
from events.core.services import event_service
from events.models import Event, StaffPermission
from events.series import services as recurrence_service


@api_controller(EVENT_ADMIN_PREFIX, auth=JWTAuth(), tags=["event admin"])
class EventAdminEventController(EventAdminController):
    @route.patch("/{event_id}", response={200: EventDetail, **ERRORS})
    @throttle(WriteThrottle)
    def update_event(self, event_id: uuid.UUID, payload: EventUpdateSchema) -> Event:
        """Only the fields sent change; capacity up enqueues waitlist processing. On a
        series template only the template route's fields (else 422 `is_series_template`)."""
        event = self._event(event_id, StaffPermission.EDIT_EVENT)
        fields = payload.service_data()
        recurrence_service.check_event_patch_of_template(event, fields)
        event_service.update_event(event, fields)
        return admin_selectors.event_detail(self._caller(), event.pk)

    @route.delete("/{event_id}", response={204: None, **ERRORS})
    @throttle(WriteThrottle)
    def delete_event(self, event_id: uuid.UUID) -> tuple[int, None]:
        """Only an event without tickets or RSVPs (else 409 `has_attendees`)."""
        event = self._event(event_id, StaffPermission.DELETE_EVENT)
        event_service.delete_event(event)
        return 204, None

    @route.post("/{event_id}/status/{status}", response={200: EventDetail, **ERRORS})
    @throttle(WriteThrottle)
    def change_status(self, event_id: uuid.UUID, status: EventStatus) -> Event:
        """`open` needs `open_event`; `closed`, `cancelled` and `draft` need `close_event`."""
        event = self._event(event_id, event_service.required_permission(status))
        event_service.change_status(event, status)
        return admin_selectors.event_detail(self._caller(), event.pk)


CONTROLLERS = [EventAdminEventController]
