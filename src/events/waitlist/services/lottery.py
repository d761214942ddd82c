"""The provable lottery: a batch drawn from a published seed, recorded so anyone can redo it.

Why not `ORDER BY random()`: nobody could check that draw, and it sorts the whole queue
(its cost grows with the queue: docs/spec/quality.md a3). Instead (ADR 0018, docs/architecture/
waitlist-lottery.md) every entry carries a random 63-bit ticket fixed at join, and a
draw of algorithm `encore-ring-v1`:

1. draws a fresh seed, `secrets.token_hex(32)`;
2. derives its start point on the ring: the first 16 hex digits of SHA-256 over the
   seed's 32 bytes, read as an integer and shifted right by one bit (63 bits);
3. reads the selectable entries in ring order from there (a bounded read, flat in the
   queue's length: `selectors.waitlist_lottery.ring_candidates`);
4. offers them in that order by the party rule (`party_fit.fit_batch`) with the
   batch's seats, its size in offers and the organiser's policy;
5. records seed, the tickets read and their party sizes, the seats, the size, the
   policy and the tickets chosen in a `WaitlistDraw`, in the same statement as the
   offers, so a batch and its proof exist together or not at all.

Never-rotated members still come first: they are one draw; only when that draw has
read all of them and seats are left does a second draw (its own seed, batch and
record) go on among the rotated members, exactly where the party rule would have
walked on. So each record is one ring and `replay_draw` is a function of the seed and
the recorded tickets alone. Callers hold the Event lock (the processing pass); this
module neither locks nor counts free seats.
"""

import hashlib
import secrets
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db import DEFAULT_DB_ALIAS, connections

from common.compiled_query import ColumnsInsert, RowsInsert
from events.models import Event, WaitlistDraw, WaitlistOffer
from events.waitlist.selectors.candidates import Candidate, candidate_limit
from events.waitlist.selectors.lottery import (
    ALL_ENTRIES,
    RingQueue,
    ring_candidates,
    ring_distance,
)
from events.waitlist.services.party_fit import FILL, fit_batch

ALGORITHM = "encore-ring-v1"


class DrawMismatch(ValueError):
    """A record that cannot be replayed (its lists do not belong together)."""


def new_seed() -> str:
    """A fresh seed: 32 random bytes as 64 hex digits."""
    return secrets.token_hex(32)


def start_point(seed: str) -> int:
    """Where the draw starts on the ring of 2**63 tickets, published as part of the algorithm.

    `int(sha256(bytes.fromhex(seed)).hexdigest()[:16], 16) >> 1`: hashing makes the start
    uniform however the seed was written, and the shift keeps it within the tickets' 63
    bits (a BIGINT column holds no more without a sign).
    """
    digest = hashlib.sha256(bytes.fromhex(seed)).hexdigest()
    return int(digest[:16], 16) >> 1


def token_text(token: int) -> str:
    """The form every answer shows a ticket in: 16 hex digits."""
    return format(token, "016x")


def ring_order(seed: str, tokens: Sequence[str]) -> list[int]:
    """Positions of `tokens` in ring order from the seed's start point (stable on ties)."""
    start = start_point(seed)
    return sorted(range(len(tokens)), key=lambda i: ring_distance(int(tokens[i], 16), start))


def replay_draw(  # noqa: PLR0917 - the published signature: the record's fields in order
    seed: str,
    eligible_tokens: Sequence[str],
    party_sizes: Sequence[int],
    seats: int | None,
    batch_size: int,
    policy: str,
) -> list[str]:
    """The tickets `encore-ring-v1` selects: the published function of a `WaitlistDraw`.

    Orders the eligible tickets by their distance past the seed's start point on the
    ring of 2**63 (`(token - start) mod 2**63`, ascending; equal tickets keep their
    recorded order), then lets the party rule take them with the recorded seats, batch
    size (0: no limit) and policy. Anyone can run it on a record from the API.
    """
    if len(eligible_tokens) != len(party_sizes):
        raise DrawMismatch("eligible and party_sizes differ in length")
    order = ring_order(seed, eligible_tokens)
    return fit_batch(
        ((eligible_tokens[i], party_sizes[i]) for i in order),
        seats=seats,
        batch_size=batch_size,
        policy=policy,
    )


@dataclass(frozen=True, slots=True)
class DrawnOffer:
    """One offer a draw gives: what differs from the batch's other offers (the event,
    deadline, status and stamps are the pass's own, `write_lottery_batches`)."""

    pk: uuid.UUID
    user_id: uuid.UUID
    seats: int
    #: The tier whose seats it holds (None on RSVP events).
    tier_id: uuid.UUID | None
    batch_id: uuid.UUID


@dataclass(frozen=True)
class LotteryBatch:
    """What a draw decided: its offers (empty when nobody fitted) and its records.

    `found` says whether the read met anyone selectable (a ticketed pass lets members
    queued for the whole event take a tier's seats only when its own queue has nobody).
    """

    offers: list[DrawnOffer]
    draws: list[WaitlistDraw]
    found: bool = False

    @property
    def offer_ids(self) -> list[uuid.UUID]:
        return [offer.pk for offer in self.offers]

    @property
    def seats(self) -> int:
        return sum(offer.seats for offer in self.offers)


def create_lottery_batch(
    event: Event,
    *,
    size: int,
    seats: int,
    batch_id: uuid.UUID,
    expires_at: datetime,
    now: datetime,
    seeds: tuple[str, str] | None = None,
) -> LotteryBatch:
    """Draw, offer and record an RSVP event's lottery batch (the caller holds the Event lock).

    One read and one write on PostgreSQL whatever the queue's length: the offers and
    the records go in one statement (a data-modifying WITH), two on SQLite.
    """
    batch = draw_lottery_batch(
        event,
        size=size,
        seats=seats,
        batch_id=batch_id,
        expires_at=expires_at,
        now=now,
        seeds=seeds,
    )
    write_lottery_batches([batch], event_id=event.pk, expires_at=expires_at, now=now)
    return batch


def draw_lottery_batch(
    event: Event,
    *,
    size: int,
    seats: int,
    batch_id: uuid.UUID,
    expires_at: datetime,
    now: datetime,
    queue: RingQueue = ALL_ENTRIES,
    tier_id: uuid.UUID | None = None,
    exclude: frozenset[uuid.UUID] = frozenset(),
    seeds: tuple[str, str] | None = None,
) -> LotteryBatch:
    """Draw a lottery batch and its records without writing them (one read).

    `queue` is whose entries the draw reads; `tier_id` the tier whose seats the offers
    hold (None: each member's own, the RSVP case). `exclude`: users already chosen by
    an earlier draw of the same pass, read past (the limit grows by as many) and left
    out of the record: holding an offer, they are no longer selectable.
    `seeds`: the never-rotated members' draw's and the rotated members' (fresh ones by
    default; a test may fix them). The first draw that offers anything takes `batch_id`.
    """
    seeds = seeds or (new_seed(), new_seed())
    policy = event.waitlist_party_policy
    limit = candidate_limit(seats=seats, batch_size=size, policy=policy)
    read = ring_candidates(
        event.pk,
        start=start_point(seeds[0]),
        start_rotated=start_point(seeds[1]),
        now=now,
        limit=limit + len(exclude) if limit else 0,
        queue=queue,
    )
    fresh = [c for c in read.fresh if c.user_id not in exclude][:limit]
    rotated = [c for c in read.rotated if c.user_id not in exclude][:limit]
    offers: list[DrawnOffer] = []
    draws: list[WaitlistDraw] = []
    seats_left, size_left = seats, size
    for seed, found in ((seeds[0], fresh), (seeds[1], rotated)):
        if seats_left <= 0 or size_left <= 0:
            break
        part = found[: candidate_limit(seats=seats_left, batch_size=size_left, policy=policy)]
        chosen = fit_batch(
            ((c, c.party_size) for c in part), seats=seats_left, batch_size=size_left, policy=policy
        )
        if chosen:
            this_batch = batch_id if not draws else uuid.uuid4()
            draws.append(
                record_draw(
                    event,
                    batch_id=this_batch,
                    drawn_at=now,
                    seed=seed,
                    candidates=part,
                    chosen=chosen,
                    seats=seats_left,
                    batch_size=size_left,
                    policy=policy,
                    tier_id=tier_id,
                )
            )
            offers += [
                DrawnOffer(
                    uuid.uuid4(),
                    c.user_id,
                    c.party_size,
                    c.tier_id if tier_id is None else tier_id,
                    this_batch,
                )
                for c in chosen
            ]
            seats_left -= sum(c.party_size for c in chosen)
            size_left -= len(chosen)
        # The rotated members' turn comes only where the party rule would walk on past
        # the last never-rotated member: all of them read, and no strict stop before.
        if len(part) >= limit or (policy != FILL and len(chosen) < len(part)):
            break
    return LotteryBatch(offers, draws, found=bool(fresh or rotated))


def write_lottery_batches(
    batches: Sequence[LotteryBatch], *, event_id: uuid.UUID, expires_at: datetime, now: datetime
) -> None:
    """Write the offers and records of a pass's draws together (nothing when none offers).

    Every offer is PENDING until `expires_at`, stamped `now`, for its party and tier.
    """
    offers = [offer for batch in batches for offer in batch.offers]
    if offers:
        draws = [draw for batch in batches for draw in batch.draws]
        _insert_together(offers, draws, event_id=event_id, expires_at=expires_at, now=now)


def record_draw(
    event: Event,
    *,
    batch_id: uuid.UUID,
    drawn_at: datetime,
    seed: str,
    candidates: Sequence[Candidate],
    chosen: Sequence[Candidate],
    seats: int | None,
    batch_size: int,
    policy: str,
    tier_id: uuid.UUID | None = None,
) -> WaitlistDraw:
    """The record of one draw (unsaved: `create_lottery_batch` writes it with its offers).

    `eligible` is the arc the draw read, not the whole queue: reading the whole queue
    would make every batch linear in its length (ADR 0018 says what a member can prove).
    """
    return WaitlistDraw(
        event_id=event.pk,
        batch_id=batch_id,
        tier_id=tier_id,
        drawn_at=drawn_at,
        seed=seed,
        algorithm=ALGORITHM,
        eligible=[token_text(c.token) for c in candidates],
        party_sizes=[c.party_size for c in candidates],
        seats=seats,
        batch_size=batch_size or 0,
        policy=policy,
        selected=[token_text(c.token) for c in chosen],
    )


#: The draw records' INSERT, compiled once per number of records (ADR 0006); the
#: offers' from columns: five differ per offer, the rest is the pass's own.
_DRAWS = RowsInsert()
_OFFERS = ColumnsInsert(
    WaitlistOffer,
    per_row=("id", "user", "seats", "tier", "batch_id"),
    shared=(
        "event",
        "status",
        "expires_at",
        "is_cutoff_batch",
        "revoked_reason",
        "notified_at",
        "claimed_at",
        "declined_at",
        "created_at",
        "updated_at",
    ),
)


def _insert_together(
    offers: Sequence[DrawnOffer],
    draws: Sequence[WaitlistDraw],
    *,
    event_id: uuid.UUID,
    expires_at: datetime,
    now: datetime,
    using: str = DEFAULT_DB_ALIAS,
) -> None:
    """Write a batch's offers and its draw records: one statement where the database allows.

    On PostgreSQL a data-modifying WITH runs to completion whether or not the main
    statement reads it, so `WITH o AS (INSERT offers) INSERT draw` writes both at the
    cost of one round trip (a2 keeps its 6 statements). SQLite has no such WITH.
    """
    connection = connections[using]
    rows: dict[str, list[Any]] = {
        "id": [offer.pk for offer in offers],
        "user": [offer.user_id for offer in offers],
        "seats": [offer.seats for offer in offers],
        "tier": [offer.tier_id for offer in offers],
        "batch_id": [offer.batch_id for offer in offers],
    }
    shared = {
        "event": event_id,
        "status": WaitlistOffer.WaitlistOfferStatus.PENDING.value,
        "expires_at": expires_at,
        "is_cutoff_batch": False,
        "revoked_reason": "",
        "notified_at": None,
        "claimed_at": None,
        "declined_at": None,
        "created_at": now,
        "updated_at": now,
    }
    offer_statements = _OFFERS.statements(rows, shared, using)
    draw_sql, draw_params = _DRAWS.statement(draws, using)
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            [(offers_sql, offers_params)] = offer_statements
            cursor.execute(
                f"WITH new_offers AS ({offers_sql}) {draw_sql}", (*offers_params, *draw_params)
            )
        else:
            for sql, params in offer_statements:
                cursor.execute(sql, params)
            cursor.execute(draw_sql, draw_params)
    for draw in draws:
        draw._state.adding = False
        draw._state.db = using
