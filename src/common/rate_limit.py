"""Counting in time windows, in the shared cache: the one counter every limit uses.

A window opens with the first hit on a key and lasts `window` seconds; every hit adds one
and answers the new count, so "allowed" is simply `count <= limit` and concurrent callers
get distinct counts (exactly `limit` of them are allowed, however the race goes).

On Redis (`CACHE_URL`), each operation is one Lua script: atomic across every process
and never leaves a key without its expiry (Django's own `incr` checks and increments in
two round trips, so a key expiring in between would come back without one, forever).
Other cache backends (the per-process local-memory default) get the same semantics
within one process, which is all they can share anyway.

If Redis cannot be reached the limit lets the request through and logs the error: an
outage of the cache should not take logging in and every write down with it. After a
failure the counters are not asked for a few seconds (`common.circuit`), so a request
pays a Redis time-out once at most.
"""

import contextlib
import logging
import time
from dataclasses import dataclass
from typing import Any

import redis
from django.core.cache import DEFAULT_CACHE_ALIAS, caches
from django.core.cache.backends.base import BaseCache
from django.core.cache.backends.redis import RedisCache

from common.circuit import Breaker

logger = logging.getLogger("encore.throttle")

KEY_PREFIX = "encore-rate"
CACHE = Breaker("the rate-limit counters (cache)")

_HIT = """
local count = redis.call('INCR', KEYS[1])
local ttl = redis.call('TTL', KEYS[1])
if ttl < 0 then
  redis.call('EXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {count, ttl}
"""

# Take one hit back, only while its window is still open (DECR on a missing key would
# create one at -1 with no expiry).
_UNDO = """
if redis.call('EXISTS', KEYS[1]) == 1 then
  return redis.call('DECR', KEYS[1])
end
return 0
"""


@dataclass(frozen=True)
class Window:
    count: int
    retry_after: int  # whole seconds until the window closes, at least 1


def hit(key: str, window: int) -> Window:
    """Count one more hit on `key`; the first hit opens a window of `window` seconds."""
    backend = _backend()
    if isinstance(backend, RedisCache):
        if CACHE.is_open():
            return Window(count=0, retry_after=1)
        try:
            count, ttl = _run(backend, _HIT, key, int(window))
        except redis.RedisError as error:
            CACHE.trip(error)
            logger.exception("rate limit counter unavailable; request let through")
            return Window(count=0, retry_after=1)
        return Window(count=int(count), retry_after=max(int(ttl), 1))
    return _hit_in_process(backend, _key(key), window)


def undo(key: str) -> None:
    """Take back one hit (a reservation that turned out not to count)."""
    backend = _backend()
    if isinstance(backend, RedisCache):
        if CACHE.is_open():
            return
        try:
            _run(backend, _UNDO, key)
        except redis.RedisError as error:
            CACHE.trip(error)
            logger.exception("rate limit counter unavailable; undo skipped")
        return
    with contextlib.suppress(ValueError):  # the window closed meanwhile
        backend.decr(_key(key))


def reset(key: str) -> None:
    """Forget the key's window and count."""
    full_key = _key(key)
    _backend().delete_many([full_key, f"{full_key}:opened"])


def _backend() -> BaseCache:
    return caches[DEFAULT_CACHE_ALIAS]


def _key(key: str) -> str:
    return f"{KEY_PREFIX}:{key}"


def _run(backend: RedisCache, script: str, key: str, *args: int) -> Any:
    """Run a script on the key as Django stores it (KEY_PREFIX and VERSION applied), with
    the redis-py client of Django's RedisCache, so `cache.get` reads the same value."""
    stored = backend.make_and_validate_key(_key(key))
    client = backend._cache.get_client(stored, write=True)  # type: ignore[attr-defined]
    return client.eval(script, 1, stored, *args)


def _hit_in_process(backend: BaseCache, full_key: str, window: int) -> Window:
    now = time.time()
    backend.add(f"{full_key}:opened", now, window)
    backend.add(full_key, 0, window)
    try:
        count = backend.incr(full_key)
    except ValueError:  # the window closed between add and incr: open a new one
        backend.set(f"{full_key}:opened", now, window)
        backend.set(full_key, 1, window)
        count = 1
    opened = float(backend.get(f"{full_key}:opened", now))
    return Window(count=int(count), retry_after=max(int(opened + window - now + 0.999), 1))
