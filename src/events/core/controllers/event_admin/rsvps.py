"""Staff managing RSVPs for users: /event-admin/{event_id}/rsvps (`manage_event`).

POST answers 201 when it created the user's RSVP and 200 when it changed an existing
one. Every write goes through `EventManager` (staff skip the gates, never capacity).
Check-in (`POST …/rsvps/{rsvp_id}/check-in`) needs `check_in_attendees`, like the
ticket check-in, and only a YES RSVP inside the event's check-in window passes.
"""

import uuid

from django.db.models import QuerySet
from ninja_extra import api_controller, route
from ninja_extra.pagination import PaginatedResponseSchema, paginate
from ninja_extra.throttling import throttle
from ninja_jwt.authentication import JWTAuth

from accounts.selectors import user_from_input
from common.api import Pagination, WriteThrottle
from events.core.controllers.event_admin.event_admin_base import (
    ERRORS,
    EVENT_ADMIN_PREFIX,
    EventAdminController,
)
from events.core.schemas.choices import RSVPStatus
from events.core.schemas.event_admin import (
    AdminRSVPCreateSchema,
    AdminRSVPSchema,
    AdminRSVPUpdateSchema,
)
from events.core.selectors import event_admin as admin_selectors
from events.core.services import admin_rsvp_service
from events.models import EventRSVP, StaffPermission

PERMISSION = StaffPermission.MANAGE_EVENT


@api_controller(EVENT_ADMIN_PREFIX, auth=JWTAuth(), tags=["event admin"])
class EventAdminRSVPController(EventAdminController):
    @route.get("/{event_id}/rsvps", response=PaginatedResponseSchema[AdminRSVPSchema])
    @paginate(Pagination)
    def list_rsvps(
        self, event_id: uuid.UUID, status: RSVPStatus | None = None
    ) -> QuerySet[EventRSVP]:
        event = self._event(event_id, PERMISSION)
        return admin_selectors.list_rsvps(event, status)

    @route.post(
        "/{event_id}/rsvps", response={200: AdminRSVPSchema, 201: AdminRSVPSchema, **ERRORS}
    )
    @throttle(WriteThrottle)
    def set_rsvp(
        self, event_id: uuid.UUID, payload: AdminRSVPCreateSchema
    ) -> tuple[int, EventRSVP]:
        event = self._event(event_id, PERMISSION)
        user = user_from_input(payload.user_id)
        rsvp, created = admin_rsvp_service.set_rsvp(event, user, payload.status)
        return (201 if created else 200), rsvp

    @route.patch("/{event_id}/rsvps/{rsvp_id}", response={200: AdminRSVPSchema, **ERRORS})
    @throttle(WriteThrottle)
    def update_rsvp(
        self, event_id: uuid.UUID, rsvp_id: uuid.UUID, payload: AdminRSVPUpdateSchema
    ) -> EventRSVP:
        event = self._event(event_id, PERMISSION)
        rsvp = admin_selectors.get_rsvp(event, rsvp_id)
        return admin_rsvp_service.update_rsvp(event, rsvp, payload.status)

    @route.delete("/{event_id}/rsvps/{rsvp_id}", response={204: None, **ERRORS})
    @throttle(WriteThrottle)
    def delete_rsvp(self, event_id: uuid.UUID, rsvp_id: uuid.UUID) -> tuple[int, None]:
        event = self._event(event_id, PERMISSION)
        admin_rsvp_service.delete_rsvp(event, admin_selectors.get_rsvp(event, rsvp_id))
        return 204, None

    @route.post("/{event_id}/rsvps/{rsvp_id}/check-in", response={200: AdminRSVPSchema, **ERRORS})
    @throttle(WriteThrottle)
    def check_in_rsvp(self, event_id: uuid.UUID, rsvp_id: uuid.UUID) -> EventRSVP:
        event = self._event(event_id, StaffPermission.CHECK_IN_ATTENDEES)
        return admin_rsvp_service.check_in_rsvp(self._caller(), event, rsvp_id)


CONTROLLERS = [EventAdminRSVPController]
