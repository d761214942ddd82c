"""Fixtures of the stack test: the private servers and the running stack, module-wide.

Everything a fixture starts is stopped by its finalizer, whatever the test did; the
logs stay in a temp folder and their tails are printed under a failing test.
"""

import contextlib
import shutil
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from .support import PG_BIN, Logs, Postgres, Redis, Smtp, Stack

#: A fresh stack must be ready (database, broker, cache, beat heartbeat) within this.
READY_SECONDS = 90
#: The production clocks, shortened so that the faults of issue 34 play out in seconds:
#: a hung SMTP send gives up after 2 s, a round of three attempts is over in about 10 s
#: (2 s apart, then 4 s), the next round is due 20 s later, a row `sending` for 20 s has
#: lost its worker, and Redis hands a killed worker's unacknowledged task out again after
#: 30 s. Beat's every-minute jobs keep their crontab: a revival waits for the next minute.
SHORT_CLOCKS = {
    "EMAIL_TIMEOUT": "2",
    "NOTIFICATION_RETRY_BACKOFF_SECONDS": "2",
    "NOTIFICATION_ROUND_DELAY_SECONDS": "20",
    "NOTIFICATION_CRITICAL_ROUND_DELAY_SECONDS": "20",
    "NOTIFICATION_SENDING_STALE_SECONDS": "20",
    "CELERY_VISIBILITY_TIMEOUT": "30",
}


@dataclass
class Running:
    logs: Logs
    postgres: Postgres
    redis: Redis
    smtp: Smtp
    stack: Stack
    data: dict[str, Any]


def require_binaries() -> None:
    missing = [
        p for p in (str(PG_BIN / "initdb"), "redis-server", "runuser") if not shutil.which(p)
    ]
    if missing:
        pytest.skip(f"the stack test needs {', '.join(missing)}")


@pytest.fixture(scope="module")
def logs() -> Iterator[Logs]:
    folder = Path(tempfile.mkdtemp(prefix="encore-stack-logs-"))
    yield Logs(folder)
    print(f"stack logs kept in {folder}")


@pytest.fixture(scope="module")
def running(logs: Logs) -> Iterator[Running]:
    require_binaries()
    with contextlib.ExitStack() as cleanup:  # each part is stopped if it was started
        postgres = Postgres(logs)
        cleanup.callback(postgres.destroy)
        redis = Redis(logs)
        cleanup.callback(redis.destroy)
        smtp = Smtp()
        cleanup.callback(smtp.stop)
        var_dir = Path(tempfile.mkdtemp(prefix="encore-stack-var-"))
        cleanup.callback(shutil.rmtree, var_dir, ignore_errors=True)
        postgres.init()
        postgres.start()
        postgres.create_database("encore")
        redis.start()
        smtp.start()
        stack = Stack(logs, postgres.url(), redis, smtp, var_dir, settings=SHORT_CLOCKS)
        stack.prepare()
        cleanup.callback(stack.stop)
        stack.start(only=["beat"])  # its first heartbeat is a minute away: start it first
        data = stack.script("encore.tests.stack.scenario")
        stack.start()
        stack.wait_ready(timeout=READY_SECONDS)
        yield Running(logs, postgres, redis, smtp, stack, data)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    report = yield
    if report.failed:
        found = getattr(item, "funcargs", {}).get("logs") or getattr(item, "funcargs", {}).get(
            "running"
        )
        folder = found if isinstance(found, Logs) else getattr(found, "logs", None)
        if isinstance(folder, Logs):
            report.sections.append(("stack logs", folder.tails()))
    return report
