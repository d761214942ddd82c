"""The scenario registry: a benchmark is a function decorated with `@scenario(...)`.

The function builds its data (once) and returns the call to measure. By default it runs
inside the harness's outer transaction, which is rolled back after the scenario, so
scenarios never see each other's data and the bench database stays empty between them.

Scenarios registered with `committed_scenario` commit their data instead: their builder
is a context manager that builds, yields the call, and removes everything on exit. That
is what threads and `pgbench` need (other connections must see the rows), and what
write-heavy runs need to be measured like production: rows a transaction inserted itself
make PostgreSQL re-check foreign keys on every UPDATE, old committed rows do not. Such
runs are still each rolled back (`rollback_runs`), unless the call resets its own state.
"""

from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass

Measured = Callable[[], object]
Builder = Callable[[], Measured]
CommittedBuilder = Callable[[], AbstractContextManager[Measured]]


class ScenarioUnavailable(Exception):
    """The code a scenario measures does not exist (yet); the row says why."""


@dataclass(frozen=True)
class Sample:
    """What a measured call returns when the harness's own clock is not the figure.

    Threaded and external runs time only their contended part (setup and the reset of
    the data are left out) and may report a throughput.
    """

    ms: float
    queries: int | None = None
    #: Work done per second in this run (transactions, claims), for throughput rows.
    rate: float | None = None
    #: What the run found worth printing (e.g. "10/60 won").
    note: str = ""


#: Turns the runs' samples into the row's note column (rates, ratios, checks).
Describe = Callable[[Sequence[Sample]], str]


@dataclass(frozen=True)
class Scenario:
    id: str
    title: str
    data: str
    build: Builder | CommittedBuilder
    # How each run starts from the same state; shown in the table's method column.
    method: str = "savepoint rollback"
    committed: bool = False
    rollback_runs: bool = True
    #: Untimed, after every run of a committed scenario: e.g. VACUUM the rows a
    #: rolled-back run left dead, so each run meets the same physical state.
    between_runs: Callable[[], None] | None = None
    describe: Describe | None = None
    #: Timed runs when the command line names none (else the harness's default): a row
    #: whose figure pools a few events per run needs more runs for a steady median.
    runs: int | None = None


REGISTRY: dict[str, Scenario] = {}


def _register(scenario: Scenario) -> None:
    if scenario.id in REGISTRY:
        raise ValueError(f"benchmark id {scenario.id!r} registered twice")
    REGISTRY[scenario.id] = scenario


def scenario(
    id: str,
    title: str,
    data: str,
    *,
    method: str = "savepoint rollback",
    describe: Describe | None = None,
) -> Callable[[Builder], Builder]:
    """Register a builder under a docs/spec/quality.md row id such as "a1" (ids are unique)."""

    def register(build: Builder) -> Builder:
        _register(Scenario(id, title, data, build, method=method, describe=describe))
        return build

    return register


def committed_scenario(
    id: str,
    title: str,
    data: str,
    *,
    method: str,
    rollback_runs: bool = True,
    between_runs: Callable[[], None] | None = None,
    describe: Describe | None = None,
    runs: int | None = None,
) -> Callable[[CommittedBuilder], CommittedBuilder]:
    """Register a context-manager builder whose data is committed (see the module doc)."""

    def register(build: CommittedBuilder) -> CommittedBuilder:
        _register(
            Scenario(
                id,
                title,
                data,
                build,
                method=method,
                committed=True,
                rollback_runs=rollback_runs,
                between_runs=between_runs,
                describe=describe,
                runs=runs,
            )
        )
        return build

    return register
