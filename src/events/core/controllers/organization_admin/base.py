"""The base of every `/organization-admin/{slug}` controller.

`_organization(slug, permission)` is the one door: 404 when the organisation is
invisible to the caller, 403 without the permission (docs/spec/api.md conventions). Sub-objects
are then fetched scoped to that organisation, so another organisation's id is a 404.
"""

from accounts.controllers.base import CallerController
from common.api import error_responses
from events.core.selectors.access import access_organization_admin, access_owner
from events.models import Organization

ADMIN_PREFIX = "/organization-admin"

#: The error statuses the organisation admin write routes declare, for the OpenAPI document.
ERRORS = error_responses(400, 403, 404, 409)


class OrganizationAdminController(CallerController):
    def _organization(self, slug: str, permission: str) -> Organization:
        return access_organization_admin(self._caller(), slug, permission)

    def _owned_organization(self, slug: str) -> Organization:
        return access_owner(self._caller(), slug)
