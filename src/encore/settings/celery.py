"""Celery: Redis when CELERY_BROKER_URL is set, else the embedded filesystem transport.

See docs/adr/0002-embedded-broker.md for why the embedded default is kombu's
filesystem transport (a real worker and beat, no server to install).
"""

from kombu import Exchange, Queue

from .base import VAR_DIR
from .env import env_bool, env_int, env_str

# The host part means nothing to the filesystem transport; naming it keeps kombu quiet.
CELERY_BROKER_URL = env_str("CELERY_BROKER_URL") or "filesystem://localhost//"
# Redis hands a message that a worker took but never acknowledged to another worker after
# this many seconds (kombu's `visibility_timeout`): a task whose worker was killed is redone
# then (tasks are acknowledged late, below). It must exceed the longest a worker keeps a
# message in hand: the longest task (a delivery is stopped after
# NOTIFICATION_DELIVERY_TIME_LIMIT, 60 s; a series generation pass takes seconds) and the
# longest wait for an ETA, which `ETA_HOP_SECONDS` bounds. Shorter, a message still in
# hand would be handed out again and run twice; longer, a killed worker's task waits.
CELERY_VISIBILITY_TIMEOUT = env_int("CELERY_VISIBILITY_TIMEOUT", 900)
#: The longest ETA a task is sent with: a later deadline is reached in hops of this, each
#: task sending itself again for what is left (ADR 0019), well inside the visibility time-out.
ETA_HOP_SECONDS = CELERY_VISIBILITY_TIMEOUT * 2 // 3
# A publish to a Redis that is down must cost a request well under a second (ADR 0037):
# one connection attempt (kombu retries a refused one after 2 s by default), bounded
# connect and socket waits. A refused publish is kept in the outbox.
REDIS_BROKER_TRANSPORT_OPTIONS: dict[str, object] = {
    "visibility_timeout": CELERY_VISIBILITY_TIMEOUT,
    "max_retries": 0,
    "socket_connect_timeout": 0.5,
    "socket_timeout": 0.4,
    # A killed worker's messages are looked for every 30 s (kombu's default: 100 s).
    "unacked_restore_interval": 10,
    "unacked_restore_throttle": 3,
}
CELERY_BROKER_TRANSPORT_OPTIONS = REDIS_BROKER_TRANSPORT_OPTIONS
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
# Acknowledged once done, so a task whose worker dies is redone (after the visibility
# time-out): every task is idempotent, but for the one that says otherwise (`acks_late`).
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
    "common.check_broker": {"queue": CRITICAL_QUEUE},
    "events.recover_lost_waitlist_tasks": {"queue": CRITICAL_QUEUE},
    "events.resend_lost_rsvp_confirmations": {"queue": CRITICAL_QUEUE},
    "notifications.redispatch_pending_deliveries": {"queue": CRITICAL_QUEUE},
    # The channel sends of time-critical types (`NotificationSpec.time_critical`):
    # dispatch picks this task instead of `notifications.deliver` for them; its retries
    # are the same task, so they stay on `notify` too.
    "notifications.deliver_critical": {"queue": NOTIFY_QUEUE},
    "accounts.*": {"queue": BULK_QUEUE},
    "notifications.*": {"queue": BULK_QUEUE},
    "events.*": {"queue": BULK_QUEUE},
    "common.*": {"queue": BULK_QUEUE},
}

# What each app publishes again from the database after the broker lost its messages
# (`common.broker`, ADR 0037): the waitlist's passes, offer expiries and offer
# notifications; the RSVP confirmations; the pending notification deliveries.
RECOVERY_TASKS_AFTER_BROKER_LOSS = [
    "events.recover_lost_waitlist_tasks",
    "events.resend_lost_rsvp_confirmations",
    "notifications.redispatch_pending_deliveries",
]
