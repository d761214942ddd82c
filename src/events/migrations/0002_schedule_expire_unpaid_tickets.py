"""Schedule the hourly unpaid-ticket sweep: `events.expire_unpaid_tickets` at minute 15 UTC."""

from django.db import migrations
from django.utils import timezone

TASK = "events.expire_unpaid_tickets"
NAME = "Expire unpaid tickets (hourly, minute 15 UTC)"


def schedule(apps, schema_editor):
    CrontabSchedule = apps.get_model("django_celery_beat", "CrontabSchedule")
    PeriodicTask = apps.get_model("django_celery_beat", "PeriodicTask")
    crontab, _ = CrontabSchedule.objects.get_or_create(
        minute="15",
        hour="*",
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


def _tell_running_beat(apps):
    """django-celery-beat reloads its schedule when this timestamp moves."""
    PeriodicTasks = apps.get_model("django_celery_beat", "PeriodicTasks")
    PeriodicTasks.objects.update_or_create(ident=1, defaults={"last_update": timezone.now()})


def unschedule(apps, schema_editor):
    PeriodicTask = apps.get_model("django_celery_beat", "PeriodicTask")
    PeriodicTask.objects.filter(name=NAME).delete()
    _tell_running_beat(apps)


class Migration(migrations.Migration):
    dependencies = [
        ("events", "0001_initial"),
        ("django_celery_beat", "0019_alter_periodictasks_options"),
    ]

    operations = [migrations.RunPython(schedule, unschedule)]
