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
(medians over all claims of a run; the row shows the median of the runs). The bench
measures it from outside the code it measures: on each racer's own connection an
execute wrapper stamps the moment the first `... FOR UPDATE` on `events_event` returns,
and wrappers around the connection's `_commit`/`_rollback` stamp the moment COMMIT or
ROLLBACK returns (the lock is released then). Claims refused by the gates before the
lock hold nothing and are not counted. Racers are threads of one process, so a lock
holder may also wait for the interpreter lock; that time is in the figure too.
"""

import os
import re
import shutil
import statistics
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from datetime import timedelta
from pathlib import Path
from typing import Any

from django.db import DEFAULT_DB_ALIAS, OperationalError, connection, connections
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from accounts.models import User
from bench import builders
from bench.registry import Measured, Sample, ScenarioUnavailable, committed_scenario
from common.errors import EncoreError
from common.locking import is_lock_timeout
from events.models import Event, EventRSVP, EventWaitList, WaitlistOffer
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
class LockTenure:
    """How long this thread's transactions held the Event row lock (see the module doc).

    Installed on the racer's own connection: an execute wrapper for the lock statement's
    return, wrappers of `_commit`/`_rollback` for the release. Each release after a lock
    adds one (ms, committed) record.
    """

    def __init__(self) -> None:
        self.locked_at: float | None = None
        self.records: list[tuple[float, bool]] = []
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
        result = execute(sql, params, many, context)
        if self.locked_at is None and "FOR UPDATE" in sql and '"events_event"' in sql:
            self.locked_at = time.perf_counter()
        return result

    def add_server_side(self, timing: "claim_function.ClaimTiming | None") -> None:
        """A one-statement claim's tenure, as the function clocked it (module doc)."""
        if timing is not None and timing.outcome in {"won", "refused"}:
            self.records.append((timing.held_ms, timing.outcome == "won"))

    def uninstall(self) -> None:
        for name in ("_commit", "_rollback"):
            self.wrapper.__dict__.pop(name, None)


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
        builders.queue(self.event, self.racers)
        builders.offers(self.event, self.racers, self.event.start, cutoff=True)
        builders.analyze()

    def reset(self) -> None:
        """Undo the last run's claims: RSVPs, the count, the offers and the queue entries."""
        ids = [racer.pk for racer in self.racers]
        EventRSVP.objects.filter(event=self.event, user_id__in=ids).delete()
        Event.objects.filter(pk=self.event.pk).update(attendee_count=ATTENDEES)
        WaitlistOffer.objects.filter(event=self.event, user_id__in=ids).update(
            status=WaitlistOffer.WaitlistOfferStatus.PENDING, claimed_at=None
        )
        queued = set(
            EventWaitList.objects.filter(event=self.event).values_list("user_id", flat=True)
        )
        builders.queue(self.event, [r for r in self.racers if r.pk not in queued])

    def claim(self, racer: User) -> tuple[bool, int]:
        """One racer's registration, retrying a lock wait that ran out: (won, statements
        up to its COMMIT; the RSVP notice then written on commit is not counted)."""
        event = Event.objects.select_related("organization", "venue").get(pk=self.event.pk)
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

        won_held: list[float] = []
        refused_held: list[float] = []

        def racer(person: User) -> None:
            tenure = LockTenure()
            try:
                _connect()  # own connection, opened before the start line
                line.wait(timeout=60)
                with connection.execute_wrapper(tenure):
                    won, queries = self.claim(person)
                tenure.add_server_side(
                    claim_function.last_timing.pop(id(connection.connection), None)
                )
                outcome: tuple[bool, int, float] | BaseException = (
                    won,
                    queries,
                    time.perf_counter(),
                )
            except BaseException as error:  # reported below, never swallowed
                line.abort()  # nobody waits for a racer that will not come
                outcome = error
            finally:
                connection.close()
                tenure.uninstall()
            with lock:
                results.append(outcome)
                for held, committed in tenure.records:
                    (won_held if committed else refused_held).append(held)

        threads = [threading.Thread(target=racer, args=(r,)) for r in self.racers]
        with builders.no_task_dispatch():
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join(timeout=120)
        _tenures.append((won_held, refused_held))
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
        f"under the lock (one-statement claims: server-side clock_timestamp() from after the FOR UPDATE to the function's end); queries = one winning claim, to its COMMIT (one-statement path: all its statements)"
    )


def lock_held_medians(runs: int) -> tuple[str, str]:
    """Median over the timed runs of each run's median lock tenure (warm-up left out)."""
    timed = _tenures[-runs:]

    def figure(kind: int) -> str:
        medians = [statistics.median(run[kind]) for run in timed if run[kind]]
        if not medians:
            return "n/a (none)"
        counts = sum(len(run[kind]) for run in timed) / len(timed)
        return (
            f"{statistics.median(medians):.2f} ms (runs {min(medians):.2f}-{max(medians):.2f},"
            f" {counts:.0f}/run)"
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
