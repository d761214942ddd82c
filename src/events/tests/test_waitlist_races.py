"""The waitlist under contention, on PostgreSQL row locks (quality.md "Reliability").

Every racer is a thread with its own database connection (Django opens one per thread;
each thread closes it at the end), released together by a `threading.Barrier`. A lock
wait that runs out (`lock_timeout`: 503 `busy` over HTTP) is a legitimate answer the
client is told to retry, so racers retry it a few times; anything else unexpected is
recorded and fails the test. Celery dispatches are recorded, not run, except where the
claim's own on-commit work is part of the race.
"""

import json
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import timedelta
from functools import partial
from typing import Any

import pytest
from django.db import OperationalError, connection
from django.db.models import Q
from django.test import Client
from django.utils import timezone

from accounts.models import User
from accounts.service.tokens import issue_token_pair
from accounts.tests.factories import make_user
from common.errors import EncoreError
from common.locking import is_lock_timeout
from events.models import Event, EventRSVP, EventWaitList, Ticket, WaitlistOffer
from events.service import waitlist_service
from events.service.event_manager.manager import EventManager
from events.tests.factories import fill_with_rsvps, fill_with_tickets, make_event
from events.tests.ticket_helpers import assert_counters_true, free_tier

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

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
    barrier = threading.Barrier(len(calls))
    outcomes: list[Outcome | None] = [None] * len(calls)

    def run(index: int, call: Callable[[], Any]) -> None:
        try:
            barrier.wait(timeout=JOIN_TIMEOUT)
            outcomes[index] = _attempt(call)
        except Exception as exc:  # a broken barrier: recorded, so it fails the test
            outcomes[index] = Outcome(error=repr(exc))
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=pair) for pair in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=JOIN_TIMEOUT)
    assert not any(thread.is_alive() for thread in threads), "a racer hangs (deadlock?)"
    return [outcome or Outcome(error="no outcome") for outcome in outcomes]


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


def pending_per_user(event: Event) -> Counter[uuid.UUID]:
    return Counter(
        WaitlistOffer.objects.filter(event=event, status=Status.PENDING).values_list(
            "user_id", flat=True
        )
    )


# -- 1. concurrent processing passes ------------------------------------------------------------
@pytest.mark.parametrize("lottery", [False, True], ids=["fifo", "lottery"])
def test_ten_concurrent_passes_create_exactly_one_batch(lottery, dispatched):
    event = waitlist_event(10, waitlist_batch_size=8, waitlist_lottery_mode=lottery)
    fill_with_rsvps(event, 5)
    members = [make_user() for _ in range(20)]
    queue(event, members)

    outcomes = race([lambda: waitlist_service.process_waitlist_for_event(event.pk)] * 10)

    assert unexpected(outcomes, set()) == []
    assert Counter(o.value.status for o in outcomes) == {"ok": 1, "no_spots": 9}
    offers = WaitlistOffer.objects.filter(event=event)
    assert offers.count() == 5  # min(batch 8, 10 - 5 attendees)
    assert offers.values("batch_id").distinct().count() == 1
    assert len([name for name, _ in dispatched if "notification" in name]) == 5
    if not lottery:
        assert set(offers.values_list("user_id", flat=True)) == {m.pk for m in members[:5]}


# -- 2. claims: reserved seats, cutoff offers, outsiders ----------------------------------------
@dataclass
class ClaimRace:
    """Capacity 40, 25 attendees: 10 seats reserved by live offers, 5 free for all.

    60 racers: the 10 offer holders, 20 holders of cutoff offers (the cutoff has passed;
    those reserve nothing) and 30 outsiders. Every holder of a reserved seat must get
    in; the 5 free seats go to exactly 5 of the other 50; nobody else.
    """

    event: Event
    reserved: list[User]
    cutoff: list[User]
    outsiders: list[User]

    CAPACITY = 40
    ATTENDEES = 25

    @classmethod
    def build(cls, *, ticketed: bool) -> "ClaimRace":
        event = waitlist_event(
            cls.CAPACITY,
            requires_ticket=ticketed,
            waitlist_cutoff_date=timezone.now() - timedelta(hours=1),
        )
        reserved = [make_user() for _ in range(10)]
        cutoff = [make_user() for _ in range(20)]
        outsiders = [make_user() for _ in range(30)]
        queue(event, reserved + cutoff)
        for person in reserved:
            offer(event, person, expires_in=timedelta(hours=1))
        batch = uuid.uuid4()
        for person in cutoff:
            offer(event, person, expires_in=timedelta(days=1), is_cutoff_batch=True, batch_id=batch)
        return cls(event, reserved, cutoff, outsiders)

    @property
    def racers(self) -> list[User]:
        return self.reserved + self.cutoff + self.outsiders

    def winners(self, outcomes: list[Outcome], ok: int) -> set[uuid.UUID]:
        return {
            person.pk
            for person, outcome in zip(self.racers, outcomes, strict=True)
            if outcome.value == ok
        }

    def assert_seats_went_right(self, outcomes: list[Outcome], ok: int, attendees: int) -> None:
        statuses = Counter(o.value for o in outcomes if o.error is None)
        assert unexpected(outcomes, set()) == [], outcomes
        assert statuses == {ok: 15, 409: 45}, statuses
        winners = self.winners(outcomes, ok)
        assert {p.pk for p in self.reserved} <= winners, "a reserved seat was lost"
        assert len(winners - {p.pk for p in self.reserved}) == 5, "took a reserved seat"
        event = fresh(self.event)
        assert event.attendee_count == attendees == self.CAPACITY
        assert held(event) == 0
        claimed = set(
            WaitlistOffer.objects.filter(event=event, status=Status.CLAIMED).values_list(
                "user_id", flat=True
            )
        )
        assert claimed == winners & {p.pk for p in self.reserved + self.cutoff}
        assert not EventWaitList.objects.filter(event=event, user_id__in=winners).exists()


def _http_attempt(client: Client, path: str, body: str | None) -> int:
    """One request, retrying 503 busy; returns the final status code."""
    for attempt in range(MAX_RETRIES):
        if body is None:
            response = client.post(path, content_type="application/json")
        else:
            response = client.post(path, data=body, content_type="application/json")
        if response.status_code != 503:
            if response.status_code == 409:
                assert response.json()["code"] == "event_is_full", response.json()
            return response.status_code
        time.sleep(0.05 * (attempt + 1))
    return 503


def _client(person: User) -> Client:
    return Client(headers={"Authorization": f"Bearer {issue_token_pair(person).access}"})


def test_sixty_claimers_over_rsvp_never_oversell_and_keep_reserved_seats():
    setup = ClaimRace.build(ticketed=False)
    fill_with_rsvps(setup.event, ClaimRace.ATTENDEES)
    path = f"/api/events/{setup.event.pk}/rsvp/yes"
    clients = [_client(person) for person in setup.racers]

    outcomes = race([partial(_http_attempt, c, path, None) for c in clients])

    yes = EventRSVP.objects.filter(event=setup.event, status=EventRSVP.Status.YES).count()
    setup.assert_seats_went_right(outcomes, 200, yes)


def test_sixty_claimers_over_checkout_never_oversell_and_keep_reserved_seats():
    setup = ClaimRace.build(ticketed=True)
    tier = free_tier(setup.event)  # unlimited: the event's capacity is the binding limit
    fill_with_tickets(setup.event, tier, ClaimRace.ATTENDEES)
    path = f"/api/events/{setup.event.pk}/checkout"
    body = json.dumps({"items": [{"tier_id": str(tier.pk), "count": 1}]})
    clients = [_client(person) for person in setup.racers]

    outcomes = race([partial(_http_attempt, c, path, body) for c in clients])

    live = Ticket.objects.filter(event=setup.event).exclude(status=Ticket.Status.CANCELLED)
    setup.assert_seats_went_right(outcomes, 201, live.count())
    assert_counters_true(setup.event)


# -- 3. admin reactivation racing claims and itself ----------------------------------------------
def _rsvp_yes(person: User, event_id: uuid.UUID) -> str:
    return EventManager(person, Event.objects.get(pk=event_id)).rsvp(EventRSVP.Status.YES).status


def _reactivate(event_id: uuid.UUID, offer_id: uuid.UUID) -> str:
    return waitlist_service.reactivate_admin_offer(event_id, offer_id).status


def test_reactivations_racing_claims_neither_deadlock_nor_oversell(dispatched):
    """Capacity 20, 14 attendees, 3 live offers: 3 seats free. Ten organiser reactivations
    of lapsed offers race the 3 holders claiming and 20 outsiders registering."""
    event = waitlist_event(20)
    fill_with_rsvps(event, 14)
    holders = [make_user() for _ in range(3)]
    lapsed = [make_user() for _ in range(10)]
    outsiders = [make_user() for _ in range(20)]
    queue(event, holders + lapsed)
    for person in holders:
        offer(event, person, expires_in=timedelta(hours=1))
    expired = [
        offer(event, person, expires_in=-timedelta(hours=1), status=Status.EXPIRED)
        for person in lapsed
    ]
    calls: list[Callable[[], Any]] = [partial(_reactivate, event.pk, o.pk) for o in expired]
    calls += [partial(_rsvp_yes, p, event.pk) for p in holders + outsiders]

    outcomes = race(calls)

    refusals = {"OfferWouldOvercommit", "EligibilityRefused"}
    assert unexpected(outcomes, refusals) == [], outcomes
    reactivated = [o for o in outcomes[:10] if o.error is None]
    registered = [o for o in outcomes[10:] if o.error is None]
    assert all(o.error is None for o in outcomes[10:13]), "a holder lost the reserved seat"
    final = fresh(event)
    yes = EventRSVP.objects.filter(event=event, status=EventRSVP.Status.YES).count()
    assert final.attendee_count == yes == 14 + len(registered)
    assert final.attendee_count + held(final) <= final.effective_capacity
    assert held(final) == len(reactivated)
    assert len(registered) - 3 + len(reactivated) == 3  # the 3 free seats, each used once


def test_reactivating_two_old_offers_of_one_user_at_once_leaves_one_pending(dispatched):
    """The partial unique index backs the check: never two PENDING offers for one user."""
    event = waitlist_event(50)
    people = [make_user() for _ in range(10)]
    queue(event, people)
    pairs = [
        (
            offer(event, p, expires_in=-timedelta(hours=2), status=Status.EXPIRED),
            offer(
                event,
                p,
                expires_in=-timedelta(hours=1),
                status=Status.REVOKED,
                revoked_reason=WaitlistOffer.RevokedReason.ORGANIZER,
            ),
        )
        for p in people
    ]
    # Each user's two offers, and each offer twice: 40 racers.
    calls = [partial(_reactivate, event.pk, o.pk) for pair in pairs for o in pair for _ in range(2)]

    outcomes = race(calls)

    assert unexpected(outcomes, {"PendingOfferExists", "NotFound"}) == [], outcomes
    assert sum(o.error is None for o in outcomes) == len(people)
    assert pending_per_user(event) == Counter({p.pk: 1 for p in people})


# -- 4. the sweeper racing claims on the same offers -------------------------------------------
def test_sweeper_racing_claims_leaves_each_offer_claimed_or_expired(dispatched):
    """20 offers lapse the instant the sweeper looks (its `now` is past their deadline),
    while their holders, whose clocks still see them live, register. The sweeper waits
    for the first claims to land, so it meets the rest mid-flight."""
    event = waitlist_event(100)
    fill_with_rsvps(event, 50)
    holders = [make_user() for _ in range(20)]
    queue(event, holders)
    deadline = timezone.now() + timedelta(seconds=30)
    offers = [offer(event, p, expires_in=timedelta(0)) for p in holders]
    WaitlistOffer.objects.filter(pk__in=[o.pk for o in offers]).update(expires_at=deadline)
    sweep_at = deadline + timedelta(microseconds=1)

    def sweep_mid_flight() -> waitlist_service.ExpirySweep:
        """Sweep once a few claims have landed, so the others are in flight around it."""
        claimed = WaitlistOffer.objects.filter(event=event, status=Status.CLAIMED)
        give_up = time.monotonic() + 10
        while claimed.count() < 5 and time.monotonic() < give_up:
            time.sleep(0.002)
        return waitlist_service.expire_waitlist_offers(now=sweep_at)

    calls: list[Callable[[], Any]] = [sweep_mid_flight]
    calls += [partial(_rsvp_yes, p, event.pk) for p in holders]

    outcomes = race(calls)

    assert unexpected(outcomes, set()) == [], outcomes
    sweep = outcomes[0].value
    statuses = Counter(WaitlistOffer.objects.filter(event=event).values_list("status", flat=True))
    assert set(statuses) <= {Status.CLAIMED, Status.EXPIRED}, statuses
    assert statuses[Status.EXPIRED] == sweep.expired
    assert statuses[Status.CLAIMED] + statuses[Status.EXPIRED] == len(holders)
    assert statuses[Status.CLAIMED] >= 5
    final = fresh(event)
    yes = EventRSVP.objects.filter(event=event, status=EventRSVP.Status.YES).count()
    assert final.attendee_count == yes == 50 + len(holders)  # a lapsed holder still had room
    assert not EventWaitList.objects.filter(event=event).exists()
    lapsed = WaitlistOffer.objects.filter(event=event, status=Status.EXPIRED)
    assert not lapsed.filter(~Q(updated_at=sweep_at) | Q(claimed_at__isnull=False)).exists()
    claimed = WaitlistOffer.objects.filter(event=event, status=Status.CLAIMED)
    assert not claimed.filter(claimed_at__isnull=True).exists()


# -- 5. the sweeper racing members leaving the queue ---------------------------------------------
@pytest.mark.parametrize("round_", range(3))
def test_sweeper_racing_departures_never_deadlocks(round_, dispatched):
    """30 members whose offers lapsed (the sweep has not reached them) leave the queue
    as the sweep runs: 10 leave, 10 are removed by staff, 10 register. The sweep writes
    offer rows, then queue rows; every departure writes the offer first too, so nothing
    deadlocks and each offer ends EXPIRED (swept, or by the leave) or REVOKED (its entry
    went first)."""
    event = waitlist_event(100)
    fill_with_rsvps(event, 50)
    members = [make_user() for _ in range(30)]
    queue(event, members)
    for member in members:
        offer(event, member, expires_in=-timedelta(minutes=1))
    entries = {entry.user_id: entry for entry in EventWaitList.objects.filter(event=event)}

    calls: list[Callable[[], Any]] = [waitlist_service.expire_waitlist_offers]
    calls += [partial(waitlist_service.leave_waitlist, m, event) for m in members[:10]]
    calls += [partial(waitlist_service.remove_entry, entries[m.pk]) for m in members[10:20]]
    calls += [partial(_rsvp_yes, m, event.pk) for m in members[20:]]
    outcomes = race(calls)

    assert unexpected(outcomes, set()) == [], outcomes
    assert not EventWaitList.objects.filter(event=event).exists()
    statuses = set(WaitlistOffer.objects.filter(event=event).values_list("status", flat=True))
    assert statuses <= {Status.EXPIRED, Status.REVOKED}, statuses
    assert fresh(event).attendee_count == 60
