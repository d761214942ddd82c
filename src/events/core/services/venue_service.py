"""Venues of an organisation: a name and a seat capacity (empty or 0 = no limit).

A venue's capacity is part of the effective capacity of every event held there, so
raising it frees seats: the venue's future events get a waitlist processing pass
(docs/spec/seed-tables.md, trigger "capacity increased"). Lock order (docs/spec/domain.md): the events'
rows are locked first, in pk order, then the venue row; the change and the enqueue
happen inside that transaction, and the processing itself runs on commit.
"""

import uuid
from collections.abc import Mapping
from typing import Any

from django.db import transaction
from django.utils import timezone

from common.errors import Conflict, InvalidInput
from events.core.services.unique_insert import insert_or_conflict
from events.models import Event, Organization, Venue
from events.waitlist import services as waitlist_service

UPDATABLE_FIELDS = frozenset({"name", "capacity", "address"})


def create_venue(
    organization: Organization, *, name: str, capacity: int | None = None, address: str = ""
) -> Venue:
    venue = Venue(organization=organization, name=name.strip(), capacity=capacity, address=address)
    with transaction.atomic():
        _check_name_free(venue)
        venue.full_clean()
        insert_or_conflict(venue, Conflict("The venue was just created.", code="venue_exists"))
    return venue


def update_venue(venue: Venue, *, changes: Mapping[str, Any]) -> Venue:
    """Apply the sent fields; a capacity increase enqueues processing for each future event."""
    unknown = sorted(set(changes) - UPDATABLE_FIELDS)
    if unknown:
        raise InvalidInput({field: ["This field cannot be changed."] for field in unknown})
    with transaction.atomic():
        future_event_ids = _lock_future_events(venue.pk)
        locked = Venue.objects.select_for_update(of=("self",)).get(pk=venue.pk)
        old_capacity = locked.capacity
        for field, value in changes.items():
            setattr(locked, field, value.strip() if field == "name" and value else value)
        _check_name_free(locked)
        locked.full_clean()
        locked.save(update_fields=[*changes, "updated_at"])
        if _seats_added(old_capacity, locked.capacity):
            for event_id in future_event_ids:
                waitlist_service.enqueue_waitlist_processing(event_id)
    return locked


def _lock_future_events(venue_id: uuid.UUID) -> list[uuid.UUID]:
    """Lock the venue's upcoming real events (templates never take attendees), pk order."""
    events = (
        Event.objects.select_for_update(of=("self",))
        .filter(venue_id=venue_id, is_template=False, start__gt=timezone.now())
        .order_by("pk")
    )
    return list(events.values_list("pk", flat=True))


def _seats_added(old: int | None, new: int | None) -> bool:
    """True when the limit went up; empty or 0 means unlimited, the highest limit of all."""
    if not new:
        return bool(old)
    return bool(old) and new > (old or 0)


def _check_name_free(venue: Venue) -> None:
    taken = Venue.objects.filter(organization_id=venue.organization_id, name=venue.name)
    if taken.exclude(pk=venue.pk).exists():
        raise InvalidInput({"name": ["The organisation already has a venue with this name."]})
