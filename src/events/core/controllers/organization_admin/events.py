"""Creating an event: POST /organization-admin/{slug}/create-event (`create_event`)."""

from ninja_extra import api_controller, route
from ninja_extra.throttling import throttle
from ninja_jwt.authentication import JWTAuth

from common.api import WriteThrottle, error_responses
from events.core.controllers.organization_admin.base import (
    ADMIN_PREFIX,
    OrganizationAdminController,
)
from events.core.schemas.event import EventDetail
from events.core.schemas.event_admin import EventCreateSchema
from events.core.selectors import event_admin as admin_selectors
from events.core.services import event_service
from events.models import Event, StaffPermission

ERRORS = error_responses(400, 401, 403, 404, 409)


@api_controller(ADMIN_PREFIX, auth=JWTAuth(), tags=["organization admin"])
class OrganizationEventsController(OrganizationAdminController):
    @route.post("/{slug}/create-event", response={201: EventDetail, **ERRORS})
    @throttle(WriteThrottle)
    def create_event(self, slug: str, payload: EventCreateSchema) -> tuple[int, Event]:
        """201 with the event detail; status `draft` unless `open` is given."""
        organization = self._organization(slug, StaffPermission.CREATE_EVENT)
        event = event_service.create_event(organization, payload.service_data())
        return 201, admin_selectors.event_detail(self._caller(), event.pk)


CONTROLLERS = [OrganizationEventsController]
