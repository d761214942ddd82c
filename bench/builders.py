"""Bulk data builders shared by the bench scenarios (one `bulk_create` per table).

Rows are built directly, never through the services: a scenario measures one service,
not the ones that would have produced its data. Counters (`attendee_count`) are kept
true so the figures are those of a consistent event.
"""

import itertools
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime, timedelta
from typing import Any
from unittest import mock

from celery import Task
from django.db import DatabaseError, connection
from django.db.models.signals import pre_delete
from django.utils import timezone

from accounts.models import User
from events import signals as events_signals
from events.models import Event, EventRSVP, EventWaitList, Organization, WaitlistOffer

_seq = itertools.count(1)


def users(n: int, tag: str) -> list[User]:
    """`n` users with unusable passwords (no hashing cost)."""
    batch = next(_seq)
    return User.objects.bulk_create(
        [User(email=f"bench-{tag}-{batch}-{i}@example.com", password="!") for i in range(n)],
        batch_size=2000,
    )


def organization(tag: str) -> Organization:
    n = next(_seq)
    owner = User.objects.create(email=f"bench-{tag}-owner-{n}@example.com", password="!")
    return Organization.objects.create(
        name=f"Bench {tag} {n}", slug=f"bench-{tag}-{n}", owner=owner
    )


def waitlist_event(tag: str, *, capacity: int, batch_size: int, **fields: Any) -> Event:
    """An open RSVP event in a week, its active waitlist open (window 2 h)."""
    n = next(_seq)
    fields.setdefault("start", timezone.now() + timedelta(days=7))
    return Event.objects.create(
        organization=organization(tag),
        name=f"Bench {tag} {n}",
        slug=f"bench-{tag}-{n}",
        status=Event.Status.OPEN,
        max_attendees=capacity,
        waitlist_open=True,
        waitlist_time_window=timedelta(hours=2),
        waitlist_batch_size=batch_size,
        **fields,
    )


def attendees(event: Event, n: int) -> list[User]:
    """`n` YES RSVPs, with `attendee_count` moved to match."""
    people = users(n, f"{event.slug.removeprefix('bench-')}-attendee")
    EventRSVP.objects.bulk_create(
        [EventRSVP(event=event, user=u, status=EventRSVP.Status.YES) for u in people],
        batch_size=2000,
    )
    Event.objects.filter(pk=event.pk).update(attendee_count=event.attendee_count + n)
    event.attendee_count += n
    return people


def queue(event: Event, members: Sequence[User]) -> None:
    """Queue members in the given order (each row gets its own `created_at`)."""
    EventWaitList.objects.bulk_create(
        [EventWaitList(event=event, user=u) for u in members], batch_size=2000
    )


def offers(
    event: Event, holders: Sequence[User], expires_at: datetime, *, cutoff: bool = False
) -> list[WaitlistOffer]:
    """One PENDING offer per holder, all in one batch."""
    batch_id = uuid.uuid4()
    return WaitlistOffer.objects.bulk_create(
        [
            WaitlistOffer(
                event=event,
                user=u,
                expires_at=expires_at,
                batch_id=batch_id,
                is_cutoff_batch=cutoff,
            )
            for u in holders
        ],
        batch_size=2000,
    )


def settle() -> None:
    """Between runs of a write-heavy scenario: VACUUM ANALYZE, then a CHECKPOINT, so the
    last run's rolled-back writes are neither left as dead rows nor flushed to disk by a
    background checkpoint during the next timed run. Untimed; the CHECKPOINT is skipped
    where the bench's database role may not issue one."""
    analyze()
    try:
        with connection.cursor() as cursor:
            cursor.execute("CHECKPOINT")
    except DatabaseError:
        pass  # not a superuser (nor pg_checkpoint): the figures only get noisier


def analyze() -> None:
    """Refresh the planner's statistics after a bulk build, as autovacuum would have.

    Inside a transaction (rolled-back scenarios) ANALYZE counts the rows it inserted;
    over committed data VACUUM also sets the visibility map, as in a settled database.
    """
    verb = "ANALYZE" if connection.in_atomic_block else "VACUUM ANALYZE"
    with connection.cursor() as cursor:
        for model in TABLES:
            cursor.execute(f'{verb} "{model._meta.db_table}"')


@contextmanager
def committed(tag: str) -> Iterator[None]:
    """Data built in the block is committed, and purged on exit (and before, in case an
    interrupted run left some behind). Everything a builder names starts `bench-<tag>-`."""
    assert not connection.in_atomic_block, "committed data needs autocommit"
    purge(tag)
    try:
        yield
    finally:
        purge(tag)


def purge(tag: str) -> None:
    """Delete a committed scenario's rows: the bulky child tables by plain DELETEs (the
    queue's post_delete signal would otherwise run once per row), the rest by the ORM."""
    prefix = f"bench-{tag}-"
    events = Event.objects.filter(slug__startswith=prefix)
    event_ids = list(events.values_list("pk", flat=True))
    if event_ids:
        with connection.cursor() as cursor:
            for model in (WaitlistOffer, EventWaitList, EventRSVP):
                cursor.execute(
                    f'DELETE FROM "{model._meta.db_table}" WHERE event_id = ANY(%s)', [event_ids]
                )
    events.delete()
    Organization.objects.filter(slug__startswith=prefix).delete()
    # The scenario's events are gone, so a departing user has nothing left to release:
    # without the per-user departure handler, 100,000 users go in seconds, not minutes.
    with _without_departure_handler():
        User.objects.filter(email__startswith=prefix).delete()


DEPARTURE_UID = "events_release_deleted_user"


@contextmanager
def _without_departure_handler() -> Iterator[None]:
    handler = events_signals.release_deleted_user
    pre_delete.disconnect(handler, sender=User, dispatch_uid=DEPARTURE_UID)
    try:
        yield
    finally:
        pre_delete.connect(handler, sender=User, dispatch_uid=DEPARTURE_UID)


@contextmanager
def no_task_dispatch() -> Iterator[None]:
    """Stub every Celery dispatch (`delay`/`apply_async`) for the block, from any thread."""
    with mock.patch.object(Task, "apply_async", return_value=None):
        yield


TABLES = (User, Organization, Event, EventRSVP, EventWaitList, WaitlistOffer)
