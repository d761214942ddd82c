"""Notifications: the Telegram Bot API and delivery retries.

An empty `TELEGRAM_BOT_TOKEN` switches the Telegram channel off (no delivery is even
created for it). `TELEGRAM_API_BASE` is configurable so tests talk to a local stub server.
"""

from .env import env_int, env_str

TELEGRAM_BOT_TOKEN = env_str("TELEGRAM_BOT_TOKEN")
TELEGRAM_API_BASE = env_str("TELEGRAM_API_BASE", "https://api.telegram.org").rstrip("/")
TELEGRAM_TIMEOUT_SECONDS = env_int("TELEGRAM_TIMEOUT_SECONDS", 10)

# First retry of a transient delivery failure waits this long, then it doubles.
NOTIFICATION_RETRY_BACKOFF_SECONDS = env_int("NOTIFICATION_RETRY_BACKOFF_SECONDS", 30)

# A delivery task is stopped after these many seconds (soft: recorded as a transient
# failure and retried; hard: the worker process is replaced). Enforced by the prefork
# pool; under the threads pool the channels' own socket timeouts (EMAIL_TIMEOUT,
# TELEGRAM_TIMEOUT_SECONDS) are the bound. Either way a hung peer cannot hold a worker.
NOTIFICATION_DELIVERY_SOFT_TIME_LIMIT = env_int("NOTIFICATION_DELIVERY_SOFT_TIME_LIMIT", 45)
NOTIFICATION_DELIVERY_TIME_LIMIT = env_int("NOTIFICATION_DELIVERY_TIME_LIMIT", 60)
# How many times the re-dispatch job revives a failed (retries exhausted) delivery of a
# time-critical notification while it is still useful (one round: up to 3 attempts).
NOTIFICATION_MAX_REDISPATCHES = env_int("NOTIFICATION_MAX_REDISPATCHES", 12)
