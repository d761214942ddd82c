"""The mail about an event, as its organiser sees it: /event-admin/{event_id}/deliveries
(`manage_event`). A delivery that failed says why, and whether another attempt is due
or it was given up (ADR 0036)."""

import uuid

from django.db.models import QuerySet
from ninja_extra import api_controller, route
from ninja_extra.pagination import PaginatedResponseSchema, paginate
from ninja_jwt.authentication import JWTAuth

from common.api import Pagination
from events.core.controllers.event_admin.event_admin_base import (
    EVENT_ADMIN_PREFIX,
    EventAdminController,
)
from events.models import StaffPermission
from notifications.models import NotificationDelivery
from notifications.schema.notifications import DeliverySchema, DeliveryStatus
from notifications.selectors.deliveries import deliveries_about_event


@api_controller(EVENT_ADMIN_PREFIX, auth=JWTAuth(), tags=["event admin"])
class EventAdminDeliveryController(EventAdminController):
    @route.get("/{event_id}/deliveries", response=PaginatedResponseSchema[DeliverySchema])
    @paginate(Pagination)
    def list_deliveries(
        self, event_id: uuid.UUID, status: DeliveryStatus | None = None
    ) -> QuerySet[NotificationDelivery]:
        event = self._event(event_id, StaffPermission.MANAGE_EVENT)
        return deliveries_about_event(event.pk, status)


CONTROLLERS = [EventAdminDeliveryController]
