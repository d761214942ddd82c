"""Who a batch may go to: the head of the queue as rows a pass can decide over.

A pass used to let the database pick its members and write their offers in one
statement. Parties make that impossible: whether the third member gets an offer depends
on how many seats the first two took, and under the `fill` policy on whether a larger
party ahead was skipped (`party_fit`). So the pass reads a bounded head of the queue
here, decides in Python with the pure `fit_batch`, and writes the chosen offers in one
INSERT. The head is read by a statement compiled once (ADR 0006), off the
`waitlist_selection_order` index, so its cost depends on the limit, never on the queue.

Three queues share one table (docs/spec/api.md "Waitlist, second round"): a member waits for the
whole event (`tier` NULL) or for one ticket tier. `tier_id` picks a tier's own queue,
the default the whole-event queue, `any_tier` everyone (the cutoff batch, RSVP events).
A tier's queue is read off its own partial index, `waitlist_tier_order`.
"""

import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db.models import F, OrderBy, QuerySet, UUIDField

from common.compiled_query import CompiledQuery, Param
from events.waitlist.selectors import queue as waitlist_selectors

#: How far past the seats a `fill` batch looks for smaller parties (rows read). Without
#: a bound a batch behind one party too large would read the whole queue; with it, a
#: pass costs the same at 100 and at 100,000 members. A small party further back than
#: this waits for the next pass, after the ones ahead of it were offered.
FILL_LOOKAHEAD = 50


@dataclass(frozen=True)
class Candidate:
    """One selectable member, as the party rule and the offer writer need them."""

    entry_id: uuid.UUID
    user_id: uuid.UUID
    party_size: int
    tier_id: uuid.UUID | None
    token: int
    #: Has the member let an offer lapse (the lottery draws each part on its own ring)?
    rotated: bool = False


def candidate_limit(*, seats: int, batch_size: int | None, policy: str) -> int:
    """How many candidates a batch can use: `strict` at most one per seat (each party is
    at least one) and never more than the batch; `fill` that plus the lookahead."""
    limit = min(seats, batch_size) if batch_size else seats
    return limit + FILL_LOOKAHEAD if policy == "fill" else limit


def _head(order: list[OrderBy | str], queue: str) -> QuerySet[Any, Any]:
    entries = waitlist_selectors.selectable_entries(waitlist_selectors.event_id_param())
    if queue == "tier":
        entries = entries.filter(tier_id=Param("tier_id", UUIDField()))
    elif queue == "event":
        entries = entries.filter(tier__isnull=True)
    return entries.order_by(*order).values(
        c_entry=F("id"),
        c_user=F("user_id"),
        c_party=F("party_size"),
        c_tier=F("tier_id"),
        c_token=F("token"),
    )


def _head_with_held() -> QuerySet[Any, Any]:
    """The whole queue's FIFO head, each row also carrying the seats live offers hold."""
    held = waitlist_selectors.held_offers(
        waitlist_selectors.event_id_param(), waitlist_selectors.now_param()
    )
    return _head(waitlist_selectors.selection_order(), "any").annotate(
        c_held=waitlist_selectors.seat_sum(held)
    )


def _compiled(order: Callable[[], list[OrderBy | str]]) -> dict[str, CompiledQuery]:
    def build(queue: str) -> Callable[[], QuerySet[Any, Any]]:
        return lambda: _head(order(), queue)

    return {queue: CompiledQuery(build(queue), limit=True) for queue in ("tier", "event", "any")}


_FIFO = _compiled(waitlist_selectors.selection_order)
_FIFO_WITH_HELD = CompiledQuery(_head_with_held, limit=True)


def _run(
    statements: dict[str, CompiledQuery],
    event_id: uuid.UUID,
    *,
    limit: int,
    tier_id: uuid.UUID | None,
    any_tier: bool,
) -> list[Candidate]:
    if limit <= 0:
        return []
    queue = "any" if any_tier else ("tier" if tier_id is not None else "event")
    rows = statements[queue].rows(event_id=event_id, tier_id=tier_id, limit=limit)
    return [_candidate(row) for row in rows]


def _candidate(row: dict[str, Any]) -> Candidate:
    return Candidate(row["c_entry"], row["c_user"], row["c_party"], row["c_tier"], row["c_token"])


def fifo_candidates(
    event_id: uuid.UUID,
    *,
    now: datetime,
    limit: int,
    tier_id: uuid.UUID | None = None,
    any_tier: bool = False,
) -> list[Candidate]:
    """The first `limit` selectable members in selection order (FIFO, rotated last).

    `now` is part of the interface every candidates function shares (a draw reads the
    moment too); selectability itself does not depend on it (a PENDING offer blocks
    its holder until the sweep expires it, as before).
    """
    del now
    return _run(_FIFO, event_id, limit=limit, tier_id=tier_id, any_tier=any_tier)


def fifo_head_and_held(
    event_id: uuid.UUID, *, now: datetime, limit: int
) -> tuple[int | None, list[Candidate]]:
    """The whole queue's first `limit` selectable members and the seats live non-cutoff
    offers hold, in one statement: a FIFO pass of an RSVP event then costs the lock,
    this read and the insert (docs/spec/quality.md a1: 5 queries with the savepoint).

    The held seats ride on every row as an uncorrelated subquery the database computes
    once; with no candidate there is no row, and the held seats are None (unknown).
    """
    rows = _FIFO_WITH_HELD.rows(event_id=event_id, now=now, limit=max(limit, 1))
    if not rows:
        return None, []
    return int(rows[0]["c_held"]), [_candidate(row) for row in rows]
