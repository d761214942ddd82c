"""Public organisation routes: create, read, ask to join, follow (and follow a series).

`GET /organizations/{slug}` works without a token too (anonymous callers see public
organisations only), so it accepts an optional JWT; every other route needs one.
"""

import uuid

from ninja_extra import api_controller, route
from ninja_extra.throttling import throttle
from ninja_jwt.authentication import JWTAuth

from accounts.controllers.base import CallerController
from common.api import ErrorSchema, WriteThrottle, error_responses, optional_jwt_auth
from events.core.schemas.organization import (
    FollowBodySchema,
    FollowSchema,
    MembershipRequestCreateSchema,
    MembershipRequestSchema,
    OrganizationCreateSchema,
    OrganizationSchema,
)
from events.core.selectors.organization import get_visible_organization, get_visible_series
from events.core.services import follow_service, membership_service, organization_service
from events.models import (
    EventSeriesFollow,
    Organization,
    OrganizationFollow,
    OrganizationMembershipRequest,
)

ERRORS = error_responses(400, 401, 404, 409)


@api_controller("/organizations", auth=JWTAuth(), tags=["organizations"])
class OrganizationController(CallerController):
    @route.post("", response={201: OrganizationSchema, **ERRORS})
    @throttle(WriteThrottle)
    def create_organization(self, payload: OrganizationCreateSchema) -> tuple[int, Organization]:
        organization = organization_service.create_organization(
            owner=self._caller(), **payload.model_dump()
        )
        return 201, organization

    @route.get(
        "/{slug}", response={200: OrganizationSchema, 404: ErrorSchema}, auth=optional_jwt_auth()
    )
    def get_organization(self, slug: str) -> Organization:
        return get_visible_organization(self._viewer(), slug)

    @route.post("/{slug}/membership-requests", response={201: MembershipRequestSchema, **ERRORS})
    @throttle(WriteThrottle)
    def request_membership(
        self, slug: str, payload: MembershipRequestCreateSchema | None = None
    ) -> tuple[int, OrganizationMembershipRequest]:
        organization = get_visible_organization(self._caller(), slug)
        request = membership_service.request_membership(
            organization, user=self._caller(), message=payload.message if payload else ""
        )
        return 201, request

    @route.post("/{slug}/follow", response={200: FollowSchema, **ERRORS})
    @throttle(WriteThrottle)
    def follow_organization(
        self, slug: str, payload: FollowBodySchema | None = None
    ) -> OrganizationFollow:
        organization = get_visible_organization(self._caller(), slug)
        notify = payload.notify_new_events if payload else None
        return follow_service.follow_organization(
            self._caller(), organization, notify_new_events=notify
        )

    @route.delete("/{slug}/follow", response={204: None, **ERRORS})
    @throttle(WriteThrottle)
    def unfollow_organization(self, slug: str) -> tuple[int, None]:
        follow_service.unfollow_organization(self._caller(), slug=slug)
        return 204, None


@api_controller("/event-series", auth=JWTAuth(), tags=["event series"])
class EventSeriesFollowController(CallerController):
    @route.post("/{series_id}/follow", response={200: FollowSchema, **ERRORS})
    @throttle(WriteThrottle)
    def follow_series(
        self, series_id: uuid.UUID, payload: FollowBodySchema | None = None
    ) -> EventSeriesFollow:
        series = get_visible_series(self._caller(), series_id)
        notify = payload.notify_new_events if payload else None
        return follow_service.follow_series(self._caller(), series, notify_new_events=notify)

    @route.delete("/{series_id}/follow", response={204: None, **ERRORS})
    @throttle(WriteThrottle)
    def unfollow_series(self, series_id: uuid.UUID) -> tuple[int, None]:
        follow_service.unfollow_series(self._caller(), series_id=series_id)
        return 204, None


CONTROLLERS = [OrganizationController, EventSeriesFollowController]
