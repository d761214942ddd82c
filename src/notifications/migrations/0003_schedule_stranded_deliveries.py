"""Schedule `notifications.redispatch_stranded_deliveries` at minutes 10, 25, 40 and 55
UTC: deliveries left pending by a broker outage get their task again."""

from django.db import migrations
from django.utils import timezone

TASK = "notifications.redispatch_stranded_deliveries"
NAME = "Re-dispatch stranded notification deliveries (every 15 minutes)"


def schedule(apps, schema_editor):
    CrontabSchedule = apps.get_model("django_celery_beat", "CrontabSchedule")
    PeriodicTask = apps.get_model("django_celery_beat", "PeriodicTask")
    crontab, _ = CrontabSchedule.objects.get_or_create(
        minute="10,25,40,55",
        hour="*",
        day_of_week="*",
        day_of_month="*",
        month_of_year="*",
        timezone="UTC",
    )
    PeriodicTask.objects.update_or_create(
        name=NAME, defaults={"task": TASK, "crontab": crontab, "interval": None, "enabled": True}
    )
    _touch_beat(apps)


def unschedule(apps, schema_editor):
    apps.get_model("django_celery_beat", "PeriodicTask").objects.filter(name=NAME).delete()
    _touch_beat(apps)


def _touch_beat(apps):
    """A running beat reloads its schedule when this timestamp moves."""
    PeriodicTasks = apps.get_model("django_celery_beat", "PeriodicTasks")
    PeriodicTasks.objects.update_or_create(ident=1, defaults={"last_update": timezone.now()})


class Migration(migrations.Migration):
    dependencies = [
        ("notifications", "0002_notification_in_app"),
        ("django_celery_beat", "0019_alter_periodictasks_options"),
    ]

    operations = [migrations.RunPython(schedule, unschedule)]
