"""The Celery application; tasks are discovered in each app's `tasks` module."""

import os

from celery import Celery
from celery.signals import before_task_publish, setup_logging, task_postrun, task_prerun

from common import request_id

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "encore.settings")

app = Celery("encore")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@setup_logging.connect
def use_django_logging(**_: object) -> None:
    """Workers and beat log like the web processes (settings.LOGGING: JSON in production,
    with the `extra` fields and the request id), instead of Celery's own text format."""
    from logging.config import dictConfig

    from django.conf import settings

    dictConfig(settings.LOGGING)


# A task enqueued while serving a request logs with that request's id.
before_task_publish.connect(request_id.add_to_task_headers, weak=False)
task_prerun.connect(request_id.bind_from_task, weak=False)
task_postrun.connect(request_id.forget, weak=False)


@app.task(name="encore.beat_heartbeat", ignore_result=True)
def beat_heartbeat() -> None:
    """Nothing to do: the beat stamps this schedule's `last_run_at` when it sends it, and
    `/health/ready` reads that stamp (settings.observability: CELERY_BEAT_SCHEDULE)."""
