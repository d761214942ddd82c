"""Beat schedules of the advanced waitlist (seed-tables "Celery tasks"), UTC crontabs.

The expiry sweeper runs at minute 0, the safety-net nudge at minute 30 so the two never
contend for the same Event rows.
"""

from django.db import migrations
from django.utils import timezone

SCHEDULES = {
    "Expire waitlist offers (hourly, minute 0 UTC)": ("events.expire_waitlist_offers", "0"),
    "Nudge open waitlists (hourly, minute 30 UTC)": ("events.nudge_open_waitlists", "30"),
}


def schedule(apps, schema_editor):
    CrontabSchedule = apps.get_model("django_celery_beat", "CrontabSchedule")
    PeriodicTask = apps.get_model("django_celery_beat", "PeriodicTask")
    for name, (task, minute) in SCHEDULES.items():
        crontab, _ = CrontabSchedule.objects.get_or_create(
            minute=minute, hour="*", day_of_week="*", day_of_month="*", month_of_year="*", timezone="UTC"
        )
        PeriodicTask.objects.update_or_create(
            name=name, defaults={"task": task, "crontab": crontab, "interval": None, "enabled": True}
        )
    touch_beat(apps)


def unschedule(apps, schema_editor):
    apps.get_model("django_celery_beat", "PeriodicTask").objects.filter(name__in=SCHEDULES).delete()
    touch_beat(apps)


def touch_beat(apps):
    """A running beat reloads its schedule when this timestamp moves."""
    PeriodicTasks = apps.get_model("django_celery_beat", "PeriodicTasks")
    PeriodicTasks.objects.update_or_create(ident=1, defaults={"last_update": timezone.now()})


class Migration(migrations.Migration):
    dependencies = [
        ("events", "0003_advanced_waitlist"),
        ("django_celery_beat", "0019_alter_periodictasks_options"),
    ]

    operations = [migrations.RunPython(schedule, unschedule)]
