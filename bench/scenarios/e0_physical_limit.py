"""e0: the physical limit of one event's claims (docs/spec/quality.md).

`pgbench` runs the claim's lock pattern on a tiny schema of its own in the bench database
(one event row, a claims table): lock the event row, insert a claim, bump the counter,
commit. Everything a claim does serialises on that row, so no claim path can beat this
rate on this machine; e1 gives its rate as a ratio to this one.
"""

import os
import re
import shutil
import statistics
import subprocess
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path

from django.db import connection

from bench.registry import Measured, Sample, ScenarioUnavailable, committed_scenario

CLIENTS = 10
SECONDS = 3

#: e0's median rate, for e1's ratio (e0 runs first; `limit_rate` measures it otherwise).
_limit: list[float] = []

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


def limit_rate() -> float:
    """e0's median tx/s from this bench run, measured now when e0 did not run (--only e1)."""
    if not _limit:
        with pgbench_limit() as limit:
            measured = limit()
        assert isinstance(measured, Sample)
        _limit.append(measured.rate or 0.0)
    return _limit[0]
