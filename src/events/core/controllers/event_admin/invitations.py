"""Invitations to an event: /event-admin/{event_id}/invitations (`invite_to_event`).

POST is idempotent on (event, user) and always answers 201 with the invitation; sending
it again updates `overrides_max_attendees` to the value sent.
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
from events.core.schemas.event_admin import InvitationCreateSchema, InvitationSchema
from events.core.selectors import event_admin as admin_selectors
from events.core.services import invitation_service
from events.models import Invitation, StaffPermission

PERMISSION = StaffPermission.INVITE_TO_EVENT


@api_controller(EVENT_ADMIN_PREFIX, auth=JWTAuth(), tags=["event admin"])
class EventAdminInvitationController(EventAdminController):
    @route.get("/{event_id}/invitations", response=PaginatedResponseSchema[InvitationSchema])
    @paginate(Pagination)
    def list_invitations(self, event_id: uuid.UUID) -> QuerySet[Invitation]:
        event = self._event(event_id, PERMISSION)
        return admin_selectors.list_invitations(event)

    @route.post("/{event_id}/invitations", response={201: InvitationSchema, **ERRORS})
    @throttle(WriteThrottle)
    def create_invitation(
        self, event_id: uuid.UUID, payload: InvitationCreateSchema
    ) -> tuple[int, Invitation]:
        event = self._event(event_id, PERMISSION)
        user = user_from_input(payload.user_id)
        invitation = invitation_service.create_invitation(
            event, user, overrides_max_attendees=payload.overrides_max_attendees
        )
        return 201, invitation

    @route.delete("/{event_id}/invitations/{invitation_id}", response={204: None, **ERRORS})
    @throttle(WriteThrottle)
    def delete_invitation(self, event_id: uuid.UUID, invitation_id: uuid.UUID) -> tuple[int, None]:
        event = self._event(event_id, PERMISSION)
        invitation_service.delete_invitation(admin_selectors.get_invitation(event, invitation_id))
        return 204, None


CONTROLLERS = [EventAdminInvitationController]
