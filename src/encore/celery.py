"""The Celery application; tasks are discovered in each app's `tasks` module."""

import os

from celery import Celery
from celery.signals import before_task_publish, task_prerun

from common import request_id

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "encore.settings")

app = Celery("encore")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()

# A task enqueued while serving a request logs with that request's id.
before_task_publish.connect(request_id.add_to_task_headers, weak=False)
task_prerun.connect(request_id.bind_from_task, weak=False)


@app.task(name="encore.beat_heartbeat", ignore_result=True)
def beat_heartbeat() -> None:
    """Nothing to do: the beat stamps this schedule's `last_run_at` when it sends it, and
    `/health/ready` reads that stamp (settings.observability: CELERY_BEAT_SCHEDULE)."""
