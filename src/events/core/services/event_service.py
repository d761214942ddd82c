"""Creating, editing, deleting events and moving them between statuses.

Every write validates the whole row with `full_clean()` before it touches the database,
so a refused request writes nothing. Edits and status changes lock the Event row first
(docs/spec/domain.md lock order) because they can change capacity, and the waitlist processing
they trigger runs on commit (docs/spec/seed-tables.md "Trigger sites": capacity increase,
un-cancel).

Seams for later issues are plain, clearly named functions here: revoking pending offers
when the waitlist closes or the event is cancelled. The `event_open`, `event_updated` and
`event_cancelled` notifications go out through `event_notifications` after the commit.
"""

import logging
import uuid
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from django.db import IntegrityError, transaction

from common.errors import Conflict, InvalidInput
from events.core.errors import HasAttendees, InvalidTransition
from events.core.services import event_fields, event_notifications, slugs
from events.core.services.locks import lock_event
from events.models import (
    Event,
    EventRSVP,
    Organization,
    StaffPermission,
    Ticket,
    WaitlistOffer,
)
from events.ticketing.services import tiers as ticket_tier_service
from events.waitlist import services as waitlist_service
from events.waitlist.services import settings as waitlist_settings_service

logger = logging.getLogger("encore.events")

#: A new event starts as a draft unless the organiser publishes it at once.
CREATE_STATUSES = frozenset({Event.Status.DRAFT, Event.Status.OPEN})
#: docs/spec/domain.md "Status changes".
TRANSITIONS: dict[str, frozenset[str]] = {
    Event.Status.DRAFT: frozenset({Event.Status.OPEN, Event.Status.CANCELLED}),
    Event.Status.OPEN: frozenset({Event.Status.CLOSED, Event.Status.CANCELLED, Event.Status.DRAFT}),
    Event.Status.CLOSED: frozenset({Event.Status.OPEN, Event.Status.CANCELLED}),
    Event.Status.CANCELLED: frozenset({Event.Status.DRAFT, Event.Status.OPEN}),
}
#: Changes that attendees hear about (`event_updated`).
NOTIFIED_FIELDS = ("start", "end", "venue_id")
SLUG_INSERT_ATTEMPTS = 3
#: The organiser's own words sent with a cancellation notice, at most this long.
CANCELLATION_MESSAGE_MAX_LENGTH = 2000


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
    event_fields.refuse_unknown_fields(fields)
    event = Event(organization=organization, status=status)
    event_fields.apply_fields(event, fields)
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
            event.slug = slugs.suffixed(_dated_slug(event))


def _free_slug(event: Event) -> str:
    """`<name>`, else `<name>-YYYY-MM-DD` (start date in the event's timezone), else a suffix."""
    base = slugs.slug_base(event.name, "event")
    taken = set(
        Event.objects.filter(organization_id=event.organization_id, slug__startswith=base)
        .exclude(pk=event.pk)
        .values_list("slug", flat=True)
    )
    return slugs.free_slug(base, _dated_slug(event, base), taken=taken)


def _dated_slug(event: Event, base: str | None = None) -> str:
    start: datetime = event.start
    return slugs.dated_slug(
        base or slugs.slug_base(event.name, "event"), start, event.timezone or "UTC"
    )


# -- update ----------------------------------------------------------------------------
def update_event(event: Event, data: Mapping[str, Any]) -> Event:
    """Apply the PATCH fields that were sent, under the Event lock.

    A capacity increase (or waitlist settings that may allow a batch now) enqueues
    waitlist processing; a changed series occurrence is
    marked `is_modified`; start/end/venue changes notify attendees (on commit); turning
    the waitlist off revokes pending offers.
    """
    fields = dict(data)
    event_fields.refuse_unknown_fields(fields)
    with transaction.atomic():
        locked = lock_event(event.pk)
        before = event_fields.snapshot(locked)
        old_capacity = locked.effective_capacity
        was_waitlist_open = locked.waitlist_open
        event_fields.apply_update(locked, fields)
        locked.full_clean()
        if locked.requires_ticket != before["requires_ticket"]:
            switch_registration_mode(locked)
        changed = [
            name for name, value in event_fields.snapshot(locked).items() if before[name] != value
        ]
        if not changed:
            return locked
        locked.save_organiser_edit(changed)
        _after_update(
            locked, changed, old_capacity=old_capacity, was_waitlist_open=was_waitlist_open
        )
    return locked


def _after_update(
    event: Event, changed: list[str], *, old_capacity: int, was_waitlist_open: bool
) -> None:
    """Trigger sites of docs/spec/seed-tables.md: new seats, or waitlist settings that may allow a
    batch now (the settings PATCH's own rule) → one processing pass."""
    settings_allow_batch = waitlist_settings_service.may_allow_a_batch(
        event, was_open=was_waitlist_open, changed=changed
    )
    if capacity_grew(old_capacity, event.effective_capacity) or settings_allow_batch:
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


def capacity_grew(old: int, new: int) -> bool:
    """0 means unlimited, the largest capacity of all. The event PATCH and a template
    edit pushed onto an occurrence both enqueue waitlist processing on it."""
    if old == 0:
        return False
    return new == 0 or new > old


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


def change_status(event: Event, new_status: str, *, message: str = "") -> Event:
    """Move the event along docs/spec/domain.md's transitions; anything else → 409.

    Cancelling leaves tickets and RSVPs as they are (and revokes pending offers);
    un-cancelling or opening enqueues waitlist processing. `message`, the organiser's
    own words to the attendees, goes out with the `event_cancelled` notice (ignored for
    any other status).
    """
    if new_status not in TRANSITIONS:
        raise InvalidInput({"status": [f"Unknown status '{new_status}'."]})
    message = message.strip() if new_status == Event.Status.CANCELLED else ""
    if len(message) > CANCELLATION_MESSAGE_MAX_LENGTH:
        raise InvalidInput(
            {"message": [f"At most {CANCELLATION_MESSAGE_MAX_LENGTH} characters, please."]}
        )
    with transaction.atomic():
        locked = lock_event(event.pk)
        old_status = locked.status
        if locked.is_template:
            raise InvalidTransition("A series template is always a draft.")
        if new_status not in TRANSITIONS[old_status]:
            raise InvalidTransition(f"The event cannot move from '{old_status}' to '{new_status}'.")
        locked.status = new_status
        locked.save(update_fields=["status", "updated_at"])
        _after_status_change(locked, old_status, message)
    logger.info(
        "event status changed",
        extra={"event_id": str(locked.pk), "from": old_status, "to": new_status},
    )
    return locked


def _after_status_change(event: Event, old_status: str, message: str = "") -> None:
    event_id = event.pk
    # Un-cancelling (seed-tables) or opening: offers go only to OPEN events, so a queue
    # that waited through a cancelled, closed or draft spell gets its pass now.
    if old_status == Event.Status.CANCELLED or event.status == Event.Status.OPEN:
        waitlist_service.enqueue_waitlist_processing(event_id)
    if event.status == Event.Status.CANCELLED:
        _revoke_pending_offers_on_cancel(event)
        _notify_event_cancelled(event_id, message)
    elif event.status == Event.Status.OPEN:
        _notify_event_opened(event_id)


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


def _notify_event_cancelled(event_id: uuid.UUID, message: str = "") -> None:
    """`event_cancelled` to ticket holders and YES RSVPs (called on commit), with the
    organiser's `message` when there is one."""
    event_notifications.notify_event_cancelled(event_id, message=message)
