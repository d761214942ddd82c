"""Row locks in the one global order of domain.md.

EventSeries row → Event row → TicketTier rows (pk order) → Ticket / EventRSVP /
WaitlistOffer rows (pk order). Every writer that touches capacity, offers, exdates or
attendee counts takes its locks through these helpers, in that order, inside its own
transaction. `of=("self",)` keeps PostgreSQL from locking (or refusing) joined rows.
"""

import uuid
from collections.abc import Iterable

from django.db import transaction
from django.db.models import F

from events.models import Event, EventSeries, TicketTier


def lock_series(series_id: uuid.UUID) -> EventSeries:
    """Lock the EventSeries row, the first lock of the order (generation, exdates).

    The rule, template and organisation come along in the same query; `of=("self",)`
    locks only the series row (PostgreSQL refuses FOR UPDATE on the nullable side of
    the LEFT JOINs the optional rule and template need). Raises EventSeries.DoesNotExist.
    """
    assert transaction.get_connection().in_atomic_block, "lock_series needs a transaction"
    return (
        EventSeries.objects.select_for_update(of=("self",))
        .select_related("organization", "recurrence_rule", "template_event")
        .get(pk=series_id)
    )


def lock_event(event_id: uuid.UUID) -> Event:
    """Lock the Event row first; raises Event.DoesNotExist for an unknown id."""
    assert transaction.get_connection().in_atomic_block, "lock_event needs a transaction"
    return (
        Event.objects.select_for_update(of=("self",))
        .select_related("organization", "venue")
        .get(pk=event_id)
    )


def lock_tiers(event: Event, tier_ids: Iterable[uuid.UUID]) -> dict[uuid.UUID, TicketTier]:
    """Lock the given tiers of an already locked event, in primary-key order."""
    wanted = sorted(set(tier_ids))
    tiers = (
        TicketTier.objects.select_for_update(of=("self",))
        .filter(event=event, pk__in=wanted)
        .order_by("pk")
    )
    return {tier.pk: tier for tier in tiers}


def adjust_attendee_count(event: Event, delta: int) -> None:
    """Move `attendee_count` inside the transaction holding the Event lock (domain.md fix)."""
    if delta == 0:
        return
    Event.objects.filter(pk=event.pk).update(attendee_count=F("attendee_count") + delta)
    event.attendee_count += delta
