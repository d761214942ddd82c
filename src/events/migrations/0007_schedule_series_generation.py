"""Schedule the daily generation of recurring series: `events.generate_recurring_events`
at 04:00 UTC (seed-tables.md "When generation runs")."""

from django.db import migrations
from django.utils import timezone

TASK = "events.generate_recurring_events"
NAME = "Generate recurring events (daily, 04:00 UTC)"


def schedule(apps, schema_editor):
    CrontabSchedule = apps.get_model("django_celery_beat", "CrontabSchedule")
    PeriodicTask = apps.get_model("django_celery_beat", "PeriodicTask")
    crontab, _ = CrontabSchedule.objects.get_or_create(
        minute="0",
        hour="4",
        day_of_week="*",
        day_of_month="*",
        month_of_year="*",
        timezone="UTC",
    )
    PeriodicTask.objects.update_or_create(
        name=NAME,
        defaults={"task": TASK, "crontab": crontab, "interval": None, "enabled": True},
    )
    _tell_running_beat(apps)


def unschedule(apps, schema_editor):
    apps.get_model("django_celery_beat", "PeriodicTask").objects.filter(name=NAME).delete()
    _tell_running_beat(apps)


def _tell_running_beat(apps):
    """django-celery-beat reloads its schedule when this timestamp moves."""
    PeriodicTasks = apps.get_model("django_celery_beat", "PeriodicTasks")
    PeriodicTasks.objects.update_or_create(ident=1, defaults={"last_update": timezone.now()})


class Migration(migrations.Migration):
    dependencies = [
        ("events", "0006_recurring_series"),
        ("django_celery_beat", "0019_alter_periodictasks_options"),
    ]

    operations = [migrations.RunPython(schedule, unschedule)]
