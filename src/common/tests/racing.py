"""One way to race: run callables in threads released together, collect what each did.

Race tests (PostgreSQL row locks, the shared-cache counter) all need the same harness:
a barrier so every racer starts at once, the thread's own database connection closed
when it ends (each thread opened one), a bounded join so a deadlock fails the test
instead of hanging it, and every racer's outcome, an exception included, kept for the
assertions.
"""

import threading
import time
from collections.abc import Callable, Sequence
from typing import TypeVar

from django.db import connection

T = TypeVar("T")


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
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=timeout)
    assert not any(thread.is_alive() for thread in threads), "a racer is still running"
    return results


def succeeded(results: Sequence[T | Exception]) -> list[T]:
    """The results of a race where no job may fail: re-raises the first failure."""
    for result in results:
        if isinstance(result, Exception):
            raise result
    return list(results)  # type: ignore[arg-type]  # no Exception left, as checked above


def a_backend_waits_on_a_lock(timeout: float = 10.0) -> bool:
    """True once another connection of this database waits on a lock (PostgreSQL):
    a test that holds a lock on one connection knows the race it staged is under way."""
    deadline = time.monotonic() + timeout
    with connection.cursor() as cursor:
        while time.monotonic() < deadline:
            cursor.execute(
                "SELECT count(*) FROM pg_stat_activity"
                " WHERE datname = current_database() AND wait_event_type = 'Lock'"
            )
            if cursor.fetchone()[0]:
                return True
            time.sleep(0.01)
    return False
