"""The race harness and data of the waitlist race test modules (test_waitlist_races_*.py).

Every racer is a thread with its own database connection, released together by
`run_together`. A lock wait
that runs out (`lock_timeout`: 503 `busy` over HTTP) is a legitimate answer the client is
told to retry, so racers retry it a few times; anything else unexpected is recorded and
fails the test. Celery dispatches are recorded, not run (`dispatched`).
"""

import threading
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import timedelta
from functools import partial
from typing import Any

import pytest
from django.db import OperationalError
from django.utils import timezone

from accounts.models import User
from common.errors import EncoreError
from common.locking import is_lock_timeout
from common.tests.racing import run_together
from events.core.services.event_manager import EventManager
from events.core.tests.factories import make_event
from events.models import Event, EventRSVP, EventWaitList, WaitlistOffer

Status = WaitlistOffer.WaitlistOfferStatus
MAX_RETRIES = 10
JOIN_TIMEOUT = 60


# -- the race harness ------------------------------------------------------------------------
@dataclass(frozen=True)
class Outcome:
    """What one racer's call ended in: a value, or an exception's class name and code."""

    value: Any = None
    error: str | None = None
    code: str | None = None


def _attempt(call: Callable[[], Any]) -> Outcome:
    """Run `call`, retrying a lock wait that ran out; expected refusals are outcomes."""
    for attempt in range(MAX_RETRIES):
        try:
            return Outcome(value=call())
        except OperationalError as exc:
            if not is_lock_timeout(exc) or attempt == MAX_RETRIES - 1:
                return Outcome(error=f"{type(exc).__name__}: {exc}")
        except EncoreError as exc:  # refusals of the service: 4xx over HTTP
            return Outcome(error=type(exc).__name__, code=exc.code)
        except Exception as exc:  # a deadlock, an IntegrityError, a bug: fails the test
            return Outcome(error=f"{type(exc).__name__}: {exc}")
        time.sleep(0.05 * (attempt + 1))
    raise AssertionError("unreachable")


def race(calls: Sequence[Callable[[], Any]]) -> list[Outcome]:
    """Start every call on its own thread and connection, all at once; outcomes in order."""
    assert len(calls) <= 60, "the server allows 100 connections; stay well under"
    results = run_together([partial(_attempt, call) for call in calls], timeout=JOIN_TIMEOUT)
    return [r if isinstance(r, Outcome) else Outcome(error=repr(r)) for r in results]


def unexpected(outcomes: list[Outcome], allowed: set[str]) -> list[Outcome]:
    return [o for o in outcomes if o.error is not None and o.error not in allowed]


@pytest.fixture
def dispatched(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[tuple[str, str]]]:
    """Record the waitlist's Celery dispatches (processing passes, offer and expiry
    notices) instead of running them."""
    from events import tasks

    sent: list[tuple[str, str]] = []
    lock = threading.Lock()
    for name in (
        "process_waitlist_for_event_task",
        "send_waitlist_offer_notification_task",
        "send_offer_expired_notifications_task",
    ):

        def record(
            args: tuple[str, ...], kwargs: Any = None, _name: str = name, **options: Any
        ) -> None:
            with lock:
                sent.append((_name, args[0]))

        # `apply_async`: what both `.delay` and the outbox's publish call.
        monkeypatch.setattr(getattr(tasks, name), "apply_async", record)
    yield sent


# -- data ------------------------------------------------------------------------------------
def waitlist_event(capacity: int, **fields: Any) -> Event:
    return make_event(
        max_attendees=capacity,
        waitlist_open=True,
        waitlist_time_window=timedelta(hours=2),
        **fields,
    )


def queue(event: Event, people: list[User]) -> None:
    for person in people:  # one by one: created_at gives the FIFO order
        EventWaitList.objects.create(event=event, user=person)


def offer(event: Event, person: User, *, expires_in: timedelta, **fields: Any) -> WaitlistOffer:
    return WaitlistOffer.objects.create(
        event=event,
        user=person,
        expires_at=timezone.now() + expires_in,
        batch_id=fields.pop("batch_id", uuid.uuid4()),
        **fields,
    )


def held(event: Event) -> int:
    """Seats reserved right now: live non-cutoff offers."""
    return WaitlistOffer.objects.filter(
        event=event, status=Status.PENDING, is_cutoff_batch=False, expires_at__gt=timezone.now()
    ).count()


def fresh(event: Event) -> Event:
    return Event.objects.select_related("venue").get(pk=event.pk)


# -- 3. admin reactivation racing claims and itself ----------------------------------------------
def _rsvp_yes(person: User, event_id: uuid.UUID) -> str:
    return EventManager(person, Event.objects.get(pk=event_id)).rsvp(EventRSVP.Status.YES).status
