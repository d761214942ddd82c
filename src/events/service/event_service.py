"""Creating, editing, deleting events and moving them between statuses.

Every write validates the whole row with `full_clean()` before it touches the database,
so a refused request writes nothing. Edits and status changes lock the Event row first
(domain.md lock order) because they can change capacity, and the waitlist processing
they trigger runs on commit (seed-tables.md "Trigger sites": capacity increase,
un-cancel).

Seams for later issues are plain, clearly named functions here: revoking pending offers
when the waitlist closes or the event is cancelled. The `event_open`, `event_updated` and
`event_cancelled` notifications go out through `event_notifications` after the commit.
"""

import logging
import secrets
import uuid
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils.text import slugify

from common.errors import Conflict, InvalidInput
from common.timezones import get_zone
from events.errors import HasAttendees, InvalidTransition
from events.models import (
    Event,
    EventRSVP,
    Organization,
    StaffPermission,
    Ticket,
    Venue,
    WaitlistOffer,
)
from events.models.event import DEFAULT_CHECK_IN_LEAD, default_visibility_settings
from events.service import (
    event_notifications,
    ticket_tier_service,
    waitlist_service,
    waitlist_settings_service,
)
from events.service.locks import lock_event

logger = logging.getLogger("encore.events")

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
    }
)
#: A new event starts as a draft unless the organiser publishes it at once.
CREATE_STATUSES = frozenset({Event.Status.DRAFT, Event.Status.OPEN})
#: domain.md "Status changes".
TRANSITIONS: dict[str, frozenset[str]] = {
    Event.Status.DRAFT: frozenset({Event.Status.OPEN, Event.Status.CANCELLED}),
    Event.Status.OPEN: frozenset({Event.Status.CLOSED, Event.Status.CANCELLED, Event.Status.DRAFT}),
    Event.Status.CLOSED: frozenset({Event.Status.OPEN, Event.Status.CANCELLED}),
    Event.Status.CANCELLED: frozenset({Event.Status.DRAFT, Event.Status.OPEN}),
}
#: Waitlist settings whose change may allow a batch at once (seed-tables.md trigger sites).
#: Changes that attendees hear about (`event_updated`).
NOTIFIED_FIELDS = ("start", "end", "venue_id")
SLUG_BASE_MAX = 190  # leaves room for "-YYYY-MM-DD-xxxxxx" in the 220-character column
SLUG_INSERT_ATTEMPTS = 3


# -- create ----------------------------------------------------------------------------
def create_event(organization: Organization, data: Mapping[str, Any]) -> Event:
    """Create an event of `organization` from the create body's fields.

    Status is `draft` unless `open` is given (anything else: 400). The slug comes from
    the name when none is given. A ticketed event gets a free "General admission" tier
    so it can be sold at once; tiers can be edited afterwards. An event created `open`
    is published at once and notifies like any publishing (`event_open`, on commit).
    """
    fields = dict(data)
    status = fields.pop("status", None) or Event.Status.DRAFT
    if status not in CREATE_STATUSES:
        raise InvalidInput({"status": ["A new event is either 'draft' or 'open'."]})
    _refuse_unknown_fields(fields)
    event = Event(organization=organization, status=status)
    _apply_fields(event, fields)
    event.apply_defaults()
    explicit_slug = bool(event.slug)
    if not explicit_slug:
        event.slug = _free_slug(event)
    event.full_clean()
    with transaction.atomic():
        _insert_with_free_slug(event, retry=not explicit_slug)
        if event.requires_ticket:
            ticket_tier_service.ensure_default_tier(event)
        if event.status == Event.Status.OPEN:
            event_id = event.pk
            _notify_event_opened(event_id)
    logger.info(
        "event created",
        extra={"event_id": str(event.pk), "organization_id": str(organization.pk)},
    )
    return event


def _insert_with_free_slug(event: Event, *, retry: bool) -> None:
    """Insert; a concurrent twin slug is replaced with a random-suffixed one (race window)."""
    for attempt in range(SLUG_INSERT_ATTEMPTS):
        try:
            with transaction.atomic():
                event.save(force_insert=True)
            return
        except IntegrityError as exc:
            if not retry or attempt == SLUG_INSERT_ATTEMPTS - 1:
                raise Conflict(
                    "An event with this slug was just created.", code="event_exists"
                ) from exc
            event.slug = _suffixed(_dated_slug(event))


def _free_slug(event: Event) -> str:
    """`<name>`, else `<name>-YYYY-MM-DD` (start date in the event's timezone), else a suffix."""
    base = slugify(event.name)[:SLUG_BASE_MAX].strip("-") or "event"
    taken = set(
        Event.objects.filter(organization_id=event.organization_id, slug__startswith=base)
        .exclude(pk=event.pk)
        .values_list("slug", flat=True)
    )
    if base not in taken:
        return base
    dated = _dated_slug(event, base)
    if dated not in taken:
        return dated
    candidate = _suffixed(dated)
    while candidate in taken:  # pragma: no cover - 16^6 possibilities
        candidate = _suffixed(dated)
    return candidate


def _dated_slug(event: Event, base: str | None = None) -> str:
    base = base or slugify(event.name)[:SLUG_BASE_MAX].strip("-") or "event"
    start: datetime = event.start
    local_day = start.astimezone(get_zone(event.timezone or "UTC")).date()
    return f"{base}-{local_day.isoformat()}"


def _suffixed(slug: str) -> str:
    return f"{slug}-{secrets.token_hex(3)}"


# -- update ----------------------------------------------------------------------------
def update_event(event: Event, data: Mapping[str, Any]) -> Event:
    """Apply the PATCH fields that were sent, under the Event lock.

    A capacity increase (or waitlist settings that may allow a batch now) enqueues
    waitlist processing; a changed series occurrence is
    marked `is_modified`; start/end/venue changes notify attendees (on commit); turning
    the waitlist off revokes pending offers.
    """
    fields = dict(data)
    _refuse_unknown_fields(fields)
    with transaction.atomic():
        locked = lock_event(event.pk)
        before = _snapshot(locked)
        old_capacity = locked.effective_capacity
        was_waitlist_open = locked.waitlist_open
        _apply_update(locked, fields)
        locked.full_clean()
        if locked.requires_ticket != before["requires_ticket"]:
            switch_registration_mode(locked)
        changed = [name for name, value in _snapshot(locked).items() if before[name] != value]
        if not changed:
            return locked
        locked.save_organiser_edit(changed)
        _after_update(
            locked, changed, old_capacity=old_capacity, was_waitlist_open=was_waitlist_open
        )
    return locked


def _apply_update(event: Event, fields: dict[str, Any]) -> None:
    """Set the sent fields; derived values follow a moved start unless they were sent.

    The end keeps the event's length, and a check-in window that still had its
    defaults (start − 1 h .. end) is derived again from the new times.
    """
    old_start, old_end = event.start, event.end
    check_in_was_default = (
        event.check_in_starts_at == old_start - DEFAULT_CHECK_IN_LEAD,
        event.check_in_ends_at == old_end,
    )
    _apply_fields(event, fields)
    new_start = event.start
    if "end" not in fields and isinstance(new_start, datetime) and new_start != old_start:
        event.end = old_end + (new_start - old_start)
    if "check_in_starts_at" not in fields and check_in_was_default[0]:
        event.check_in_starts_at = None
    if "check_in_ends_at" not in fields and check_in_was_default[1]:
        event.check_in_ends_at = None
    event.apply_defaults()


def _after_update(
    event: Event, changed: list[str], *, old_capacity: int, was_waitlist_open: bool
) -> None:
    """Trigger sites of seed-tables.md: new seats, or waitlist settings that may allow a
    batch now (the settings PATCH's own rule) → one processing pass."""
    settings_allow_batch = waitlist_settings_service.may_allow_a_batch(
        event, was_open=was_waitlist_open, changed=changed
    )
    if _capacity_grew(old_capacity, event.effective_capacity) or settings_allow_batch:
        waitlist_service.enqueue_waitlist_processing(event.pk)
    if was_waitlist_open and not event.waitlist_open:
        _revoke_pending_offers_on_waitlist_close(event)
    notified = [name for name in NOTIFIED_FIELDS if name in changed]
    if notified:
        event_id = event.pk
        _notify_event_updated(event_id, notified)


def switch_registration_mode(event: Event) -> None:
    """Tickets ↔ RSVPs only while nobody is registered: `attendee_count` counts tickets on
    one side and YES RSVPs on the other, so a switch with attendees would corrupt it. A
    ticketed event gets its free "General admission" tier when it has none. Also used
    when a template edit reaches the occurrences (the refusal names the occurrence)."""
    if _has_registrations(event):
        raise HasAttendees(
            f"People are registered for '{event.name}' on {event.start:%Y-%m-%d}; it cannot "
            "switch between tickets and RSVPs."
        )
    if event.requires_ticket:
        ticket_tier_service.ensure_default_tier(event)


def _has_registrations(event: Event) -> bool:
    """Any ticket or RSVP row, whatever its status (a cancelled ticket is still a record)."""
    return (
        Ticket.objects.filter(event=event).exists()
        or EventRSVP.objects.filter(event=event).exists()
    )


def _capacity_grew(old: int, new: int) -> bool:
    """0 means unlimited, the largest capacity of all."""
    if old == 0:
        return False
    return new == 0 or new > old


def _snapshot(event: Event) -> dict[str, Any]:
    """The stored values an edit may change (attnames, so venue compares by id)."""
    return {name: getattr(event, name) for name in EDITABLE_FIELDS | _DERIVED_FIELDS}


_DERIVED_FIELDS = frozenset({"end", "timezone", "check_in_starts_at", "check_in_ends_at"})


# -- delete ----------------------------------------------------------------------------
def delete_event(event: Event) -> None:
    """Delete an event nobody is registered for; any ticket or RSVP → 409 `has_attendees`."""
    with transaction.atomic():
        locked = lock_event(event.pk)
        if locked.is_template:
            raise Conflict(
                "A series template is removed with its series.", code="is_series_template"
            )
        if _has_registrations(locked):
            raise HasAttendees()
        locked.delete()
    logger.info("event deleted", extra={"event_id": str(event.pk)})


# -- status ----------------------------------------------------------------------------
def required_permission(new_status: str) -> str:
    """Publishing needs `open_event`; closing, cancelling and unpublishing `close_event`."""
    if new_status == Event.Status.OPEN:
        return StaffPermission.OPEN_EVENT
    return StaffPermission.CLOSE_EVENT


def change_status(event: Event, new_status: str) -> Event:
    """Move the event along domain.md's transitions; anything else → 409.

    Cancelling leaves tickets and RSVPs as they are (and revokes pending offers);
    un-cancelling or opening enqueues waitlist processing.
    """
    if new_status not in TRANSITIONS:
        raise InvalidInput({"status": [f"Unknown status '{new_status}'."]})
    with transaction.atomic():
        locked = lock_event(event.pk)
        old_status = locked.status
        if locked.is_template:
            raise InvalidTransition("A series template is always a draft.")
        if new_status not in TRANSITIONS[old_status]:
            raise InvalidTransition(f"The event cannot move from '{old_status}' to '{new_status}'.")
        locked.status = new_status
        locked.save(update_fields=["status", "updated_at"])
        _after_status_change(locked, old_status)
    logger.info(
        "event status changed",
        extra={"event_id": str(locked.pk), "from": old_status, "to": new_status},
    )
    return locked


def _after_status_change(event: Event, old_status: str) -> None:
    event_id = event.pk
    # Un-cancelling (seed-tables) or opening: offers go only to OPEN events, so a queue
    # that waited through a cancelled, closed or draft spell gets its pass now.
    if old_status == Event.Status.CANCELLED or event.status == Event.Status.OPEN:
        waitlist_service.enqueue_waitlist_processing(event_id)
    if event.status == Event.Status.CANCELLED:
        _revoke_pending_offers_on_cancel(event)
        _notify_event_cancelled(event_id)
    elif event.status == Event.Status.OPEN:
        _notify_event_opened(event_id)


# -- shared helpers --------------------------------------------------------------------
def _refuse_unknown_fields(fields: Mapping[str, Any]) -> None:
    unknown = sorted(set(fields) - EDITABLE_FIELDS)
    if unknown:
        raise InvalidInput({name: ["This field cannot be set here."] for name in unknown})


def _apply_fields(event: Event, fields: Mapping[str, Any]) -> None:
    for name, value in fields.items():
        if name == "venue_id":
            event.venue = venue_of(event.organization, value)
        elif name == "visibility_settings":
            event.visibility_settings = merged_visibility_settings(event, value)
        elif name == "name" and isinstance(value, str):
            event.name = value.strip()  # a blank name is then refused by full_clean
        else:
            setattr(event, name, value)


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


# -- seams for later issues and the notifications ---------------------------------------
def _revoke_pending_offers_on_waitlist_close(event: Event) -> None:
    """Closing the queue revokes pending offers with `waitlist_closed`, inside this
    transaction: the same rule as the waitlist settings PATCH (one function for both)."""
    waitlist_settings_service.close_waitlist(event)


def _revoke_pending_offers_on_cancel(event: Event) -> None:
    """Cancelling revokes pending offers with `event_cancelled`, inside this transaction;
    the users keep their place, and un-cancelling enqueues a processing pass."""
    waitlist_service.revoke_pending_offers(event, WaitlistOffer.RevokedReason.EVENT_CANCELLED)


def _notify_event_updated(event_id: uuid.UUID, changed_fields: list[str]) -> None:
    """`event_updated` to ticket holders and YES RSVPs (called on commit)."""
    event_notifications.notify_event_updated(event_id, changed_fields)


def _notify_event_opened(event_id: uuid.UUID) -> None:
    """`event_open` to members and followers, as far as the visibility allows (on commit)."""
    event_notifications.notify_event_opened(event_id)


def _notify_event_cancelled(event_id: uuid.UUID) -> None:
    """`event_cancelled` to ticket holders and YES RSVPs (called on commit)."""
    event_notifications.notify_event_cancelled(event_id)
