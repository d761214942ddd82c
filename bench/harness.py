"""Timing, query counting and state reset for one scenario.

Each measured call runs inside a savepoint (or, over committed data, a transaction) that
is rolled back after it, so every run starts from the same data; the commit is
therefore not part of the figure (as in the source project's measurements). Scenarios
whose runs must commit (threads, `pgbench`) reset their own data instead; the method
column says which. Times are wall-clock
`time.perf_counter()`, unless the call reports its own (`Sample`); queries are counted
with `CaptureQueriesContext` on the default connection during each run.
"""

import statistics
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import cast

from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from bench.registry import (
    Builder,
    CommittedBuilder,
    Measured,
    Sample,
    Scenario,
    ScenarioUnavailable,
)

RUNS = 5
WARMUPS = 1


@dataclass(frozen=True)
class Result:
    scenario: Scenario
    samples: tuple[Sample, ...] = ()
    problem: str = ""

    @property
    def times_ms(self) -> tuple[float, ...]:
        return tuple(sample.ms for sample in self.samples)

    @property
    def queries(self) -> tuple[int, ...]:
        return tuple(sample.queries or 0 for sample in self.samples)

    @property
    def median_ms(self) -> float:
        return statistics.median(self.times_ms)

    @property
    def queries_label(self) -> str:
        low, high = min(self.queries), max(self.queries)
        return str(low) if low == high else f"{low}-{high}"

    @property
    def note(self) -> str:
        describe = self.scenario.describe
        return describe(self.samples) if describe and self.samples else ""


@contextmanager
def rolled_back() -> Iterator[None]:
    """Run the block in a savepoint (or a transaction) and undo everything it wrote."""
    with transaction.atomic():
        yield
        transaction.set_rollback(True)


def _timed(call: Measured) -> Sample:
    """One run: the call's own Sample when it returns one, else wall time and queries."""
    with CaptureQueriesContext(connection) as queries:
        start = time.perf_counter()
        outcome = call()
        elapsed = (time.perf_counter() - start) * 1000
    if isinstance(outcome, Sample):
        counted = outcome.queries if outcome.queries is not None else len(queries)
        return Sample(outcome.ms, counted, outcome.rate, outcome.note)
    return Sample(elapsed, len(queries))


def measure_once(call: Measured) -> Sample:
    """One run in its own rolled-back savepoint."""
    with rolled_back():
        return _timed(call)


def _rolled_back_samples(build: Builder, runs: int, warmups: int) -> list[Sample]:
    with rolled_back():
        call = build()
        for _ in range(warmups):
            measure_once(call)
        return [measure_once(call) for _ in range(runs)]


def _committed_samples(scenario: Scenario, runs: int, warmups: int) -> list[Sample]:
    measure = measure_once if scenario.rollback_runs else _timed

    def run(call: Measured) -> Sample:
        sample = measure(call)
        if scenario.between_runs is not None:
            scenario.between_runs()
        return sample

    with cast(CommittedBuilder, scenario.build)() as call:
        for _ in range(warmups):
            run(call)
        return [run(call) for _ in range(runs)]


def run_scenario(scenario: Scenario, runs: int | None = None, warmups: int = WARMUPS) -> Result:
    """Build the data once, warm up, then time `runs` calls (else the scenario's own
    number, else RUNS); all undone afterwards."""
    runs = runs or scenario.runs or RUNS
    try:
        if scenario.committed:
            samples = _committed_samples(scenario, runs, warmups)
        else:
            samples = _rolled_back_samples(cast(Builder, scenario.build), runs, warmups)
    except ScenarioUnavailable as missing:
        return Result(scenario, problem=f"unavailable: {missing}")
    except Exception as error:  # a broken scenario is a row, not the end of the table
        return Result(scenario, problem=f"error: {type(error).__name__}: {error}")
    return Result(scenario, samples=tuple(samples))


def runs_label(results: list[Result]) -> str:
    """How many timed runs the table's rows had, as they ran: the usual number, and the
    rows that differ (a scenario's own number), e.g. "5 (e1 15)"."""
    counts = Counter(len(r.samples) for r in results if r.samples)
    if not counts:
        return "0"
    usual = counts.most_common(1)[0][0]
    others = [
        f"{r.scenario.id} {len(r.samples)}" for r in results if len(r.samples) not in (0, usual)
    ]
    return f"{usual} ({', '.join(others)})" if others else f"{usual}"


HEADER = ("id", "scenario", "data", "method", "median ms", "min ms", "max ms", "queries", "note")
TEXT_COLUMNS = {0, 1, 2, 3, len(HEADER) - 1}


def format_table(results: list[Result]) -> str:
    """A plain text table; a failed row carries its reason where the figures would be."""
    rows: list[tuple[str, ...]] = [HEADER]
    for r in results:
        s = r.scenario
        if r.problem:
            rows.append((s.id, s.title, s.data, s.method, r.problem))
            continue
        timing = (f"{r.median_ms:.2f}", f"{min(r.times_ms):.2f}", f"{max(r.times_ms):.2f}")
        rows.append((s.id, s.title, s.data, s.method, *timing, r.queries_label, r.note))
    full = [row for row in rows if len(row) == len(HEADER)]
    widths = [max(len(row[i]) for row in full) for i in range(len(HEADER))]
    widths[:4] = [max(len(row[i]) for row in rows) for i in range(4)]
    lines = [_format_row(row, widths) for row in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def _format_row(row: tuple[str, ...], widths: list[int]) -> str:
    """Text columns left-aligned, figures right-aligned; a short row ends with its reason."""
    cells = [
        cell.ljust(widths[i]) if i in TEXT_COLUMNS else cell.rjust(widths[i])
        for i, cell in enumerate(row)
    ]
    if len(row) < len(widths):
        cells[-1] = row[-1]
    return "  ".join(cells).rstrip()
