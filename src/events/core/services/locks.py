"""Row locks in the one global order of docs/spec/domain.md.

EventSeries row → Event row → TicketTier rows (pk order) → Ticket / EventRSVP /
WaitlistOffer rows (pk order). Every writer that touches capacity, offers, exdates or
attendee counts takes its locks through these helpers, in that order, inside its own
transaction. `of=("self",)` keeps PostgreSQL from locking (or refusing) joined rows.
"""

import uuid
from collections.abc import Iterable

from django.db import transaction
from django.db.models import F, IntegerField, UUIDField

from common.compiled_query import CompiledInstances, CompiledQuery, CompiledWrite, Param
from events.models import Event, EventSeries, TicketTier

_LOCK_SERIES_ROW = CompiledQuery(
    lambda: (
        EventSeries.objects.filter(pk=Param("series_id", UUIDField()))
        .select_for_update()
        .values("id")
    )
)


def lock_series(series_id: uuid.UUID) -> EventSeries:
    """Lock the EventSeries row, the first lock of the order (generation, exdates), then
    read it with its rule, template and organisation.

    Two statements, not one `select_for_update().select_related()`: on PostgreSQL a lock
    that had to wait for another writer returns the locked row as that writer committed
    it, but joined rows as they were when the statement began (READ COMMITTED re-checks
    only the locked row), so a cadence change or split we waited for would leave a stale
    rule or template here. The read after the lock is a new statement with a fresh
    snapshot. Raises EventSeries.DoesNotExist.
    """
    assert transaction.get_connection().in_atomic_block, "lock_series needs a transaction"
    locked = _LOCK_SERIES_ROW.rows(series_id=series_id)
    found = _READ_SERIES.all(series_id=series_id) if locked else []
    if not found:
        raise EventSeries.DoesNotExist(f"no series {series_id}")
    series: EventSeries = found[0]
    return series


#: The read after the series lock, compiled once per process (ADR 0006): every
#: generation pass starts with it, and building its joins cost Django more than a pass
#: with nothing to create spends on anything else (docs/spec/quality.md c2).
_READ_SERIES = CompiledInstances(
    lambda: EventSeries.objects.select_related(
        "organization", "recurrence_rule", "template_event"
    ).filter(pk=Param("series_id", UUIDField()))
)


_LOCK_EVENT = CompiledInstances(
    lambda: (
        Event.objects.select_for_update(of=("self",))
        .select_related("organization", "venue")
        .filter(pk=Param("event_id", UUIDField()))
    ),
    prepared_as="lock_event",
)


def lock_event(event_id: uuid.UUID) -> Event:
    """Lock the Event row first, with its organisation and venue; raises
    Event.DoesNotExist for an unknown id. Compiled once per process (ADR 0006): every
    waitlist pass and offer operation starts here (docs/spec/quality.md a1-a3)."""
    assert transaction.get_connection().in_atomic_block, "lock_event needs a transaction"
    found = _LOCK_EVENT.all(event_id=event_id)
    if not found:
        raise Event.DoesNotExist(f"no event {event_id}")
    event: Event = found[0]
    return event


_LOCK_EVENT_ROW = CompiledQuery(
    lambda: Event.objects.filter(pk=Param("event_id", UUIDField())).select_for_update().values("id")
)


def lock_event_row(event_id: uuid.UUID) -> None:
    """Lock the Event row and load nothing: the claim's lock (ADR 0022).

    A claim reads what it needs after the lock in one statement (`selectors.locked_check`):
    columns read by the lock statement itself would be as fresh, but its sub-selects
    would not, and a model instance built from the row costs time under the lock that
    the claim does not need. Compiled once per process; raises Event.DoesNotExist.
    """
    assert transaction.get_connection().in_atomic_block, "lock_event_row needs a transaction"
    if not _LOCK_EVENT_ROW.rows(event_id=event_id):
        raise Event.DoesNotExist(f"no event {event_id}")


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
    """Move `attendee_count` inside the transaction holding the Event lock (docs/spec/domain.md fix)."""
    if delta == 0:
        return
    _ADD_ATTENDEES.execute(event_id=event.pk, delta=delta)
    event.attendee_count += delta


#: Compiled once: every claim runs it under the Event lock (ADR 0022).
_ADD_ATTENDEES = CompiledWrite(
    lambda: (
        Event.objects.filter(pk=Param("event_id", UUIDField())),
        {"attendee_count": F("attendee_count") + Param("delta", IntegerField())},
    )
)
