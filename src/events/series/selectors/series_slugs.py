"""Former series slugs: where an old public address of a renamed series leads.

`EventSeriesSlug` keeps every slug a series had (`recurrence_service.editing`). An old
address answers 301 with the current slug, with the visibility of the current
address: a viewer who may not see the organisation gets the same 404 as for an
unknown slug, so an old link reveals nothing a new one would not.
"""

from events.core.selectors.access import AnyUser, visible_organizations
from events.models import EventSeries


def current_slug_of_former(user: AnyUser, org_slug: str, former_slug: str) -> str | None:
    """The series' current slug when `former_slug` was one of its slugs, else None."""
    return (
        EventSeries.objects.filter(
            organization__slug=org_slug,
            organization__in=visible_organizations(user),
            former_slugs__slug=former_slug,
        )
        .values_list("slug", flat=True)
        .first()
    )
