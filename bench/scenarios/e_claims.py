"""e0/e1: how fast one event's seats can be claimed (quality.md).

e0, the physical limit: `pgbench` runs the claim's lock pattern on a tiny schema of its
own in the bench database (one event row, a claims table): lock the event row, insert a
claim, bump the counter, commit. Everything a claim does serialises on that row, so no
claim path can beat this rate on this machine.

e1, claims under contention: 60 threads, each with its own connection (opened before
the start line), race to register for the last 10 seats of an RSVP event whose
waitlist cutoff has passed; each racer holds a cutoff offer, so a winner goes the whole
way: gates, Event lock, locked capacity check, RSVP, attendee count, offer CLAIMED,
queue entry gone. Exactly 10 must win. The figure is the race, from the start line to
the last answer; between runs the claims are undone (untimed). Celery dispatches (the
claim's defensive nudge, the RSVP notice) are stubbed: they leave after the commit.

e1 also prints how long each claim held the Event row lock, winners and refusals apart
(the median over every contended claim of the timed runs, each run's median range
beside it), measured from
outside the code it measures:
- a one-statement claim (`encore_claim_rsvp`, the path e1 takes on PostgreSQL) reports
  the server's clock when it arrived, when it asked for the lock, when the lock was
  granted and when its body ended. The lock ends with the statement's COMMIT, which the
  function cannot see, so the tenure is taken from the next holder instead: sorted by
  grant, a claim that asked for the lock before the previous holder's body ended was
  blocked on it when that one released it, so it is granted at the release, and the time
  between the two grants is the previous holder's whole tenure (its body, its deferred
  constraint checks, its COMMIT and the hand-over). Only such contended pairs count, and
  the row says how many there were. (Until 2026-12-03 a pair counted when the successor
  had merely arrived before the grant: once wins stopped flushing under the lock, most
  successors were still reading their snapshot then, and their own pre-lock work landed
  in the holder's figure);
- a claim on the Python path: on the racer's own connection an execute wrapper stamps
  the moment the first `... FOR UPDATE` on `events_event` returns, and wrappers around
  the connection's `_commit`/`_rollback` stamp the moment COMMIT or ROLLBACK returns.
  Racers are threads of one process, so such a holder may also wait for the interpreter
  lock; that time is in the figure too.
Claims refused by the gates before the lock hold nothing and are not counted.

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

import os
import re
import shutil
import statistics
import subprocess
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta
from itertools import pairwise
from pathlib import Path
from typing import Any

from django.db import DEFAULT_DB_ALIAS, DatabaseError, OperationalError, connection, connections
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from accounts.models import User
from bench import builders
from bench.registry import Measured, Sample, ScenarioUnavailable, committed_scenario
from common.errors import EncoreError
from common.locking import is_lock_timeout
from events.models import Event, EventRSVP, EventWaitList, WaitlistOffer
from events.selectors.event import get_participation_event
from events.service import claim_function
from events.service.event_manager.manager import EventManager

CLIENTS = 10
SECONDS = 3
RACERS = 60
SEATS = 10
ATTENDEES = 90
MAX_RETRIES = 20

#: e0's median rate, for e1's ratio (e0 runs first; e1 measures it itself otherwise).
_limit: list[float] = []
#: e1's median claims/s, for e2's ratio (e2 runs after e1 when both are asked for).
e1_rate: list[float] = []
#: Per e1 run (warm-up included): the lock tenures of its winners and of its refusals, ms.
_tenures: list[tuple[list[float], list[float]]] = []
#: Per e1 run: how many refusals the claim function decided on its snapshot, holding nothing.
_unlocked_refusals: list[int] = []

E0_SCHEMA = """
CREATE TABLE bench_e0_event (id integer PRIMARY KEY, taken integer NOT NULL DEFAULT 0);
CREATE TABLE bench_e0_claim (
    id bigserial PRIMARY KEY,
    event_id integer NOT NULL REFERENCES bench_e0_event (id),
    claimed_at timestamptz NOT NULL DEFAULT now()
);
INSERT INTO bench_e0_event (id) VALUES (1);
"""
E0_DROP = "DROP TABLE IF EXISTS bench_e0_claim; DROP TABLE IF EXISTS bench_e0_event;"
E0_SCRIPT = """BEGIN;
SELECT taken FROM bench_e0_event WHERE id = 1 FOR UPDATE;
INSERT INTO bench_e0_claim (event_id) VALUES (1);
UPDATE bench_e0_event SET taken = taken + 1 WHERE id = 1;
COMMIT;
"""
E0_STATEMENTS = 5


def _database_url() -> str:
    return os.environ["DATABASE_URL"]


def _pgbench(script: Path) -> Sample:
    command = [
        "pgbench", "-n", "-f", str(script), "-c", str(CLIENTS), "-j", "2",
        "-T", str(SECONDS), _database_url(),
    ]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"pgbench failed: {done.stderr.strip()[-300:]}")
    tps = re.search(r"tps = ([\d.]+) \(without initial connection time\)", done.stdout)
    latency = re.search(r"latency average = ([\d.]+) ms", done.stdout)
    if tps is None or latency is None:
        raise RuntimeError(f"unexpected pgbench output: {done.stdout[-300:]}")
    return Sample(float(latency.group(1)), E0_STATEMENTS, rate=float(tps.group(1)))


@contextmanager
def pgbench_limit() -> Iterator[Measured]:
    if shutil.which("pgbench") is None:
        raise ScenarioUnavailable("pgbench is not installed")
    with connection.cursor() as cursor:
        cursor.execute(E0_DROP)
        cursor.execute(E0_SCHEMA)
    try:
        with tempfile.TemporaryDirectory() as folder:
            script = Path(folder) / "claim.sql"
            script.write_text(E0_SCRIPT)
            yield lambda: _pgbench(script)
    finally:
        with connection.cursor() as cursor:
            cursor.execute(E0_DROP)


def _describe_limit(samples: Sequence[Sample]) -> str:
    rates = [s.rate or 0.0 for s in samples]
    _limit[:] = [statistics.median(rates)]
    return (
        f"{statistics.median(rates):.0f} tx/s (min {min(rates):.0f}, max {max(rates):.0f}); "
        f"ms = latency per tx; pgbench -c {CLIENTS} -T {SECONDS}, one event row"
    )


@committed_scenario(
    "e0",
    "physical limit: the claim's lock pattern (pgbench)",
    data="1 event row, a claims table",
    method="pgbench on its own schema, dropped after",
    rollback_runs=False,
    describe=_describe_limit,
)
def physical_limit() -> AbstractContextManager[Measured]:
    return pgbench_limit()


# -- e1 ----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class FunctionClock:
    """A one-statement claim's own clock (the last three columns of its result)."""

    arrived_at: datetime
    requested_at: datetime
    locked_at: datetime
    finished_at: datetime
    outcome: str  # 'won', or 'refused' under the lock


STAMPS = ("arrived_at", "requested_at", "locked_at", "finished_at")


class LockTenure:
    """How long this thread's claims held the Event row lock (see the module doc).

    Installed on the racer's own connection: an execute wrapper for the lock statement's
    return and for the one-statement claim's clock, wrappers of `_commit`/`_rollback` for
    the Python path's release. Each release after a lock adds one (ms, committed) record.
    """

    def __init__(self) -> None:
        self.locked_at: float | None = None
        self.records: list[tuple[float, bool]] = []
        self.clocks: list[FunctionClock] = []
        self.before_the_lock = 0
        self.wrapper = connections[DEFAULT_DB_ALIAS]
        for name, committed in (("_commit", True), ("_rollback", False)):
            setattr(self.wrapper, name, self._releasing(getattr(self.wrapper, name), committed))

    def _releasing(self, end: Callable[[], None], committed: bool) -> Callable[[], None]:
        def released() -> None:
            try:
                end()
            finally:
                if self.locked_at is not None:
                    held = (time.perf_counter() - self.locked_at) * 1000
                    self.records.append((held, committed))
                self.locked_at = None

        return released

    def __call__(
        self, execute: Callable[..., Any], sql: str, params: Any, many: bool, context: Any
    ) -> Any:
        try:
            result = execute(sql, params, many, context)
        except DatabaseError as error:
            numbers = claim_function.refused_under_the_lock(error)
            if numbers is not None:  # a refusal under the lock rolls back (the SQL file)
                arrived, requested, locked, finished = (
                    datetime.fromisoformat(numbers[k]) for k in STAMPS
                )
                clock = FunctionClock(arrived, requested, locked, finished, "refused")
                self.clocks.append(clock)
            raise
        if "encore_claim_rsvp" in sql:
            cursor = context["cursor"]
            row = cursor.fetchone()
            cursor.scroll(0, mode="absolute")  # the caller reads the row as if untouched
            if row[0] == "won":
                arrived, requested, locked, finished = row[-len(STAMPS) :]
                self.clocks.append(FunctionClock(arrived, requested, locked, finished, "won"))
            elif row[0] == "refused":
                self.before_the_lock += 1  # decided on its snapshot: it held nothing
        elif self.locked_at is None and "FOR UPDATE" in sql and '"events_event"' in sql:
            self.locked_at = time.perf_counter()
        return result

    def uninstall(self) -> None:
        for name in ("_commit", "_rollback"):
            self.wrapper.__dict__.pop(name, None)


def tenures_from_grants(clocks: list[FunctionClock]) -> tuple[list[float], list[float]]:
    """(wins, refusals) in ms: each contended holder's tenure, grant to next grant."""
    won: list[float] = []
    refused: list[float] = []
    ordered = sorted(clocks, key=lambda clock: clock.locked_at)
    for holder, successor in pairwise(ordered):
        if successor.requested_at <= holder.finished_at:  # blocked when the lock went
            held = (successor.locked_at - holder.locked_at).total_seconds() * 1000
            (won if holder.outcome == "won" else refused).append(held)
    return won, refused


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
    with builders.committed(tag):
        yield ClaimRace(tag).run


def _describe_race(samples: Sequence[Sample]) -> str:
    """Claims/s counts every answered claim (won or refused); won/s only the winners."""
    rate = statistics.median(s.rate or 0.0 for s in samples)
    if not _limit:  # e1 alone (--only e1): measure the limit now
        with pgbench_limit() as limit:
            measured = limit()
        assert isinstance(measured, Sample)
        _limit.append(measured.rate or 0.0)
    ratio = rate / _limit[0] if _limit[0] else 0.0
    won, refused = lock_held_medians(len(samples))
    e1_rate[:] = [rate]
    return (
        f"{rate:.0f} claims/s ({rate * SEATS / RACERS:.0f} won/s, {SEATS}/{RACERS} won "
        f"every run) = {ratio:.2f} x e0; lock held {won} per win, {refused} per refusal "
        f"({statistics.median(_unlocked_refusals[-len(samples) :]):.0f}/run refused on a "
        "snapshot before the lock, holding nothing) "
        f"under the lock (one-statement claims: grant to the next waiting claimer's grant, COMMIT included); queries = one winning claim, to its COMMIT (one-statement path: all its statements)"
    )


def lock_held_medians(runs: int) -> tuple[str, str]:
    """The median over every contended claim of the timed runs (warm-up left out), with
    the range of the runs' own medians.

    Pooled, not a median of the runs' medians: a run has ten wins, of which only the
    two or three whose successor was already blocked on the lock count, so a run's median
    is one of two or three numbers, and on an oversubscribed 2-core machine one of them
    may be a holder descheduled for tens of milliseconds.
    """
    timed = _tenures[-runs:]

    def figure(kind: int) -> str:
        pooled = [held for run in timed for held in run[kind]]
        if not pooled:
            return "n/a (none)"
        medians = [statistics.median(run[kind]) for run in timed if run[kind]]
        return (
            f"{statistics.median(pooled):.2f} ms (runs {min(medians):.2f}-{max(medians):.2f},"
            f" {len(pooled)} claims)"
        )

    return figure(0), figure(1)


@committed_scenario(
    "e1",
    "claims under contention: 60 threads, 10 seats",
    data=f"{ATTENDEES} attendees, {RACERS} cutoff-offer holders",
    method="committed data; each run's claims undone before the next",
    rollback_runs=False,
    describe=_describe_race,
)
def contention() -> AbstractContextManager[Measured]:
    return claims_race("e1")
