"""Schedule the resend of lost waitlist offer notifications:
`events.resend_waitlist_offer_notifications` at minutes 5, 20, 35 and 50 UTC, clear of
the sweep (0), the unpaid-ticket expiry (15) and the nudge (30)."""

from django.db import migrations
from django.utils import timezone

TASK = "events.resend_waitlist_offer_notifications"
NAME = "Resend lost waitlist offer notifications (every 15 minutes)"


def schedule(apps, schema_editor):
    CrontabSchedule = apps.get_model("django_celery_beat", "CrontabSchedule")
    PeriodicTask = apps.get_model("django_celery_beat", "PeriodicTask")
    crontab, _ = CrontabSchedule.objects.get_or_create(
        minute="5,20,35,50",
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
        ("events", "0007_schedule_series_generation"),
        ("django_celery_beat", "0019_alter_periodictasks_options"),
    ]

    operations = [migrations.RunPython(schedule, unschedule)]
