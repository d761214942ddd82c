"""Logs, metrics and health: what an operator reads to know the stack works.

Logs go to stderr, one JSON object a line in production (`LOG_FORMAT=json`, the default
when DEBUG is off): the `extra={...}` fields the code passes (event_id, batch_id, ...)
and the request id become keys a log pipeline can filter on. Development may keep
`LOG_FORMAT=text`. `common.request_id` puts the request id on every record.

Metrics: `/metrics` in Prometheus' text format (django-prometheus plus the domain counters
in `common.metrics`), on when `METRICS_ENABLED`; with `METRICS_TOKEN` set it needs
`Authorization: Bearer <token>`. Several processes (gunicorn workers, Celery workers)
add up through `PROMETHEUS_MULTIPROC_DIR`, set by encore/gunicorn.py and scripts/run.sh.

Health: `/health/live` (the process answers) and `/health/ready` (database, broker,
cache, and the beat's heartbeat no older than `HEALTH_BEAT_MAX_AGE_MINUTES`).
"""

import os
from pathlib import Path
from typing import Any

from pythonjsonlogger.core import RESERVED_ATTRS as _LOG_RECORD_ATTRS

from .base import DEBUG
from .env import env_bool, env_int, env_str

LOG_LEVEL = env_str("LOG_LEVEL", "INFO")
LOG_FORMAT = env_str("LOG_FORMAT", "text" if DEBUG else "json")

LOGGING: dict[str, Any] = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"request_id": {"()": "common.request_id.RequestIdLogFilter"}},
    "formatters": {
        "text": {"format": "%(asctime)s %(levelname)s %(name)s [%(request_id)s] %(message)s"},
        "json": {
            "()": "pythonjsonlogger.json.JsonFormatter",
            "fmt": "%(asctime)s %(levelname)s %(name)s %(message)s",
            "rename_fields": {"asctime": "time", "levelname": "level", "name": "logger"},
            # Django's request loggers pass the request object; it is no field to keep.
            "reserved_attrs": [
                *_LOG_RECORD_ATTRS,
                "request",
                "server_time",
            ],
        },
    },
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "formatter": "json" if LOG_FORMAT == "json" else "text",
            "filters": ["request_id"],
        }
    },
    "root": {"handlers": ["console"], "level": LOG_LEVEL},
    "loggers": {"django.db.backends": {"level": "INFO"}},
}

METRICS_ENABLED = env_bool("METRICS_ENABLED", True)
# prometheus_client opens its files in this directory when a metric is made (at import of
# common.metrics); a missing one would stop any process, a `manage.py` command included.
# Settings load first, so making it here is enough for every process of the host.
if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
    Path(os.environ["PROMETHEUS_MULTIPROC_DIR"]).mkdir(parents=True, exist_ok=True)
METRICS_TOKEN = env_str("METRICS_TOKEN")
PROMETHEUS_EXPORT_MIGRATIONS = False

# The beat's heartbeat: django-celery-beat copies this entry into its PeriodicTask table
# when the beat starts and stamps its `last_run_at` each time it sends it; readiness
# reads that stamp. BEAT_SYNC_EVERY = 1 writes the stamp back after every sent task
# (instead of every 3 minutes: one UPDATE, a few times a minute). The message is a no-op
# and expires unconsumed, so a stopped worker never finds a pile of them. A fresh stack
# is ready once the first heartbeat went out (half a minute after the beat starts).
BEAT_HEARTBEAT_SCHEDULE = "encore.beat_heartbeat (every 30 seconds)"
CELERY_BEAT_SCHEDULE = {
    BEAT_HEARTBEAT_SCHEDULE: {
        "task": "encore.beat_heartbeat",
        "schedule": 30.0,
        "options": {"expire_seconds": 30},
    },
    # A broker that came back empty is noticed within seconds (common.broker); a check
    # nobody ran in time is dropped, the next one follows.
    "common.check_broker (every 15 seconds)": {
        "task": "common.check_broker",
        "schedule": 15.0,
        "options": {"expire_seconds": 15},
    },
}
CELERY_BEAT_SYNC_EVERY = 1
HEALTH_BEAT_MAX_AGE_MINUTES = env_int("HEALTH_BEAT_MAX_AGE_MINUTES", 10)
HEALTH_CHECK_TIMEOUT_SECONDS = env_int("HEALTH_CHECK_TIMEOUT_SECONDS", 3)
