"""The organiser's pages of docs/spec/ui.md (`/manage/...`): organisations, the event form, the
event overview with its status changes, check-in and the attendee CSV.

Every view is `@signed_in` first, then fetches through the admin API's access functions
(`events.core.selectors.access`) with the permission of the matching API route, so a page
answers 404 / 403 exactly where the API would. See docs/architecture/web-manage.md.
"""

from common.errors import EncoreError


def is_refusal(error: EncoreError) -> bool:
    """A refusal shown next to its action (400, 409); 403 / 404 / 429 / 503 are pages."""
    return error.status_code in (400, 409)
