"""Timing, query counting and state reset for one scenario.

Each measured call runs inside a savepoint that is rolled back after it, so every run
starts from the same data; the commit is therefore not part of the figure (as in the
source project's measurements). Times are wall-clock `time.perf_counter()`; queries
are counted with `CaptureQueriesContext` on the default connection during each run.
"""

import statistics
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from bench.registry import Measured, Scenario, ScenarioUnavailable

RUNS = 5
WARMUPS = 1


@dataclass(frozen=True)
class Result:
    scenario: Scenario
    times_ms: tuple[float, ...] = ()
    queries: tuple[int, ...] = ()
    problem: str = ""

    @property
    def median_ms(self) -> float:
        return statistics.median(self.times_ms)

    @property
    def queries_label(self) -> str:
        low, high = min(self.queries), max(self.queries)
        return str(low) if low == high else f"{low}-{high}"


@contextmanager
def rolled_back() -> Iterator[None]:
    """Run the block in a savepoint (or a transaction) and undo everything it wrote."""
    with transaction.atomic():
        yield
        transaction.set_rollback(True)


def measure_once(call: Measured) -> tuple[float, int]:
    """One run in its own rolled-back savepoint: (milliseconds, queries)."""
    with rolled_back(), CaptureQueriesContext(connection) as queries:
        start = time.perf_counter()
        call()
        elapsed = time.perf_counter() - start
    return elapsed * 1000, len(queries)


def run_scenario(scenario: Scenario, runs: int = RUNS, warmups: int = WARMUPS) -> Result:
    """Build the data once, warm up, then time `runs` calls; all undone afterwards."""
    try:
        with rolled_back():
            call = scenario.build()
            for _ in range(warmups):
                measure_once(call)
            samples = [measure_once(call) for _ in range(runs)]
    except ScenarioUnavailable as missing:
        return Result(scenario, problem=f"unavailable: {missing}")
    except Exception as error:  # a broken scenario is a row, not the end of the table
        return Result(scenario, problem=f"error: {type(error).__name__}: {error}")
    return Result(
        scenario,
        times_ms=tuple(ms for ms, _ in samples),
        queries=tuple(count for _, count in samples),
    )


def format_table(results: list[Result]) -> str:
    """A plain text table; a failed row carries its reason where the figures would be."""
    header = ("id", "scenario", "data", "method", "median ms", "min ms", "max ms", "queries")
    rows: list[tuple[str, ...]] = [header]
    for r in results:
        s = r.scenario
        if r.problem:
            rows.append((s.id, s.title, s.data, s.method, r.problem))
            continue
        timing = (f"{r.median_ms:.2f}", f"{min(r.times_ms):.2f}", f"{max(r.times_ms):.2f}")
        rows.append((s.id, s.title, s.data, s.method, *timing, r.queries_label))
    full = [row for row in rows if len(row) == len(header)]
    widths = [max(len(row[i]) for row in full) for i in range(len(header))]
    widths[:4] = [max(len(row[i]) for row in rows) for i in range(4)]
    lines = [_format_row(row, widths) for row in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def _format_row(row: tuple[str, ...], widths: list[int]) -> str:
    """Text columns left-aligned, figures right-aligned; a short row ends with its reason."""
    cells = [
        cell.ljust(widths[i]) if i < 4 else cell.rjust(widths[i]) for i, cell in enumerate(row)
    ]
    if len(row) < len(widths):
        cells[-1] = row[-1]
    return "  ".join(cells).rstrip()
