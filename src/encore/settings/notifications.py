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
