"""How long e1's claims hold the Event row lock, winners and refusals apart.

e1 prints the median over every contended claim of the timed runs, each run's median
range beside it, measured from outside the code it measures:
- a one-statement claim: production's `encore_claim_rsvp` keeps no clock, so for e1 the
  bench installs a clocked twin of it (`clocked_claims`: the function's own text, renamed,
  with four stamps of the server's clock: when it arrived, when it asked for the lock,
  when the lock was granted and when its body ended) and routes e1's claims to it. The
  lock ends with the statement's COMMIT, which the function cannot see, so the tenure is
  taken from the next holder instead: sorted by grant, a claim that asked for the lock
  before the previous holder's body ended was blocked on it when that one released it,
  so it is granted at the release, and the time between the two grants is the previous
  holder's whole tenure (its body, its deferred constraint checks, its COMMIT and the
  hand-over). Only such contended pairs count, and the row says how many there were. A
  successor that had merely arrived before the grant does not count: it may still be
  reading its snapshot then, and its own pre-lock work would land in the holder's figure
  (the earlier way of counting: docs/bench.md, e1);
- a claim on the Python path: on the racer's own connection an execute wrapper stamps
  the moment the first `... FOR UPDATE` on `events_event` returns, and wrappers around
  the connection's `_commit`/`_rollback` stamp the moment COMMIT or ROLLBACK returns.
  Racers are threads of one process, so such a holder may also wait for the interpreter
  lock; that time is in the figure too.
Claims refused by the gates before the lock hold nothing and are not counted.
"""

import statistics
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from itertools import pairwise
from pathlib import Path
from typing import Any

from django.db import DEFAULT_DB_ALIAS, DatabaseError, connection, connections

from events.core.services import claim_function

CLAIM_SQL = Path(__file__).resolve().parents[1] / "src/events/core/sql/claim_rsvp.sql"
#: The clocked twin's name: production's function is never replaced.
TWIN = "bench_claim_rsvp"
#: What the twin adds to the function's text: (anchor, with the stamp, how often the
#: anchor must occur). A change to the SQL that moves an anchor fails the bench loudly.
_STAMPS_ADDED = [
    ("encore_claim_rsvp(", f"{TWIN}(", None),
    (
        "    revoked integer\n) LANGUAGE",
        "    revoked integer,\n    arrived_at timestamptz,\n    requested_at timestamptz,\n"
        "    locked_at timestamptz,\n    finished_at timestamptz\n) LANGUAGE",
        1,
    ),
    (
        "BEGIN\n    claimed := false;\n",
        "BEGIN\n    arrived_at := statement_timestamp();\n    claimed := false;\n",
        1,
    ),
    (
        "    -- The lock, and the numbers as of the lock.\n",
        "    -- The lock, and the numbers as of the lock.\n    requested_at := clock_timestamp();\n",
        1,
    ),
    (
        "FROM events_event e WHERE e.id = p_event FOR UPDATE;\n",
        "FROM events_event e WHERE e.id = p_event FOR UPDATE;\n"
        "    locked_at := clock_timestamp();\n",
        1,
    ),
    ("RETURN NEXT;", "finished_at := clock_timestamp(); RETURN NEXT;", None),
    (
        "'pending_offer_id', pending_offer_id)::text;",
        "'pending_offer_id', pending_offer_id, 'arrived_at', arrived_at, 'requested_at',"
        " requested_at, 'locked_at', locked_at, 'finished_at', clock_timestamp())::text;",
        1,
    ),
]


def clocked_twin(sql: str) -> str:
    """The claim function's text as the bench's clocked twin (see the module doc)."""
    for anchor, stamped, times in _STAMPS_ADDED:
        found = sql.count(anchor)
        if found == 0 or (times is not None and found != times):
            raise RuntimeError(f"claim_rsvp.sql: {anchor!r} found {found} times, not {times}")
        sql = sql.replace(anchor, stamped)
    return sql


@contextmanager
def clocked_claims() -> Iterator[None]:
    """While it is open, one-statement claims go to the clocked twin (installed in the
    bench's database, dropped after)."""
    with connection.cursor() as cursor:
        cursor.execute(clocked_twin(CLAIM_SQL.read_text()))
    production = claim_function._CALL
    claim_function._CALL = production.replace("encore_claim_rsvp", TWIN)
    try:
        yield
    finally:
        claim_function._CALL = production
        with connection.cursor() as cursor:
            cursor.execute(
                f"DROP FUNCTION IF EXISTS {TWIN}(uuid, uuid, uuid, integer, timestamptz)"
            )


@dataclass(frozen=True)
class FunctionClock:
    """A one-statement claim's clock (the twin's last four columns)."""

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
        if TWIN in sql:
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


def lock_held_medians(
    tenures: Sequence[tuple[list[float], list[float]]], runs: int
) -> tuple[str, str]:
    """The median over every contended claim of the timed runs (warm-up left out), with
    the range of the runs' own medians.

    Pooled, not a median of the runs' medians: a run has ten wins, of which only the
    two or three whose successor was already blocked on the lock count, so a run's median
    is one of two or three numbers, and on an oversubscribed 2-core machine one of them
    may be a holder descheduled for tens of milliseconds.
    """
    timed = tenures[-runs:]

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
