"""The lottery's read: the next selectable queue entries on the ring after a start point.

Every entry holds a random 63-bit ticket (`EventWaitList.token`); the tickets of an
event's queue, sorted, form a ring. A draw reads, from a start point, the entries that
follow it on the ring: tickets at or after the start ascending, then wrapping round to
the tickets before it; the entry id breaks ties (ADR 0018). The two parts of the FIFO
order stay: never-rotated members and rotated ones are two rings, each with its own
start point (each part is drawn with its own seed and recorded on its own).

Why it stays flat in the queue's length (docs/spec/quality.md a3): each part is two range scans
of the `waitlist_lottery_ring` index (event, rotated, token, id), one from the start
point up and one from the bottom of the ring up to it, each stopped by a LIMIT, and the
pair limited again so that only the part's first `limit` entries are answered. The four
arcs travel as one `UNION ALL` statement compiled once per process (ADR 0006); Python
puts the at most 2 x limit rows into ring order. Selectable means what it means for
FIFO (`waitlist.selectable_entries`): no PENDING offer, not soft-skipped by an
organiser's revoke.

Which queue a read sees (`RingQueue`) is separate from the tier an offer is for: an RSVP
event reads all its entries; a ticketed event's pass reads one tier's own queue, or only
the members queued for the whole event when that tier's queue has nobody selectable
(the routing of `batch_planning.plan_tier_batches`, ADR 0020). Each is its own WHERE,
so its own compiled statement.
"""

import uuid
from dataclasses import dataclass
from datetime import datetime
from functools import partial
from typing import Any, Literal

from django.db import DEFAULT_DB_ALIAS, connections
from django.db.models import (
    BigIntegerField,
    BooleanField,
    Func,
    IntegerField,
    QuerySet,
    UUIDField,
    Value,
)

from common.compiled_query import CompiledQuery, Param, row_as_dict, row_converters
from common.compiled_query.prepared import PreparedForms, Slot, execute
from events.waitlist.models.waitlist import ROTATED
from events.waitlist.selectors import queue as waitlist_selectors
from events.waitlist.selectors.candidates import Candidate

#: The ring's size: tickets and start points lie in [0, RING).
RING = 2**63


def ring_distance(token: int, start: int) -> int:
    """How far past `start` a ticket lies on the ring: (token - start) mod 2**63."""
    return (token - start) % RING


def ring_key(candidate: Candidate, start: int) -> tuple[int, uuid.UUID]:
    """A part's order: by ring distance from its start point, the entry id breaking ties."""
    return (ring_distance(candidate.token, start), candidate.entry_id)


class _IsTrue(Func):
    """`(condition) IS TRUE`: the spelling PostgreSQL matches to the ring index's boolean
    column (with `_IsFalse`). It rewrites `NOT (x IS NOT NULL)`, what Django writes for
    `rotated=False`, into `x IS NULL`, which matches no index column: the read became a
    scan and a sort of the whole queue (docs/spec/quality.md a3)."""

    template = "(%(expressions)s) IS TRUE"
    output_field = BooleanField()


class _IsFalse(_IsTrue):
    template = "(%(expressions)s) IS FALSE"


QueueKind = Literal["any", "tier", "event"]


@dataclass(frozen=True)
class RingQueue:
    """Which entries a read sees: all of the event's (`any`), those queued for one tier
    (`tier`, with its id) or only those queued for the whole event (`event`, tier NULL)."""

    kind: QueueKind
    tier_id: uuid.UUID | None = None

    def __post_init__(self) -> None:
        if (self.kind == "tier") != (self.tier_id is not None):
            raise ValueError("a tier's queue, and only that, names a tier")


ALL_ENTRIES = RingQueue("any")
WHOLE_EVENT_MEMBERS = RingQueue("event")


def tier_queue(tier_id: uuid.UUID) -> RingQueue:
    """The members queued for this tier."""
    return RingQueue("tier", tier_id)


def _arc(*, rotated: bool, upper: bool, queue: QueueKind) -> QuerySet[Any, Any]:
    """One arc of one part: tickets >= start (upper) or < start, ascending, as values()."""
    start = Param("start_rotated" if rotated else "start", BigIntegerField())
    entries = waitlist_selectors.selectable_entries(waitlist_selectors.event_id_param()).filter(
        _IsTrue(ROTATED) if rotated else _IsFalse(ROTATED)
    )
    entries = entries.filter(token__gte=start) if upper else entries.filter(token__lt=start)
    if queue == "tier":
        entries = entries.filter(tier_id=Param("tier_id", UUIDField()))
    elif queue == "event":
        entries = entries.filter(tier__isnull=True)
    return entries.order_by("token", "id").values(
        "id",
        "user_id",
        "party_size",
        "tier_id",
        "token",
        "last_offer_expired_at",
        arc=Value(0 if upper else 1, output_field=IntegerField()),
    )


def _arcs(queue: QueueKind) -> list[CompiledQuery]:
    return [
        CompiledQuery(partial(_arc, rotated=r, upper=u, queue=queue), limit=True)
        for r in (False, True)
        for u in (True, False)
    ]


#: Keyed by the queue read (each a different WHERE, so a shape of its own).
_ARCS: dict[QueueKind, list[CompiledQuery]] = {
    "any": _arcs("any"),
    "tier": _arcs("tier"),
    "event": _arcs("event"),
}
_UNION: dict[tuple[QueueKind, str], str] = {}
#: The ring read runs in every lottery pass: prepared on PostgreSQL (ADR 0028), its
#: generic plan being the four range scans of the ring index a custom one is.
_UNION_FORMS = {kind: PreparedForms(f"ring_{kind}") for kind in _ARCS}


def _union_sql(queue: QueueKind, using: str, parts: list[str]) -> str:
    """Each part's arcs as one ordered, limited read, and the two parts in one statement.

    Within a part the upper arc (tickets from the start point up) comes before the lower
    one in ring order, so `ORDER BY arc, token, id LIMIT n` over the pair is the part's
    first n entries: when the upper arc alone has n, the lower arc's rows never reach
    Python (the answer halves, docs/spec/quality.md a3). Python still sorts what it gets by ring
    distance. `SELECT * FROM (...)` is the form both PostgreSQL and SQLite accept for
    members that carry their own ORDER BY and LIMIT.
    """
    key = (queue, using)
    found = _UNION.get(key)
    if found is None:
        fresh_up, fresh_low, rotated_up, rotated_low = parts
        found = " UNION ALL ".join(
            f"SELECT * FROM (SELECT * FROM ({upper}) AS up UNION ALL "
            f"SELECT * FROM ({lower}) AS low ORDER BY arc, token, id LIMIT %s) AS part{n}"
            for n, (upper, lower) in enumerate(((fresh_up, fresh_low), (rotated_up, rotated_low)))
        )
        _UNION[key] = found
    return found


def _limit_slot(compiled: Any) -> Slot:
    """The arcs' shared `limit` slot, which also limits each pair of arcs."""
    return next(p for p in compiled.params if isinstance(p, Slot) and p.name == "limit")


@dataclass(frozen=True)
class RingRead:
    """What one read found: each part's first entries in its ring order."""

    fresh: list[Candidate]  # never-rotated members
    rotated: list[Candidate]


def ring_candidates(
    event_id: uuid.UUID,
    *,
    start: int,
    start_rotated: int,
    now: datetime,
    limit: int,
    queue: RingQueue = ALL_ENTRIES,
    using: str = DEFAULT_DB_ALIAS,
) -> RingRead:
    """The first `limit` selectable entries of each part in ring order (one statement).

    `start` is the never-rotated members' start point, `start_rotated` the rotated
    members'. `queue` says whose entries are read (all of the event's by default).
    """
    if limit <= 0:
        return RingRead([], [])
    values: dict[str, Any] = {
        "event_id": event_id,
        "now": now,
        "start": start,
        "start_rotated": start_rotated,
        "limit": limit,
    }
    if queue.kind == "tier":
        values["tier_id"] = queue.tier_id
    arcs = [arc.compiled(using) for arc in _ARCS[queue.kind]]
    sql = _union_sql(queue.kind, using, [compiled.sql for compiled in arcs])
    limit_slot = _limit_slot(arcs[0])
    params = [
        *arcs[0].params,
        *arcs[1].params,
        limit_slot,
        *arcs[2].params,
        *arcs[3].params,
        limit_slot,
    ]
    connection = connections[using]
    form = _UNION_FORMS[queue.kind].get(using, sql, params, connection)
    with connection.cursor() as cursor:
        execute(cursor, connection, form, sql=sql, params=params, values=values)
        raw = cursor.fetchall()
    # Every arc selects the same columns: the first one's converters fit all rows.
    first = arcs[0]
    converters = row_converters(first.select, connection)
    found = [
        Candidate(
            entry_id=row["id"],
            user_id=row["user_id"],
            party_size=row["party_size"],
            tier_id=row["tier_id"],
            token=row["token"],
            rotated=row["last_offer_expired_at"] is not None,
        )
        for row in (row_as_dict(raw_row, first, converters, connection) for raw_row in raw)
    ]
    fresh = sorted((c for c in found if not c.rotated), key=lambda c: ring_key(c, start))
    rotated = sorted((c for c in found if c.rotated), key=lambda c: ring_key(c, start_rotated))
    return RingRead(fresh[:limit], rotated[:limit])
