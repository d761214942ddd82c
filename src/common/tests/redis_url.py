"""The Redis databases tests use, one set per test process.

A broker database is a queue: a Celery worker started by one test takes any message in
it. Under pytest-xdist several test processes run at once, so each takes its own
database numbers (`for_this_process`): broker tests from the run's broker database up,
cache tests from the cache database up. Never 0 for a cache (the usual broker).
"""

import os
import zlib
from urllib.parse import urlsplit, urlunsplit

import pytest
import redis

from common.tests.ports import MAX_PROCESSES, process_index

#: The caches' databases start here (the broker's at the run's, 0 on CI), one per process.
CACHE_BASE = 16 - MAX_PROCESSES


def for_this_process(url: str) -> str:
    """`url` with its database number moved up by this test process's index."""
    parts = urlsplit(url)
    number = int(parts.path.strip("/") or 0) + process_index()
    if number > 15:
        raise ValueError(f"{url}: no Redis database left for test process {process_index()}")
    return urlunsplit(parts._replace(path=f"/{number}"))


def redis_cache_url() -> str:
    """CACHE_URL when it names Redis (CI, the helpers' runs), else a database of our own."""
    configured = os.environ.get("CACHE_URL", "")
    base = (
        configured if configured.startswith("redis://") else f"redis://127.0.0.1:6379/{CACHE_BASE}"
    )
    return for_this_process(base)


def redis_broker_url(test_database_name: str) -> str:
    """The run's Redis broker if it names one (CI does), else a database of our own.

    Without one, the number comes from the test database's name, so parallel runs with
    their own databases do not share a queue (a worker of another run would take ours).
    """
    configured = os.environ.get("CELERY_BROKER_URL", "")
    if configured.startswith("redis://"):
        return for_this_process(configured)
    number = zlib.crc32(test_database_name.encode()) % (CACHE_BASE - MAX_PROCESSES) + 1
    return for_this_process(f"redis://127.0.0.1:6379/{number}")


def require_redis(url: str) -> None:
    """Skip (with the reason) when Redis is not there; `worker`-marked tests may not skip
    on the CI run (src/conftest.py REQUIRED_MARKERS), so there this fails the run."""
    try:
        redis.Redis.from_url(url, socket_connect_timeout=2).ping()
    except redis.RedisError as exc:
        pytest.skip(f"Redis is unreachable at {url} ({exc}); this test needs a real one")
