"""System checks for settings a production start should not run without."""

from typing import Any

from django.conf import settings
from django.core import checks


@checks.register(checks.Tags.caches)
def shared_cache_in_production(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    """Throttles count in the cache: a per-process cache lets N workers allow N times the limit."""
    backend = str(settings.CACHES["default"]["BACKEND"])
    if settings.DEBUG or not backend.endswith(("LocMemCache", "DummyCache")):
        return []
    return [
        checks.Warning(
            "CACHE_URL is not set: each process keeps its own cache, so with several web "
            "processes every rate limit allows that many times its rate.",
            hint="Set CACHE_URL=redis://host:6379/1 (the Redis the broker uses will do).",
            id="encore.W001",
        )
    ]
