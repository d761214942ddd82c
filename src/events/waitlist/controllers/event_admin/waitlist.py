"""The waitlist queue as staff see it: /event-admin/{event_id}/waitlist (`invite_to_event`).

The waitlist settings and offers routes belong to the advanced waitlist and live
elsewhere.
"""

import uuid

from django.db.models import QuerySet
from ninja import Query
from ninja_extra import api_controller, route
from ninja_extra.pagination import PaginatedResponseSchema, paginate
from ninja_extra.throttling import throttle
from ninja_jwt.authentication import JWTAuth

from common.api import Pagination, WriteThrottle
from events.core.controllers.event_admin.event_admin_base import (
    ERRORS,
    EVENT_ADMIN_PREFIX,
    EventAdminController,
)
from events.core.selectors import event_admin as admin_selectors
from events.models import EventWaitList, StaffPermission
from events.waitlist import services as waitlist_service
from events.waitlist.schemas.queue import WaitlistQueueEntrySchema

PERMISSION = StaffPermission.INVITE_TO_EVENT


@api_controller(EVENT_ADMIN_PREFIX, auth=JWTAuth(), tags=["event admin"])
class EventAdminWaitlistController(EventAdminController):
    @route.get("/{event_id}/waitlist", response=PaginatedResponseSchema[WaitlistQueueEntrySchema])
    @paginate(Pagination)
    def list_queue(
        self, event_id: uuid.UUID, search: str | None = Query(None, max_length=200)
    ) -> QuerySet[EventWaitList]:
        """Selection order; `position` is the place in the whole queue (null while holding
        a live offer); `current_offer` the member's latest offer; `?search=` name/e-mail."""
        event = self._event(event_id, PERMISSION)
        return admin_selectors.waitlist_queue(event, search)

    @route.delete("/{event_id}/waitlist/{uuid:entry_id}", response={204: None, **ERRORS})
    @throttle(WriteThrottle)
    def remove_entry(self, event_id: uuid.UUID, entry_id: uuid.UUID) -> tuple[int, None]:
        event = self._event(event_id, PERMISSION)
        waitlist_service.remove_entry(admin_selectors.get_waitlist_entry(event, entry_id))
        return 204, None


CONTROLLERS = [EventAdminWaitlistController]
