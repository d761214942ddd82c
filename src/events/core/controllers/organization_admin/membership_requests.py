"""Deciding on membership requests (`manage_members`)."""

import uuid

from django.db.models import QuerySet
from ninja_extra import api_controller, route
from ninja_extra.pagination import PaginatedResponseSchema, paginate
from ninja_extra.throttling import throttle
from ninja_jwt.authentication import JWTAuth

from common.api import Pagination, WriteThrottle, error_responses
from events.core.controllers.organization_admin.base import (
    ADMIN_PREFIX,
    OrganizationAdminController,
)
from events.core.schemas.organization import MembershipRequestSchema
from events.core.selectors import organization as org_selectors
from events.core.services import membership_service
from events.models import OrganizationMembershipRequest, StaffPermission

ERRORS = error_responses(403, 404, 409)


@api_controller(ADMIN_PREFIX, auth=JWTAuth(), tags=["organization admin"])
class MembershipRequestsController(OrganizationAdminController):
    @route.get(
        "/{slug}/membership-requests", response=PaginatedResponseSchema[MembershipRequestSchema]
    )
    @paginate(Pagination)
    def list_requests(
        self, slug: str, status: str | None = None
    ) -> QuerySet[OrganizationMembershipRequest]:
        """Newest first; `?status=pending` shows the ones waiting for a decision."""
        organization = self._organization(slug, StaffPermission.MANAGE_MEMBERS)
        return org_selectors.list_membership_requests(organization, status)

    @route.post(
        "/{slug}/membership-requests/{request_id}/approve",
        response={200: MembershipRequestSchema, **ERRORS},
    )
    @throttle(WriteThrottle)
    def approve_request(self, slug: str, request_id: uuid.UUID) -> OrganizationMembershipRequest:
        organization = self._organization(slug, StaffPermission.MANAGE_MEMBERS)
        request = org_selectors.get_membership_request(organization, request_id)
        return membership_service.approve_request(request, decided_by=self._caller())

    @route.post(
        "/{slug}/membership-requests/{request_id}/reject",
        response={200: MembershipRequestSchema, **ERRORS},
    )
    @throttle(WriteThrottle)
    def reject_request(self, slug: str, request_id: uuid.UUID) -> OrganizationMembershipRequest:
        organization = self._organization(slug, StaffPermission.MANAGE_MEMBERS)
        request = org_selectors.get_membership_request(organization, request_id)
        return membership_service.reject_request(request, decided_by=self._caller())


CONTROLLERS = [MembershipRequestsController]
