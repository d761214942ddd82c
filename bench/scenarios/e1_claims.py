"""e1: how fast one event's seats can be claimed under contention (docs/spec/quality.md).

60 threads, each with its own connection (opened before the start line), race to
register for the last 10 seats of an RSVP event whose waitlist cutoff has passed; each
racer holds a cutoff offer, so a winner goes the whole way: gates, Event lock, locked
capacity check, RSVP, attendee count, offer CLAIMED, queue entry gone. Exactly 10 must win. The figure is the race, from the start line to
the last answer; between runs the claims are undone (untimed). Celery dispatches (the
claim's defensive nudge, the RSVP notice) are stubbed: they leave after the commit.

e1 also prints how long each claim held the Event row lock, winners and refusals apart,
measured from outside the code it measures (`bench.lock_tenure` says how).

The racers' connections are warm, as a web worker's kept connection is in production
(`DB_CONN_MAX_AGE`): before the start line each racer registers once for another event of
the same shape (queued, holding a cutoff offer, room for all), so the server has planned
the claim's statements in that session, and its first claim of the day is not the one
timed. That registration is undone with the others between runs. For the same reason a racer
keeps its connection until every racer has answered: a connection that closes ends its
server process, and sixty exits in the middle of the race took CPU from the claims still
running (a worker's connection does not close after each request either). The claim
itself goes through the API's door, `get_participation_event`, as a request's does.
"""

import statistics
import threading
import time
import uuid
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from datetime import timedelta

from django.db import OperationalError, connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from accounts.models import User
from bench import builders
from bench.lock_tenure import (
    FunctionClock,
    LockTenure,
    clocked_claims,
    lock_held_medians,
    tenures_from_grants,
)
from bench.registry import Measured, Sample, committed_scenario
from bench.scenarios.e0_physical_limit import limit_rate
from common.errors import EncoreError
from common.locking import is_lock_timeout
from events.core.selectors.event import get_participation_event
from events.core.services.event_manager import EventManager
from events.models import Event, EventRSVP, EventWaitList, WaitlistOffer

RACERS = 60
SEATS = 10
ATTENDEES = 90
MAX_RETRIES = 20
#: Timed races. A race has ten wins, of which only the one to three whose successor was
#: already blocked on the lock give a tenure (`bench.lock_tenure`): with five races
#: pooled, one descheduled holder moved the median between two `make bench` runs of the
#: same code; fifteen pool enough wins for a steady median (figures in docs/bench.md, e1).
RUNS = 15

#: e1's median claims/s, for e2's ratio (e2 runs after e1 when both are asked for).
e1_rate: list[float] = []
#: Per e1 run (warm-up included): the lock tenures of its winners and of its refusals, ms.
_tenures: list[tuple[list[float], list[float]]] = []
#: Per e1 run: how many refusals the claim function decided on its snapshot, holding nothing.
_unlocked_refusals: list[int] = []


class ClaimRace:
    """The committed event, its racers, and the undoing of a run's claims (e1; e2 reuses
    it with its own numbers)."""

    def __init__(self, tag: str, *, racers: int = RACERS, seats: int = SEATS) -> None:
        self.seats = seats
        self.event = builders.waitlist_event(
            tag,
            capacity=ATTENDEES + seats,
            batch_size=0,
            waitlist_cutoff_date=timezone.now() - timedelta(hours=1),
        )
        builders.attendees(self.event, ATTENDEES)
        self.racers = builders.users(racers, f"{tag}-racer")
        # The same shape with room for everyone: each racer registers there once before
        # the start line (see `racer`), so its connection is warm.
        self.warm = builders.waitlist_event(
            f"{tag}-warm",
            capacity=racers,
            batch_size=0,
            waitlist_cutoff_date=timezone.now() - timedelta(hours=1),
        )
        for event in (self.event, self.warm):
            builders.queue(event, self.racers)
            builders.offers(event, self.racers, event.start, cutoff=True)
        builders.analyze()

    def reset(self) -> None:
        """Undo the last run's claims: RSVPs, the count, the offers and the queue entries."""
        ids = [racer.pk for racer in self.racers]
        for event, attending in ((self.event, ATTENDEES), (self.warm, 0)):
            EventRSVP.objects.filter(event=event, user_id__in=ids).delete()
            Event.objects.filter(pk=event.pk).update(attendee_count=attending)
            WaitlistOffer.objects.filter(event=event, user_id__in=ids).update(
                status=WaitlistOffer.WaitlistOfferStatus.PENDING, claimed_at=None
            )
            queued = set(
                EventWaitList.objects.filter(event=event).values_list("user_id", flat=True)
            )
            builders.queue(event, [r for r in self.racers if r.pk not in queued])

    def claim(self, racer: User, event_id: uuid.UUID | None = None) -> tuple[bool, int]:
        """One racer's registration, retrying a lock wait that ran out: (won, statements
        up to its COMMIT; the RSVP notice then written on commit is not counted)."""
        event = get_participation_event(racer, event_id or self.event.pk)  # the API's door
        with CaptureQueriesContext(connection) as queries:
            for attempt in range(MAX_RETRIES):
                try:
                    EventManager(racer, event).rsvp(EventRSVP.Status.YES)
                    return True, _until_commit(queries.captured_queries)
                except EncoreError:
                    return False, len(queries)
                except OperationalError as error:
                    if not is_lock_timeout(error):
                        raise
                    time.sleep(0.01 * (attempt + 1))
        raise RuntimeError("gave up after repeated lock timeouts")

    def run(self) -> Sample:
        self.reset()
        start: list[float] = []
        results: list[tuple[bool, int, float] | BaseException] = []
        lock = threading.Lock()
        line = threading.Barrier(RACERS, action=lambda: start.append(time.perf_counter()))
        finish = threading.Barrier(RACERS)

        won_held: list[float] = []
        refused_held: list[float] = []
        clocks: list[FunctionClock] = []
        unlocked = [0]

        def racer(person: User) -> None:
            tenure = LockTenure()
            try:
                _connect()  # own connection, opened before the start line
                self.claim(person, self.warm.pk)  # warm, as a worker's kept connection is
                line.wait(timeout=60)
                with connection.execute_wrapper(tenure):
                    won, queries = self.claim(person)
                outcome: tuple[bool, int, float] | BaseException = (
                    won,
                    queries,
                    time.perf_counter(),
                )
                finish.wait(timeout=60)  # connections close after the last answer
            except BaseException as error:  # reported below, never swallowed
                line.abort()  # nobody waits for a racer that will not come
                finish.abort()
                outcome = error
            finally:
                connection.close()
                tenure.uninstall()
            with lock:
                results.append(outcome)
                for held, committed in tenure.records:
                    (won_held if committed else refused_held).append(held)
                clocks.extend(tenure.clocks)
                unlocked[0] += tenure.before_the_lock

        threads = [threading.Thread(target=racer, args=(r,)) for r in self.racers]
        with builders.no_task_dispatch():
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join(timeout=120)
        by_grants = tenures_from_grants(clocks)
        _tenures.append((won_held + by_grants[0], refused_held + by_grants[1]))
        _unlocked_refusals.append(unlocked[0])
        return self._sample(start, results)

    def _sample(
        self, start: list[float], results: list[tuple[bool, int, float] | BaseException]
    ) -> Sample:
        errors = [r for r in results if isinstance(r, BaseException)]
        if errors or len(results) != RACERS:
            raise RuntimeError(f"{len(errors)} racers failed, e.g. {errors[:1]!r}")
        done = [r for r in results if not isinstance(r, BaseException)]
        won = [r for r in done if r[0]]
        self.assert_seats_taken(len(won))
        seconds = max(r[2] for r in done) - start[0]
        return Sample(seconds * 1000, queries=max(r[1] for r in won), rate=RACERS / seconds)

    def assert_seats_taken(self, won: int) -> None:
        """Exactly the free seats went, to exactly as many winners."""
        attending = Event.objects.values_list("attendee_count", flat=True).get(pk=self.event.pk)
        if won != self.seats or attending != ATTENDEES + self.seats:
            raise RuntimeError(f"{won} won, attendee_count {attending}: expected {self.seats}")


def _until_commit(queries: list[dict[str, str]]) -> int:
    sql = [q["sql"] for q in queries]
    return sql.index("COMMIT") + 1 if "COMMIT" in sql else len(sql)


def _connect(patience: float = 20.0) -> None:
    """Open this thread's connection, waiting out a moment when the server is full
    (other test runs on the machine may hold many connections for a few seconds)."""
    give_up = time.monotonic() + patience
    while True:
        try:
            connection.ensure_connection()
            return
        except OperationalError as error:
            if "too many clients" not in str(error) or time.monotonic() > give_up:
                raise
            time.sleep(0.2)


@contextmanager
def claims_race(tag: str) -> Iterator[Measured]:
    with builders.committed(tag), clocked_claims():
        yield ClaimRace(tag).run


def _describe_race(samples: Sequence[Sample]) -> str:
    """Claims/s counts every answered claim (won or refused); won/s only the winners."""
    rate = statistics.median(s.rate or 0.0 for s in samples)
    limit = limit_rate()
    ratio = rate / limit if limit else 0.0
    won, refused = lock_held_medians(_tenures, len(samples))
    e1_rate[:] = [rate]
    return (
        f"{rate:.0f} claims/s ({rate * SEATS / RACERS:.0f} won/s, {SEATS}/{RACERS} won "
        f"every run) = {ratio:.2f} x e0; lock held {won} per win, {refused} per refusal "
        f"({statistics.median(_unlocked_refusals[-len(samples) :]):.0f}/run refused on a "
        "snapshot before the lock, holding nothing) "
        f"under the lock (one-statement claims: grant to the next waiting claimer's grant, COMMIT included); queries = one winning claim, to its COMMIT (one-statement path: all its statements)"
    )


@committed_scenario(
    "e1",
    "claims under contention: 60 threads, 10 seats",
    data=f"{ATTENDEES} attendees, {RACERS} cutoff-offer holders",
    method="committed data; each run's claims undone before the next",
    rollback_runs=False,
    describe=_describe_race,
    runs=RUNS,
)
def contention() -> AbstractContextManager[Measured]:
    return claims_race("e1")
