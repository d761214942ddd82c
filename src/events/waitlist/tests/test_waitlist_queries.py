"""Query budgets of the waitlist (docs/spec/quality.md): fixed, whatever the size of the queue.

Every count is what `CaptureQueriesContext` sees, savepoints included (each service owns
its `transaction.atomic`, which is a savepoint inside the test's transaction; the
processing pass's opens none: docs/spec/quality.md allows a1 five statements, it takes three). Data is
built with `bulk_create` so the large cases stay cheap to set up.
"""

from collections.abc import Callable
from datetime import timedelta
from functools import partial
from typing import TypeVar

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from accounts.models import User
from events.core.eligibility.context import load_context
from events.core.eligibility.gates import AvailabilityGate, Intent
from events.core.eligibility.pipeline import EligibilityService
from events.core.tests.factories import make_event
from events.models import Event, EventRSVP, EventWaitList, WaitlistOffer
from events.waitlist import services as waitlist_service

pytestmark = pytest.mark.django_db
T = TypeVar("T")

PENDING = WaitlistOffer.WaitlistOfferStatus.PENDING
#: The lock, the head with the held seats, the offers.
FIFO_BUDGET = 3
#: The lock, the held seats, the ring read, the offers with the draw's record (ADR 0018);
#: on PostgreSQL the offers and the record are one statement, SQLite needs two.
LOTTERY_BUDGET = 4 if connection.vendor == "postgresql" else 5
ELIGIBILITY_BUDGET = 8


def _bulk_users(n: int, tag: str) -> list[User]:
    return User.objects.bulk_create(
        [User(email=f"{tag}-{i}@example.com", password="!") for i in range(n)]
    )


def _queue(event: Event, users: list[User]) -> None:
    EventWaitList.objects.bulk_create([EventWaitList(event=event, user=u) for u in users])


def _offers(event: Event, users: list[User], expires_at, **fields) -> None:
    WaitlistOffer.objects.bulk_create(
        WaitlistOffer(event=event, user=u, expires_at=expires_at, batch_id=event.pk, **fields)
        for u in users
    )


def _active_event(tag: str, **fields) -> Event:
    fields.setdefault("max_attendees", 1000)
    fields.setdefault("attendee_count", 900)
    return make_event(
        slug=f"queries-{tag}",
        waitlist_open=True,
        waitlist_time_window=timedelta(hours=2),
        waitlist_batch_size=50,
        **fields,
    )


def _count(call: Callable[[], T]) -> tuple[int, T]:
    with CaptureQueriesContext(connection) as queries:
        result = call()
    return len(queries), result


class TestProcessingPass:
    @pytest.mark.parametrize(
        ("lottery", "budget"),
        [(False, FIFO_BUDGET), (True, LOTTERY_BUDGET)],
        ids=["fifo", "lottery"],
    )
    def test_costs_the_same_for_5_and_200_members(self, lottery, budget):
        counts = []
        for members in (5, 200):
            event = _active_event(f"{lottery}-{members}", waitlist_lottery_mode=lottery)
            _queue(event, _bulk_users(members, f"q{lottery}{members}"))

            n, result = _count(partial(waitlist_service.process_waitlist_for_event, event.pk))

            assert result.offers_created == min(members, 50)
            counts.append(n)
        assert counts[0] == counts[1] <= budget, counts

    def test_a_pass_with_seats_all_held_costs_no_more_than_a_batch(self):
        event = _active_event("held", attendee_count=950)
        holders = _bulk_users(50, "holder")
        _queue(event, holders + _bulk_users(100, "waiting"))
        _offers(event, holders, timezone.now() + timedelta(hours=1))

        n, result = _count(lambda: waitlist_service.process_waitlist_for_event(event.pk))

        assert result.status == "no_spots"
        assert n <= FIFO_BUDGET

    def test_a_pass_on_a_full_event_reads_nothing_after_the_lock(self):
        event = _active_event("full", attendee_count=1000)
        _queue(event, _bulk_users(20, "full"))

        n, result = _count(lambda: waitlist_service.process_waitlist_for_event(event.pk))

        assert result.status == "no_spots"
        assert n <= 2  # the lock, at most one read


class TestExpirySweep:
    def test_a_fixed_number_of_statements_for_3_and_300_expired_offers(
        self, django_capture_on_commit_callbacks
    ):
        counts = []
        for expired in (3, 300):
            event = _active_event(f"sweep-{expired}")
            users = _bulk_users(expired, f"sweep{expired}")
            _queue(event, users)
            _offers(event, users, timezone.now() - timedelta(minutes=1))

            # The follow-up dispatch is registered on commit and never executed here.
            with django_capture_on_commit_callbacks(execute=False) as callbacks:
                n, sweep = _count(waitlist_service.expire_waitlist_offers)

            assert sweep.expired == expired
            assert sweep.event_ids == [event.pk]
            assert callbacks, "the follow-up pass and the notices go out on commit"
            counts.append(n)
        assert counts[0] == counts[1] <= 5, counts

    def test_a_sweep_with_nothing_to_expire_is_one_statement(self):
        n, sweep = _count(waitlist_service.expire_waitlist_offers)

        assert sweep.expired == 0
        assert n <= 3  # savepoint, the UPDATE, release


class TestAvailabilityGate:
    def test_checks_without_a_query_while_offers_hold_seats(self):
        event = _active_event("gate", attendee_count=940)
        holders = _bulk_users(60, "gate")
        me, stranger = holders[0], _bulk_users(1, "stranger")[0]
        _queue(event, holders)
        _offers(event, holders, timezone.now() + timedelta(hours=1))
        event = Event.objects.select_related("organization", "venue").get(pk=event.pk)
        mine = load_context(me, event, timezone.now())
        theirs = load_context(stranger, event, timezone.now())
        gate = AvailabilityGate()

        with CaptureQueriesContext(connection) as queries:
            allowed = gate.check(mine, Intent(seats=1))
            refused = gate.check(theirs, Intent(seats=1))

        assert len(queries) == 0
        assert allowed is None
        assert refused is not None
        assert refused.reason_code == "spots_reserved_for_waitlist"
        assert refused.pending_offers_count == 60


class TestHourlyNudge:
    @pytest.mark.parametrize("events", [2, 20])
    def test_one_query_finds_the_events_and_each_gets_one_enqueue(
        self, events, monkeypatch, django_capture_on_commit_callbacks
    ):
        from events.tasks import process_waitlist_for_event_task

        open_ids = {_active_event(f"nudge-{events}-{i}").pk for i in range(events)}
        make_event(slug=f"nudge-closed-{events}", waitlist_open=False, max_attendees=5)
        enqueued: list[str] = []
        monkeypatch.setattr(
            process_waitlist_for_event_task,
            "apply_async",
            lambda args, kwargs=None, **options: enqueued.append(args[0]),
        )

        with django_capture_on_commit_callbacks(execute=True):
            n, found = _count(waitlist_service.nudge_open_waitlists)

        assert n == 1
        assert set(found) == open_ids
        assert sorted(enqueued) == sorted(str(pk) for pk in open_ids)


class TestEligibility:
    def test_full_check_for_a_waitlisted_user_with_900_attendees_and_100_offers(self):
        event = _active_event("eligibility", attendee_count=0)
        attendees = _bulk_users(900, "attendee")
        EventRSVP.objects.bulk_create(
            [EventRSVP(event=event, user=u, status=EventRSVP.Status.YES) for u in attendees]
        )
        Event.objects.filter(pk=event.pk).update(attendee_count=900)
        holders = _bulk_users(100, "offer")
        waiting = _bulk_users(40, "waiting")
        _queue(event, holders + waiting)
        _offers(event, holders, timezone.now() + timedelta(hours=1))
        me = waiting[-1]
        bare = Event.objects.get(pk=event.pk)

        n, answer = _count(lambda: EligibilityService(me, bare).check_eligibility())

        assert n <= ELIGIBILITY_BUDGET
        assert answer.reason_code == "on_waitlist_waiting_for_batch"
        assert answer.pending_offers_count == 100
        assert answer.waitlist_position is not None
