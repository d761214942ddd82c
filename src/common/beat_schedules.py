"""Periodic-task schedules written by data migrations (django-celery-beat), UTC crontabs.

Every app creates its beat schedules in data migrations; this is the one way they do
it. It works on the historical models a migration passes in (`apps`), never on today's,
so changing a model cannot change what an old migration does. Keep the signatures:
migrations import them.
"""

from typing import Any

from django.utils import timezone

BEAT_DEPENDENCY = ("django_celery_beat", "0019_alter_periodictasks_options")


def schedule_task(apps: Any, *, name: str, task: str, minute: str, hour: str = "*") -> None:
    """Create or update the named periodic task on a UTC crontab; tell a running beat."""
    crontab_model = apps.get_model("django_celery_beat", "CrontabSchedule")
    task_model = apps.get_model("django_celery_beat", "PeriodicTask")
    crontab, _ = crontab_model.objects.get_or_create(
        minute=minute,
        hour=hour,
        day_of_week="*",
        day_of_month="*",
        month_of_year="*",
        timezone="UTC",
    )
    task_model.objects.update_or_create(
        name=name, defaults={"task": task, "crontab": crontab, "interval": None, "enabled": True}
    )
    _tell_running_beat(apps)


def unschedule_tasks(apps: Any, *names: str) -> None:
    apps.get_model("django_celery_beat", "PeriodicTask").objects.filter(name__in=names).delete()
    _tell_running_beat(apps)


def _tell_running_beat(apps: Any) -> None:
    """django-celery-beat reloads its schedule when this timestamp moves."""
    changes = apps.get_model("django_celery_beat", "PeriodicTasks")
    changes.objects.update_or_create(ident=1, defaults={"last_update": timezone.now()})
