"""PATCH /organization-admin/{slug}: name, description, timezone, visibility, requests."""

from ninja_extra import api_controller, route
from ninja_extra.throttling import throttle
from ninja_jwt.authentication import JWTAuth

from common.api import WriteThrottle, error_responses
from events.core.controllers.organization_admin.base import (
    ADMIN_PREFIX,
    OrganizationAdminController,
)
from events.core.schemas.organization import OrganizationSchema, OrganizationUpdateSchema
from events.core.services import organization_service
from events.models import Organization, StaffPermission


@api_controller(ADMIN_PREFIX, auth=JWTAuth(), tags=["organization admin"])
class OrganizationSettingsController(OrganizationAdminController):
    @route.patch(
        "/{slug}",
        response={200: OrganizationSchema, **error_responses(400, 403, 404)},
    )
    @throttle(WriteThrottle)
    def update_organization(self, slug: str, payload: OrganizationUpdateSchema) -> Organization:
        organization = self._organization(slug, StaffPermission.EDIT_ORGANIZATION)
        return organization_service.update_organization(
            organization, changes=payload.model_dump(exclude_unset=True)
        )


CONTROLLERS = [OrganizationSettingsController]
