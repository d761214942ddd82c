"""Abuse limits: who the client is behind proxies, and how many failed log-ins it gets.

`THROTTLE_ENABLED` and `WRITE_THROTTLE_RATE` live in `api` (the write throttle);
`THROTTLE_ENABLED=false` also switches the log-in limits below off. The counters live in
the default cache, so they hold across processes only when `CACHE_URL` names a Redis
server (docs/architecture/abuse.md).
"""

from .env import env_int

# How many reverse proxies of ours stand in front of the app. 0 (the default): the client
# is REMOTE_ADDR and X-Forwarded-For is ignored, because anyone can send that header.
# n > 0: the client is the n-th address from the right of X-Forwarded-For (each of our n
# proxies appends the address it received the request from).
TRUSTED_PROXY_COUNT = env_int("TRUSTED_PROXY_COUNT", 0)
# django-ninja's and ninja-extra's own throttles read these; keep them in agreement with
# common.client_ip so any throttle class sees the same client.
NINJA_NUM_PROXIES = TRUSTED_PROXY_COUNT
NINJA_EXTRA = {"NUM_PROXIES": TRUSTED_PROXY_COUNT}

# Failed log-ins (API and admin) allowed per account and per client IP in one window.
LOGIN_FAILURES_PER_ACCOUNT = env_int("LOGIN_FAILURES_PER_ACCOUNT", 10)
LOGIN_FAILURES_PER_IP = env_int("LOGIN_FAILURES_PER_IP", 30)
LOGIN_FAILURE_WINDOW_SECONDS = env_int("LOGIN_FAILURE_WINDOW_SECONDS", 15 * 60)

# At most one "someone tried to register with your address" e-mail per address in this
# many seconds, so repeated sign-ups cannot be used to flood someone's mailbox.
REGISTRATION_NOTICE_INTERVAL_SECONDS = env_int("REGISTRATION_NOTICE_INTERVAL_SECONDS", 60 * 60)
