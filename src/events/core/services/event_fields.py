"""Which event fields an organiser sets, and how a sent value lands on the row.

The event create and PATCH (`event_service`) and a series template edit pushed onto its
occurrences (`recurrence_service.propagation`) set fields the same way: a name is
stripped (a blank one is then refused by `full_clean`), visibility settings merge key by
key, a venue must belong to the event's organisation. One module, so the two paths
cannot drift apart.
"""

import uuid
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from django.core.exceptions import ValidationError

from common.errors import InvalidInput
from events.core.models.event import DEFAULT_CHECK_IN_LEAD, default_visibility_settings
from events.models import Event, Organization, Venue

#: Fields an organiser sets on create and PATCH. `venue_id` is resolved within the
#: organisation; status has its own route, and the series fields belong to the series.
EDITABLE_FIELDS = frozenset(
    {
        "name",
        "slug",
        "description",
        "visibility",
        "event_type",
        "start",
        "end",
        "timezone",
        "rsvp_before",
        "check_in_starts_at",
        "check_in_ends_at",
        "max_tickets_per_user",
        "requires_ticket",
        "max_attendees",
        "venue_id",
        "visibility_settings",
        "waitlist_open",
        "waitlist_time_window",
        "waitlist_batch_size",
        "waitlist_cutoff_date",
        "waitlist_lottery_mode",
        "waitlist_max_party_size",
        "waitlist_party_policy",
    }
)
#: Values `Event.apply_defaults` derives when they are not sent.
DERIVED_FIELDS = frozenset({"end", "timezone", "check_in_starts_at", "check_in_ends_at"})


def refuse_unknown_fields(fields: Mapping[str, Any]) -> None:
    unknown = sorted(set(fields) - EDITABLE_FIELDS)
    if unknown:
        raise InvalidInput({name: ["This field cannot be set here."] for name in unknown})


def apply_fields(event: Event, fields: Mapping[str, Any]) -> None:
    """Set the sent fields; `venue_id` is looked up in the event's organisation."""
    for name, value in fields.items():
        if name == "venue_id":
            event.venue = venue_of(event.organization, value)
        else:
            set_field(event, name, value)


def set_field(event: Event, name: str, value: Any) -> None:
    """One field, as an organiser's value is set (the venue given as a Venue)."""
    if name == "visibility_settings":
        event.visibility_settings = merged_visibility_settings(event, value)
    elif name == "name" and isinstance(value, str):
        event.name = value.strip()  # a blank name is then refused by full_clean
    else:
        setattr(event, name, value)


def apply_update(event: Event, fields: Mapping[str, Any]) -> None:
    """Set the sent fields; derived values follow a moved start unless they were sent.

    The end keeps the event's length, and a check-in window that still had its
    defaults (start − 1 h .. end) is derived again from the new times.
    """
    old_start, old_end = event.start, event.end
    check_in_was_default = (
        event.check_in_starts_at == old_start - DEFAULT_CHECK_IN_LEAD,
        event.check_in_ends_at == old_end,
    )
    apply_fields(event, fields)
    new_start = event.start
    if "end" not in fields and isinstance(new_start, datetime) and new_start != old_start:
        event.end = old_end + (new_start - old_start)
    if "check_in_starts_at" not in fields and check_in_was_default[0]:
        event.check_in_starts_at = None
    if "check_in_ends_at" not in fields and check_in_was_default[1]:
        event.check_in_ends_at = None
    event.apply_defaults()


def snapshot(event: Event) -> dict[str, Any]:
    """The stored values an edit may change (attnames, so venue compares by id)."""
    return {name: getattr(event, name) for name in EDITABLE_FIELDS | DERIVED_FIELDS}


def merged_visibility_settings(event: Event, sent: Any) -> dict[str, bool]:
    """Only the keys sent change; unknown keys or non-boolean values are refused (400).
    The event PATCH and template edits pushed to occurrences both merge this way."""
    defaults = default_visibility_settings()
    if not isinstance(sent, Mapping) or any(
        key not in defaults or not isinstance(value, bool) for key, value in sent.items()
    ):
        raise ValidationError(
            {"visibility_settings": [f"Expected booleans for {sorted(defaults)} only."]}
        )
    return {**defaults, **(event.visibility_settings or {}), **sent}


def venue_of(
    organization: Organization, venue_id: uuid.UUID | None, *, field: str = "venue_id"
) -> Venue | None:
    """The organisation's venue; another organisation's id is as unknown as a random one
    (400 on `field`, the name the caller's body uses)."""
    if venue_id is None:
        return None
    venue = Venue.objects.filter(pk=venue_id, organization=organization).first()
    if venue is None:
        raise InvalidInput({field: ["No venue with this id in this organisation."]})
    return venue
