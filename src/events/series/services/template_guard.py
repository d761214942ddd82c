"""The event PATCH on a series template: only what the template route may change.

A template is edited through its series (`PATCH .../event-series/{id}/template`), which
accepts PROPAGATABLE_FIELDS only; its schedule belongs to the recurrence rule. The event
PATCH (`/event-admin/{template_id}`) once changed anything on a template (its start, its
end), so occurrences cloned afterwards disagreed with the rule and with the series
routes' own refusals. It now refuses the same fields with the same 422 and names the
series route to use.
"""

from collections.abc import Mapping
from typing import Any

from events.models import Event
from events.series.errors import SeriesTemplateField
from events.series.services.propagation import PROPAGATABLE_FIELDS

#: The event PATCH names the venue by its id; the template route calls it `venue`.
_PATCH_NAMES = {"venue_id": "venue"}


def check_event_patch_of_template(event: Event, fields: Mapping[str, Any]) -> None:
    """422 `is_series_template` for each sent field a series template cannot take here."""
    if not event.is_template:
        return
    refused = sorted(
        name for name in fields if _PATCH_NAMES.get(name, name) not in PROPAGATABLE_FIELDS
    )
    if not refused:
        return
    route = (
        f"/api/organization-admin/{event.organization.slug}/event-series/{event.event_series_id}"
    )
    message = f"Not editable on a series template; use PATCH {route}/template or /recurrence."
    raise SeriesTemplateField(
        f"This event is the template of a series: PATCH {route}/template changes "
        f"{', '.join(sorted(PROPAGATABLE_FIELDS))}; the schedule is the series' rule.",
        extra={
            "errors": {name: [message] for name in refused},
            "series_id": str(event.event_series_id),
            "series_route": route,
        },
    )
