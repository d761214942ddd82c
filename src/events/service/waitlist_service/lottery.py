"""The provable lottery: a batch drawn from a published seed, recorded so anyone can redo it.

Why not `ORDER BY random()`: nobody could check that draw, and it sorts the whole queue
(23 ms at 100,000 members, quality.md a3). Instead (ADR 0018, docs/architecture/
waitlist-lottery.md) every entry carries a random 63-bit ticket fixed at join, and a
batch of algorithm `encore-ring-v1`:

1. draws a fresh seed, `secrets.token_hex(32)`;
2. derives its start point on the ring: the first 16 hex digits of SHA-256 over the
   seed's 32 bytes, read as an integer and shifted right by one bit (63 bits);
3. reads the selectable entries in ring order from there, never-rotated members first
   (`selectors.waitlist_lottery.ring_candidates`, a bounded read: flat in the queue);
4. offers them in that order by the party rule (`party_fit.fit_batch`) with the
   batch's seats, its size in offers and the organiser's policy;
5. records seed, the tickets read and their party sizes, the seats, the size, the
   policy and the tickets chosen in a `WaitlistDraw`, in the same transaction as the
   offers, so a batch and its proof exist together or not at all.

`replay_draw` is the published function: from a record alone it recomputes the choice.
Callers hold the Event lock (the processing pass); this module neither locks nor counts
free seats.
"""

import hashlib
import secrets
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from django.db import DEFAULT_DB_ALIAS, connections
from django.db.models import Model
from django.db.models.sql import InsertQuery

from events.models import Event, WaitlistDraw, WaitlistOffer
from events.selectors.waitlist_lottery import Candidate, ring_candidates, ring_distance
from events.service.waitlist_service.party_fit import FILL, fit_batch

ALGORITHM = "encore-ring-v1"

#: Under `fill` a batch passes over parties too large for the seats left; it reads this
#: many candidates beyond what the seats and the size could take, so its read stays
#: bounded. Seats the look-ahead could not fill wait for the next pass (a new draw).
FILL_LOOKAHEAD = 50


class DrawMismatch(ValueError):
    """A record whose tickets are not in ring order for its seed: it cannot be replayed."""


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


def candidate_limit(*, size: int | None, seats: int | None, policy: str) -> int:
    """How many candidates a batch reads: all it could offer, plus the look-ahead under fill.

    Under `strict` every candidate read is offered or ends the batch, and each takes a
    seat at least, so min(size, seats) suffices exactly.
    """
    bounds = [n for n in (size, seats) if n]
    wanted = min(bounds) if bounds else 0
    return wanted + (FILL_LOOKAHEAD if policy == FILL else 0)


def lottery_candidates(
    event_id: uuid.UUID,
    *,
    start: int,
    now: datetime,
    limit: int,
    tier_id: uuid.UUID | None = None,
) -> list[Candidate]:
    """The draw's read (a selector): the first `limit` selectable entries in ring order."""
    return ring_candidates(event_id, start=start, now=now, limit=limit, tier_id=tier_id)


def replay_draw(
    seed: str,
    eligible_tokens: Sequence[str],
    party_sizes: Sequence[int],
    seats: int | None,
    batch_size: int,
    policy: str,
) -> list[str]:
    """The tickets `encore-ring-v1` selects, from what a `WaitlistDraw` records.

    `eligible_tokens` are in the order the draw read them: the never-rotated members'
    arc, then the rotated members' arc, each ascending in ring distance from the seed's
    start point. The record does not say where the second arc begins, so the check is
    that the distances ascend except at most once; a record that fails it was not
    drawn from this seed (DrawMismatch). Then the party rule walks the tickets in order.
    """
    if len(eligible_tokens) != len(party_sizes):
        raise DrawMismatch("eligible and party_sizes differ in length")
    start = start_point(seed)
    distances = [ring_distance(int(token, 16), start) for token in eligible_tokens]
    descents = sum(1 for a, b in zip(distances, distances[1:], strict=False) if b < a)
    if descents > 1:
        raise DrawMismatch("the eligible tickets are not in ring order for this seed")
    return fit_batch(
        zip(eligible_tokens, party_sizes, strict=True),
        seats=seats,
        batch_size=batch_size,
        policy=policy,
    )


@dataclass(frozen=True)
class LotteryBatch:
    """What a lottery batch wrote: its offers (empty when nobody fitted) and its record."""

    offer_ids: list[uuid.UUID]
    draw: WaitlistDraw | None


def create_lottery_batch(
    event: Event,
    *,
    size: int,
    seats: int,
    batch_id: uuid.UUID,
    expires_at: datetime,
    now: datetime,
    tier_id: uuid.UUID | None = None,
    seed: str | None = None,
) -> LotteryBatch:
    """Draw, offer and record one lottery batch (the caller holds the Event lock).

    Costs one read and one write on PostgreSQL whatever the queue's length: the offers
    and the draw's record go in one statement (a data-modifying WITH), two on SQLite.
    """
    seed = seed or new_seed()
    policy = event.waitlist_party_policy
    candidates = lottery_candidates(
        event.pk,
        start=start_point(seed),
        now=now,
        limit=candidate_limit(size=size, seats=seats, policy=policy),
        tier_id=tier_id,
    )
    chosen = fit_batch(
        ((c, c.party_size) for c in candidates), seats=seats, batch_size=size, policy=policy
    )
    if not chosen:
        return LotteryBatch([], None)
    offers = [
        WaitlistOffer(
            event_id=event.pk,
            user_id=c.user_id,
            status=WaitlistOffer.WaitlistOfferStatus.PENDING,
            expires_at=expires_at,
            batch_id=batch_id,
            is_cutoff_batch=False,
            seats=c.party_size,
            tier_id=c.tier_id if tier_id is None else tier_id,
        )
        for c in chosen
    ]
    draw = record_draw(
        event,
        batch_id=batch_id,
        drawn_at=now,
        seed=seed,
        candidates=candidates,
        chosen=chosen,
        seats=seats,
        batch_size=size,
        policy=policy,
        tier_id=tier_id,
    )
    _insert_together(offers, draw)
    return LotteryBatch([offer.pk for offer in offers], draw)


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
    """The record of a draw (unsaved: `create_lottery_batch` writes it with its offers).

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


def _insert_sql(objs: Sequence[Model], using: str) -> tuple[str, tuple[object, ...]]:
    """One multi-row INSERT of `objs` (keys and timestamps filled in Python), as SQL."""
    model = type(objs[0])
    query = InsertQuery(model)
    query.insert_values(list(model._meta.concrete_fields), list(objs))
    statements = query.get_compiler(using=using).as_sql()
    assert len(statements) == 1, "one INSERT per model expected"
    sql, params = statements[0]
    return sql, tuple(params)


def _insert_together(
    offers: Sequence[WaitlistOffer], draw: WaitlistDraw, using: str = DEFAULT_DB_ALIAS
) -> None:
    """Write a batch's offers and its draw record: one statement where the database allows.

    On PostgreSQL a data-modifying WITH runs to completion whether or not the main
    statement reads it, so `WITH o AS (INSERT offers) INSERT draw` writes both at the
    cost of one round trip (a2 keeps its 6 statements). SQLite has no such WITH.
    """
    connection = connections[using]
    fields = list(WaitlistOffer._meta.concrete_fields)
    if connection.ops.bulk_batch_size(fields, offers) < len(offers):
        # An open-mode batch too big for one statement's parameters: the ORM splits it.
        WaitlistOffer.objects.using(using).bulk_create(offers)
        draw.save(using=using, force_insert=True)
        return
    offers_sql, offers_params = _insert_sql(offers, using)
    draw_sql, draw_params = _insert_sql([draw], using)
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute(
                f"WITH new_offers AS ({offers_sql}) {draw_sql}", (*offers_params, *draw_params)
            )
        else:
            cursor.execute(offers_sql, offers_params)
            cursor.execute(draw_sql, draw_params)
    for obj in (*offers, draw):
        obj._state.adding = False
        obj._state.db = using
