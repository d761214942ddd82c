"""Members of an organisation: listed with `view_organization_details`, managed with
`manage_members`."""

import uuid

from django.db.models import QuerySet
from ninja_extra import api_controller, route
from ninja_extra.pagination import PaginatedResponseSchema, paginate
from ninja_extra.throttling import throttle
from ninja_jwt.authentication import JWTAuth

from accounts.selectors import user_from_input
from common.api import Pagination, WriteThrottle
from events.core.controllers.organization_admin.base import (
    ADMIN_PREFIX,
    ERRORS,
    OrganizationAdminController,
)
from events.core.schemas.organization import MemberCreateSchema, MemberSchema, MemberUpdateSchema
from events.core.selectors import organization as org_selectors
from events.core.services import membership_service
from events.models import OrganizationMember, StaffPermission


@api_controller(ADMIN_PREFIX, auth=JWTAuth(), tags=["organization admin"])
class MembersController(OrganizationAdminController):
    @route.get("/{slug}/members", response=PaginatedResponseSchema[MemberSchema])
    @paginate(Pagination)
    def list_members(self, slug: str, status: str | None = None) -> QuerySet[OrganizationMember]:
        organization = self._organization(slug, StaffPermission.VIEW_ORGANIZATION_DETAILS)
        return org_selectors.list_members(organization, status)

    @route.post("/{slug}/members", response={201: MemberSchema, **ERRORS})
    @throttle(WriteThrottle)
    def add_member(self, slug: str, payload: MemberCreateSchema) -> tuple[int, OrganizationMember]:
        organization = self._organization(slug, StaffPermission.MANAGE_MEMBERS)
        user = user_from_input(payload.user_id)
        member = membership_service.add_member(organization, user=user, status=payload.status)
        return 201, member

    @route.patch("/{slug}/members/{user_id}", response={200: MemberSchema, **ERRORS})
    @throttle(WriteThrottle)
    def update_member(
        self, slug: str, user_id: uuid.UUID, payload: MemberUpdateSchema
    ) -> OrganizationMember:
        organization = self._organization(slug, StaffPermission.MANAGE_MEMBERS)
        member = org_selectors.get_member(organization, user_id)
        return membership_service.update_member(member, status=payload.status)

    @route.delete("/{slug}/members/{user_id}", response={204: None, **ERRORS})
    @throttle(WriteThrottle)
    def remove_member(self, slug: str, user_id: uuid.UUID) -> tuple[int, None]:
        organization = self._organization(slug, StaffPermission.MANAGE_MEMBERS)
        membership_service.remove_member(org_selectors.get_member(organization, user_id))
        return 204, None


CONTROLLERS = [MembersController]
