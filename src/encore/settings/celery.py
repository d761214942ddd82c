"""Celery: Redis when CELERY_BROKER_URL is set, else the embedded filesystem transport.

See docs/adr/0002-embedded-broker.md for why the embedded default is kombu's
filesystem transport (a real worker and beat, no server to install).
"""

from kombu import Exchange, Queue

from .base import VAR_DIR
from .env import env_bool, env_str

# The host part means nothing to the filesystem transport; naming it keeps kombu quiet.
CELERY_BROKER_URL = env_str("CELERY_BROKER_URL") or "filesystem://localhost//"
CELERY_BROKER_TRANSPORT_OPTIONS: dict[str, object] = {}
if CELERY_BROKER_URL.startswith("filesystem://"):
    _broker_dir = VAR_DIR / "broker"
    for _sub in ("in", "processed", "control"):
        (_broker_dir / _sub).mkdir(parents=True, exist_ok=True)
    # Producers and the worker share one folder of message files. `control_folder` holds
    # the fanout bindings (remote control); kombu's default is `./control` relative to
    # the working directory, which would scatter it and split producers from the worker.
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(_broker_dir / "in"),
        "data_folder_out": str(_broker_dir / "in"),
        "processed_folder": str(_broker_dir / "processed"),
        "control_folder": str(_broker_dir / "control"),
        "store_processed": False,
    }

CELERY_TASK_ALWAYS_EAGER = env_bool("CELERY_TASK_ALWAYS_EAGER", False)
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TASK_IGNORE_RESULT = True
CELERY_RESULT_BACKEND = None
CELERY_TIMEZONE = "UTC"
CELERY_ENABLE_UTC = True
CELERY_TASK_ACKS_LATE = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# A request must never hang because the broker is down: fail fast and let the nudge recover.
CELERY_BROKER_CONNECTION_TIMEOUT = 2
CELERY_TASK_PUBLISH_RETRY = False
CELERY_BEAT_SCHEDULER = "django_celery_beat.schedulers:DatabaseScheduler"

# -- three queues (docs/adr/0012-two-queues-and-an-outbox.md) --------------------------------
# `critical`: database work whose delay costs a seat and that never waits on a network
# peer (waitlist passes, the offers' notification rows, sweeps, nudge, the offers' safety
# nets, the outbox flush). `notify`: the channel sends of time-critical types (the offer
# e-mail), which do wait on a peer: a hung SMTP server holds a `notify` thread for up to
# EMAIL_TIMEOUT, never a `critical` one. `bulk`: everything else, the default for any
# task not named here (fan-outs, digests, password-reset mail, series generation, sweeps
# of unpaid tickets, re-dispatch jobs). Each queue has its own worker(s). All three are
# declared, so a worker started without `-Q` consumes them all and nothing routed to
# `critical` or `notify` is left unconsumed.
CRITICAL_QUEUE = "critical"
NOTIFY_QUEUE = "notify"
BULK_QUEUE = "bulk"
CELERY_TASK_DEFAULT_QUEUE = BULK_QUEUE
CELERY_TASK_QUEUES = [
    Queue(name, Exchange(name), routing_key=name)
    for name in (CRITICAL_QUEUE, NOTIFY_QUEUE, BULK_QUEUE)
]
CELERY_TASK_CREATE_MISSING_QUEUES = False
CELERY_TASK_ROUTES = {
    "events.process_waitlist_for_event": {"queue": CRITICAL_QUEUE},
    "events.send_waitlist_offer_notification": {"queue": CRITICAL_QUEUE},
    "events.resend_waitlist_offer_notifications": {"queue": CRITICAL_QUEUE},
    "events.expire_waitlist_offers": {"queue": CRITICAL_QUEUE},
    "events.expire_event_offers": {"queue": CRITICAL_QUEUE},
    "events.nudge_open_waitlists": {"queue": CRITICAL_QUEUE},
    "events.send_offer_expired_notifications": {"queue": CRITICAL_QUEUE},
    # Re-publishes whatever the broker refused, critical work included: it must not wait
    # behind bulk work itself.
    "common.flush_outbox": {"queue": CRITICAL_QUEUE},
    # The channel sends of time-critical types (`NotificationSpec.time_critical`):
    # dispatch picks this task instead of `notifications.deliver` for them; its retries
    # are the same task, so they stay on `notify` too.
    "notifications.deliver_critical": {"queue": NOTIFY_QUEUE},
    "accounts.*": {"queue": BULK_QUEUE},
    "notifications.*": {"queue": BULK_QUEUE},
    "events.*": {"queue": BULK_QUEUE},
    "common.*": {"queue": BULK_QUEUE},
}
