"""The Celery application; tasks are discovered in each app's `tasks` module."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "encore.settings")

app = Celery("encore")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
