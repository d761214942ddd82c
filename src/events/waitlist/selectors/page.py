"""One page of an event's queue for the organiser's waitlist page, in fixed queries.

The same order and positions as the admin queue list (`event_admin.waitlist_queue`,
`waitlist.position_expression`), computed differently: that annotation counts, for each
row, the members ahead of it, which scans the whole queue once per row (a cost that
grows with the queue: docs/bench.md h2). Here the page is one index scan in
selection order, and positions come from the members holding a live offer (at most one
per free seat): a member's position is their rank in the order minus the live holders
ahead of them.
"""

import uuid
from dataclasses import dataclass
from datetime import datetime

from django.db.models import OuterRef, QuerySet, Subquery

from events.models import Event, EventWaitList
from events.waitlist.selectors import queue as waitlist_selectors

SortKey = tuple[bool, datetime, datetime, uuid.UUID]


@dataclass(frozen=True)
class QueueRow:
    entry: EventWaitList
    #: 1-based rank among members without a live offer; None while holding one.
    position: int | None
    #: The deadline of the member's live offer, if they hold one.
    live_offer_until: datetime | None


def queue_in_order(event: Event) -> QuerySet[EventWaitList]:
    """The whole queue in selection order, with the user (slice it for a page)."""
    return (
        EventWaitList.objects.filter(event=event)
        .select_related("user")
        .order_by(*waitlist_selectors.selection_order())
    )


def queue_rows(
    event: Event, entries: list[EventWaitList], offset: int, now: datetime
) -> list[QueueRow]:
    """Position and live offer for `entries`, the queue's rows from `offset` on (in
    order): one query for the live holders' places in the queue, whatever its length."""
    holders = _live_holders(event, now)
    if not entries:
        return []
    first = _key(entries[0])
    ahead = offset - sum(1 for key, _ in holders.values() if key < first)
    rows = []
    for entry in entries:
        until = holders.get(entry.user_id)
        if until is None:
            ahead += 1
            rows.append(QueueRow(entry, ahead, None))
        else:
            rows.append(QueueRow(entry, None, until[1]))  # (sort key, deadline)
    return rows


def _live_holders(event: Event, now: datetime) -> dict[uuid.UUID, tuple[SortKey, datetime]]:
    """Queue members holding a live offer: their sort key and the offer's deadline."""
    live = waitlist_selectors.live_offers(now).filter(event=event)
    deadline = (
        live.filter(user_id=OuterRef("user_id")).order_by("-expires_at").values("expires_at")[:1]
    )
    entries = (
        EventWaitList.objects.filter(event=event, user_id__in=live.values("user_id"))
        .annotate(offer_until=Subquery(deadline))
        .only("id", "user_id", "created_at", "last_offer_expired_at")
    )
    return {entry.user_id: (_key(entry), entry.offer_until) for entry in entries}


def _key(entry: EventWaitList) -> SortKey:
    """`selection_order()` as a Python sort key (never-rotated first, FIFO, id)."""
    expired = entry.last_offer_expired_at
    return (
        expired is not None,
        expired or waitlist_selectors.NEVER_ROTATED,
        entry.created_at,
        entry.pk,
    )
