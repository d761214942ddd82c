"""Limits the API's request guards enforce (common.http.guards, ADR 0009)."""

from .env import env_int

#: A request body under /api larger than this is refused with 413 `too_large` (1 MiB).
API_MAX_BODY_BYTES = env_int("API_MAX_BODY_BYTES", 1024 * 1024)
