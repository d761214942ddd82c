"""The hot claim in one statement: a new RSVP YES through `encore_claim_rsvp` (ADR 0022).

Why: the Python claim (`EventManager._write_rsvp`) held the Event row lock across about
six round trips (lock, check, insert, count, offer, queue entry, COMMIT); with many
claimers in one process every return from the database also waited for the interpreter
lock, and every other claimer of the event waited for both. The PL/pgSQL function
(migrations 0012 and 0014, `events/core/sql/claim_rsvp.sql`) applies the same rule as
`capacity.assert_capacity_locked` and does the same writes, in autocommit, so the lock
ends with the statement. A refusal holds the lock as little as it can: decided on a
snapshot before the lock when the snapshot has no room, or under the lock by raising
`encore_claim_refused`, whose rollback releases the lock without waiting for a flush
(`refused_under_the_lock` reads its numbers back).

When it is used (`usable`): PostgreSQL, and no transaction open on the connection. A
caller inside `transaction.atomic` keeps the Python path, so its rollback still undoes
the claim and its tests keep their semantics. The API views are not wrapped (the project
does not use ATOMIC_REQUESTS, ADR 0003), so requests take this path. An RSVP that already
exists (a change of answer or of guests) is not claimed here: the function says so
(`has_rsvp`, nothing written) and the caller runs the Python path.

A win commits asynchronously (ADR 0029): the lock goes when the commit record is
written, not when it is on disk, so no other claimer waits for this claim's flush. The
winner is answered only after `DURABLE`, a transaction of its own whose synchronous
commit flushes the WAL up to and past the claim's commit record. The lock is free
earlier; nobody hears "you have a seat" before the seat survives a crash.

After the statement the after-commit work of the Python path runs, through the same
functions (`dispatch` runs it at once outside a transaction); a refusal is raised as the
same `RefusedUnderLock` the Python path raises, detailed by the caller after the release.
"""

import json
import uuid
from datetime import datetime
from typing import Any, NoReturn

from django.db import DatabaseError, IntegrityError, connection, transaction

from events.core.eligibility import capacity
from events.core.selectors.locked_check import LockedCheck
from events.core.services import event_notifications
from events.models import Event, EventRSVP
from events.waitlist.services.claims import after_claim
from events.waitlist.services.triggering import enqueue_waitlist_processing

YES = EventRSVP.Status.YES
_CALL = "SELECT * FROM encore_claim_rsvp(%s, %s, %s, %s, %s)"
#: A transaction that writes WAL (a transactional logical-decoding message, which any
#: role may emit and every decoder skips by its prefix) and commits synchronously: when it
#: returns, the WAL is on disk past every commit before it, the claim's too. (A
#: transaction id alone is not enough: a commit that wrote nothing else is not flushed.)
DURABLE = "SELECT pg_logical_emit_message(true, 'encore_claim_durable', '')"
#: The MESSAGE of the function's refusal under the lock (it rolls back; see the SQL file).
REFUSED = "encore_claim_refused"


def refused_under_the_lock(error: DatabaseError) -> dict[str, Any] | None:
    """The numbers of a refusal the function decided under the lock (the JSON DETAIL of
    its `encore_claim_refused`), or None when `error` is anything else."""
    cause = error.__cause__
    diag = getattr(cause, "diag", None)
    if diag is None or diag.message_primary != REFUSED or not diag.message_detail:
        return None
    numbers: dict[str, Any] = json.loads(diag.message_detail)
    return numbers


def _refuse(
    event: Event, user_id: uuid.UUID, guests: int, now: datetime, numbers: dict[str, Any]
) -> NoReturn:
    """Raise the Python rule's `RefusedUnderLock` for the numbers the function decided on
    (its details are read by the caller, after the release)."""
    check = LockedCheck(
        attendee_count=numbers["attendee_count"],
        effective_capacity=numbers["effective_capacity"],
        held=numbers["held"],
        overrides=False,
        on_waitlist=bool(numbers["on_waitlist"]),
        pending_offer_id=None,
        rsvp_id=None,
        rsvp_status=None,
        rsvp_guests=0,
    )
    capacity.assert_capacity_locked(event, user_id, 1 + guests, now=now, check=check)
    raise AssertionError("encore_claim_rsvp refused what the Python rule allows")


def usable() -> bool:
    """PostgreSQL, and no transaction around us (see the module docstring)."""
    return connection.vendor == "postgresql" and not transaction.get_connection().in_atomic_block


def claim_new_rsvp(
    event: Event, user_id: uuid.UUID, guests: int, now: datetime
) -> EventRSVP | None:
    """Register a new YES with `guests` in one statement; None when the user already has
    an RSVP (nothing written: the caller takes the Python path). Raises `RefusedUnderLock`
    when the event has no room, and Event.DoesNotExist for an unknown event."""
    rsvp_id = uuid.uuid4()
    try:
        with connection.cursor() as cursor:
            cursor.execute(_CALL, [event.pk, user_id, rsvp_id, guests, now])
            names = [column.name for column in cursor.description]
            row = dict(zip(names, cursor.fetchone(), strict=True))
    except IntegrityError:
        # The caller's own parallel request registered first (see the SQL file): nothing
        # was written here, and the Python path sees that RSVP.
        return None
    except DatabaseError as error:
        numbers = refused_under_the_lock(error)
        if numbers is None:
            raise
        _refuse(event, user_id, guests, now, numbers)
    outcome, attendees, on_waitlist = row["outcome"], row["attendee_count"], row["on_waitlist"]
    if outcome == "no_event":
        raise Event.DoesNotExist(f"no event {event.pk}")
    if outcome == "has_rsvp":
        return None
    if outcome == "refused":
        _refuse(event, user_id, guests, now, row)
    with connection.cursor() as cursor:
        cursor.execute(DURABLE)  # the win reaches the disk before anyone hears of it
    event.attendee_count = attendees
    if row["revoked"]:
        enqueue_waitlist_processing(event.pk)  # the revoked offer's seats go on
    after_claim(
        event.pk,
        user_id,
        offer_id=row["pending_offer_id"],
        claimed=row["claimed"],
        left_queue=on_waitlist,
        now=now,
    )
    event_notifications.notify_rsvp_answered(event.pk, user_id, YES)
    rsvp = EventRSVP(
        id=rsvp_id, event=event, user_id=user_id, status=YES, guests=guests,
        created_at=now, updated_at=now,
    )  # fmt: skip
    rsvp._state.adding = False
    rsvp._state.db = "default"
    return rsvp
