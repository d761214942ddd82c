"""The Redis database tests use as a shared cache: CACHE_URL when it names Redis (CI, the
helpers' runs), else a database number of our own (never 0, the usual broker)."""

import os
import zlib

import pytest
import redis


def redis_cache_url() -> str:
    configured = os.environ.get("CACHE_URL", "")
    if configured.startswith("redis://"):
        return configured
    return f"redis://127.0.0.1:6379/{zlib.crc32(b'encore-rate-limit') % 15 + 1}"


def require_redis(url: str) -> None:
    """Skip (with the reason) when Redis is not there; `worker`-marked tests may not skip
    on the CI run (src/conftest.py REQUIRED_MARKERS), so there this fails the run."""
    try:
        redis.Redis.from_url(url, socket_connect_timeout=2).ping()
    except redis.RedisError as exc:
        pytest.skip(f"Redis is unreachable at {url} ({exc}); this test needs a real one")
