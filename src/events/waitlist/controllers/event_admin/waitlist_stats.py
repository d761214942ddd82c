"""The organiser's waitlist statistics: /event-admin/{event_id}/waitlist/stats (`invite_to_event`).

The same permission as the queue itself: whoever may see the queue may see how it went.
"""

import uuid

from ninja_extra import api_controller, route
from ninja_jwt.authentication import JWTAuth

from common.api import error_responses
from events.core.controllers.event_admin.event_admin_base import (
    EVENT_ADMIN_PREFIX,
    EventAdminController,
)
from events.models import StaffPermission
from events.waitlist.schemas.stats import WaitlistStatsSchema
from events.waitlist.selectors.stats import WaitlistStats, waitlist_stats

PERMISSION = StaffPermission.INVITE_TO_EVENT


@api_controller(EVENT_ADMIN_PREFIX, auth=JWTAuth(), tags=["event admin"])
class EventAdminWaitlistStatsController(EventAdminController):
    @route.get(
        "/{event_id}/waitlist/stats",
        response={200: WaitlistStatsSchema, **error_responses(401, 403, 404)},
    )
    def get_stats(self, event_id: uuid.UUID) -> WaitlistStats:
        """Offers sent, claimed, declined, lapsed, revoked; claim rate; median time to
        claim; the queue's length over time (docs/architecture/waitlist-eta-and-stats.md)."""
        event = self._event(event_id, PERMISSION)
        return waitlist_stats(event.pk)


CONTROLLERS = [EventAdminWaitlistStatsController]
