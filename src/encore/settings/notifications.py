"""Notifications: the Telegram Bot API and delivery retries.

An empty `TELEGRAM_BOT_TOKEN` switches the Telegram channel off (no delivery is even
created for it). `TELEGRAM_API_BASE` is configurable so tests talk to a local stub server.
"""

from .env import env_int, env_str

TELEGRAM_BOT_TOKEN = env_str("TELEGRAM_BOT_TOKEN")
TELEGRAM_API_BASE = env_str("TELEGRAM_API_BASE", "https://api.telegram.org").rstrip("/")
TELEGRAM_TIMEOUT_SECONDS = env_int("TELEGRAM_TIMEOUT_SECONDS", 10)

# A round of attempts: the first, then two retries 1× and 2× this base apart (seconds).
NOTIFICATION_RETRY_BACKOFF_SECONDS = env_int("NOTIFICATION_RETRY_BACKOFF_SECONDS", 30)

# A delivery task is stopped after these many seconds (soft: recorded as a transient
# failure and retried; hard: the worker process is replaced). Enforced by the prefork
# pool; under the threads pool the channels' own socket timeouts (EMAIL_TIMEOUT,
# TELEGRAM_TIMEOUT_SECONDS) are the bound. Either way a hung peer cannot hold a worker.
NOTIFICATION_DELIVERY_SOFT_TIME_LIMIT = env_int("NOTIFICATION_DELIVERY_SOFT_TIME_LIMIT", 45)
NOTIFICATION_DELIVERY_TIME_LIMIT = env_int("NOTIFICATION_DELIVERY_TIME_LIMIT", 60)

# After a round failed for a transient reason (the mail server is down), the next round is
# due this long later, doubling each round up to the cap; time-critical types (an offer)
# wait less. A delivery is given up only this many hours after its notification was
# written, failed with its reason and listed to the organiser (ADR 0036).
NOTIFICATION_RETRY_FOR_HOURS = env_int("NOTIFICATION_RETRY_FOR_HOURS", 24)
NOTIFICATION_ROUND_DELAY_SECONDS = env_int("NOTIFICATION_ROUND_DELAY_SECONDS", 300)
NOTIFICATION_ROUND_DELAY_MAX_SECONDS = env_int("NOTIFICATION_ROUND_DELAY_MAX_SECONDS", 3600)
NOTIFICATION_CRITICAL_ROUND_DELAY_SECONDS = env_int("NOTIFICATION_CRITICAL_ROUND_DELAY_SECONDS", 60)
NOTIFICATION_CRITICAL_ROUND_DELAY_MAX_SECONDS = env_int(
    "NOTIFICATION_CRITICAL_ROUND_DELAY_MAX_SECONDS", 300
)
# A row `sending` this long lost its worker (killed mid-send): it is tried again. Keep it
# well above the longest send (EMAIL_TIMEOUT per SMTP step, the delivery time limits).
NOTIFICATION_SENDING_STALE_SECONDS = env_int("NOTIFICATION_SENDING_STALE_SECONDS", 600)
