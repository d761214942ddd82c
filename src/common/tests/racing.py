"""One way to race: run callables in threads released together, collect what each did.

Race tests (PostgreSQL row locks, the shared-cache counter) all need the same harness:
a barrier so every racer starts at once, the thread's own database connection closed
when it ends (each thread opened one), a bounded join so a deadlock fails the test
instead of hanging it, and every racer's outcome, an exception included, kept for the
assertions.

Test processes run side by side (pytest-xdist) against one PostgreSQL server that takes
100 connections, and every racer opens one: a crowd of racers waits for the run-wide
crowd lock, so two crowds never meet on the server.
"""

import fcntl
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

from django.db import connection
from django.test import Client

T = TypeVar("T")

# Up to this many racers need no lock: every test process may hold that many connections
# at once beside its own and its live server's.
SMALL_RACE = 8
CROWD_LOCK = Path(tempfile.gettempdir()) / "encore-test-crowd.lock"
BUSY_RETRIES = 10


@contextmanager
def crowd_of(size: int) -> Iterator[None]:
    """Hold the machine-wide crowd lock while `size` racers run, when they are a crowd."""
    if size <= SMALL_RACE:
        yield
        return
    with CROWD_LOCK.open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        yield


def run_together(jobs: Sequence[Callable[[], T]], *, timeout: float = 120.0) -> list[T | Exception]:
    """Each job in its own thread, all released at once; their results in job order (an
    exception a job raised stands in its place). Fails if a thread is still running
    after `timeout` seconds."""
    barrier = threading.Barrier(len(jobs))
    results: list[T | Exception] = [RuntimeError("job did not run")] * len(jobs)

    def run(index: int, job: Callable[[], T]) -> None:
        try:
            barrier.wait(timeout=timeout)
            results[index] = job()
        except Exception as exc:  # kept, so the caller's assertions show it
            results[index] = exc
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=pair) for pair in enumerate(jobs)]
    with crowd_of(len(jobs)):
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=timeout)
    assert not any(thread.is_alive() for thread in threads), "a racer is still running"
    return results


def post_together(
    posts: Sequence[tuple[str, str, Any]], *, timeout: float = 120.0
) -> list[tuple[int, str | None]]:
    """POST each (path, access token, JSON body) from its own thread, client and
    connection, all released at once: (status, error code) per post, in order. A 503
    `busy` (a lock wait ran out) is an answer clients are told to retry, so each retries
    it a few times; an exception fails the race."""

    def post(path: str, token: str, body: Any) -> tuple[int, str | None]:
        client = Client(headers={"Authorization": f"Bearer {token}"})
        for attempt in range(BUSY_RETRIES):
            response = client.post(path, body, content_type="application/json")
            if response.status_code != 503:
                break
            time.sleep(0.05 * (attempt + 1))
        return response.status_code, response.json().get("code")

    jobs = [lambda args=args: post(*args) for args in posts]
    return succeeded(run_together(jobs, timeout=timeout))


def succeeded(results: Sequence[T | Exception]) -> list[T]:
    """The results of a race where no job may fail: re-raises the first failure."""
    for result in results:
        if isinstance(result, Exception):
            raise result
    return list(results)  # type: ignore[arg-type]  # no Exception left, as checked above


def a_backend_waits_on_a_lock(timeout: float = 10.0) -> bool:
    """True once another connection of this database waits on a lock (PostgreSQL):
    a test that holds a lock on one connection knows the race it staged is under way.
    Inside a transaction the server keeps its first view of the activity table, so each
    look clears it."""
    deadline = time.monotonic() + timeout
    with connection.cursor() as cursor:
        while time.monotonic() < deadline:
            cursor.execute("SELECT pg_stat_clear_snapshot()")
            cursor.execute(
                "SELECT count(*) FROM pg_stat_activity"
                " WHERE datname = current_database() AND wait_event_type = 'Lock'"
            )
            if cursor.fetchone()[0]:
                return True
            time.sleep(0.01)
    return False
