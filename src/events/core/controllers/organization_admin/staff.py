"""Staff of an organisation: anyone with `view_organization_details` lists them; only the
owner adds, changes or removes them."""

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
from events.core.schemas.organization import StaffCreateSchema, StaffSchema, StaffUpdateSchema
from events.core.selectors import organization as org_selectors
from events.core.services import staff_service
from events.models import OrganizationStaff, StaffPermission


@api_controller(ADMIN_PREFIX, auth=JWTAuth(), tags=["organization admin"])
class StaffController(OrganizationAdminController):
    @route.get("/{slug}/staff", response=PaginatedResponseSchema[StaffSchema])
    @paginate(Pagination)
    def list_staff(self, slug: str) -> QuerySet[OrganizationStaff]:
        organization = self._organization(slug, StaffPermission.VIEW_ORGANIZATION_DETAILS)
        return org_selectors.list_staff(organization)

    @route.post("/{slug}/staff", response={201: StaffSchema, **ERRORS})
    @throttle(WriteThrottle)
    def add_staff(self, slug: str, payload: StaffCreateSchema) -> tuple[int, OrganizationStaff]:
        organization = self._owned_organization(slug)
        user = user_from_input(payload.user_id)
        staff = staff_service.add_staff(organization, user=user, permissions=payload.permissions)
        return 201, staff

    @route.patch("/{slug}/staff/{user_id}", response={200: StaffSchema, **ERRORS})
    @throttle(WriteThrottle)
    def update_staff(
        self, slug: str, user_id: uuid.UUID, payload: StaffUpdateSchema
    ) -> OrganizationStaff:
        staff = org_selectors.get_staff_row(self._owned_organization(slug), user_id)
        return staff_service.update_staff(staff, permissions=payload.permissions)

    @route.delete("/{slug}/staff/{user_id}", response={204: None, **ERRORS})
    @throttle(WriteThrottle)
    def remove_staff(self, slug: str, user_id: uuid.UUID) -> tuple[int, None]:
        staff = org_selectors.get_staff_row(self._owned_organization(slug), user_id)
        staff_service.remove_staff(staff)
        return 204, None


CONTROLLERS = [StaffController]
