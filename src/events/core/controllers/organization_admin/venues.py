"""Venues of an organisation: listed with `view_organization_details`, created and edited
with `edit_organization`."""

import uuid

from django.db.models import QuerySet
from ninja_extra import api_controller, route
from ninja_extra.pagination import PaginatedResponseSchema, paginate
from ninja_extra.throttling import throttle
from ninja_jwt.authentication import JWTAuth

from common.api import Pagination, WriteThrottle
from events.core.controllers.organization_admin.base import (
    ADMIN_PREFIX,
    ERRORS,
    OrganizationAdminController,
)
from events.core.schemas.venue import VenueCreateSchema, VenueSchema, VenueUpdateSchema
from events.core.selectors import organization as org_selectors
from events.core.services import venue_service
from events.models import StaffPermission, Venue


@api_controller(ADMIN_PREFIX, auth=JWTAuth(), tags=["organization admin"])
class VenuesController(OrganizationAdminController):
    @route.get("/{slug}/venues", response=PaginatedResponseSchema[VenueSchema])
    @paginate(Pagination)
    def list_venues(self, slug: str) -> QuerySet[Venue]:
        organization = self._organization(slug, StaffPermission.VIEW_ORGANIZATION_DETAILS)
        return org_selectors.list_venues(organization)

    @route.post("/{slug}/venues", response={201: VenueSchema, **ERRORS})
    @throttle(WriteThrottle)
    def create_venue(self, slug: str, payload: VenueCreateSchema) -> tuple[int, Venue]:
        organization = self._organization(slug, StaffPermission.EDIT_ORGANIZATION)
        return 201, venue_service.create_venue(organization, **payload.model_dump())

    @route.patch("/{slug}/venues/{venue_id}", response={200: VenueSchema, **ERRORS})
    @throttle(WriteThrottle)
    def update_venue(self, slug: str, venue_id: uuid.UUID, payload: VenueUpdateSchema) -> Venue:
        organization = self._organization(slug, StaffPermission.EDIT_ORGANIZATION)
        venue = org_selectors.get_venue(organization, venue_id)
        return venue_service.update_venue(venue, changes=payload.model_dump(exclude_unset=True))


CONTROLLERS = [VenuesController]
