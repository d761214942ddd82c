"""An organisation's blacklist (`manage_members` for reading and writing)."""

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
from events.core.schemas.organization import BlacklistCreateSchema, BlacklistSchema
from events.core.selectors import organization as org_selectors
from events.core.services import blacklist_service
from events.models import Blacklist, StaffPermission


@api_controller(ADMIN_PREFIX, auth=JWTAuth(), tags=["organization admin"])
class BlacklistController(OrganizationAdminController):
    @route.get("/{slug}/blacklist", response=PaginatedResponseSchema[BlacklistSchema])
    @paginate(Pagination)
    def list_blacklist(self, slug: str) -> QuerySet[Blacklist]:
        organization = self._organization(slug, StaffPermission.MANAGE_MEMBERS)
        return org_selectors.list_blacklist(organization)

    @route.post("/{slug}/blacklist", response={201: BlacklistSchema, **ERRORS})
    @throttle(WriteThrottle)
    def add_entry(self, slug: str, payload: BlacklistCreateSchema) -> tuple[int, Blacklist]:
        organization = self._organization(slug, StaffPermission.MANAGE_MEMBERS)
        user = user_from_input(payload.user_id) if payload.user_id else None
        entry = blacklist_service.add_blacklist_entry(
            organization, user=user, email=payload.email, reason=payload.reason
        )
        return 201, entry

    @route.delete("/{slug}/blacklist/{entry_id}", response={204: None, **ERRORS})
    @throttle(WriteThrottle)
    def remove_entry(self, slug: str, entry_id: uuid.UUID) -> tuple[int, None]:
        organization = self._organization(slug, StaffPermission.MANAGE_MEMBERS)
        blacklist_service.remove_blacklist_entry(
            org_selectors.get_blacklist_entry(organization, entry_id)
        )
        return 204, None


CONTROLLERS = [BlacklistController]
