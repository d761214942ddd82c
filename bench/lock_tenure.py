"""How long e1's claims hold the Event row lock, winners and refusals apart.

e1 prints the median over every contended claim of the timed runs, each run's median
range beside it, measured from outside the code it measures:
- a one-statement claim (`encore_claim_rsvp`, the path e1 takes on PostgreSQL) reports
  the server's clock when it arrived, when it asked for the lock, when the lock was
  granted and when its body ended. The lock ends with the statement's COMMIT, which the
  function cannot see, so the tenure is taken from the next holder instead: sorted by
  grant, a claim that asked for the lock before the previous holder's body ended was
  blocked on it when that one released it, so it is granted at the release, and the time
  between the two grants is the previous holder's whole tenure (its body, its deferred
  constraint checks, its COMMIT and the hand-over). Only such contended pairs count, and
  the row says how many there were. A successor that had merely arrived before the grant
  does not count: it may still be reading its snapshot then, and its own pre-lock work
  would land in the holder's figure (the earlier way of counting: docs/bench.md, e1);
- a claim on the Python path: on the racer's own connection an execute wrapper stamps
  the moment the first `... FOR UPDATE` on `events_event` returns, and wrappers around
  the connection's `_commit`/`_rollback` stamp the moment COMMIT or ROLLBACK returns.
  Racers are threads of one process, so such a holder may also wait for the interpreter
  lock; that time is in the figure too.
Claims refused by the gates before the lock hold nothing and are not counted.
"""

import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from itertools import pairwise
from typing import Any

from django.db import DEFAULT_DB_ALIAS, DatabaseError, connections

from events.core.services import claim_function


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
