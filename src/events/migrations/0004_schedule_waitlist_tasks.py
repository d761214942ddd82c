"""Beat schedules of the advanced waitlist (seed-tables "Celery tasks"), UTC crontabs.

The expiry sweeper runs at minute 0, the safety-net nudge at minute 30 so the two never
contend for the same Event rows.
"""

from django.db import migrations

from common.beat_schedules import BEAT_DEPENDENCY, schedule_task, unschedule_tasks

SCHEDULES = {
    "Expire waitlist offers (hourly, minute 0 UTC)": ("events.expire_waitlist_offers", "0"),
    "Nudge open waitlists (hourly, minute 30 UTC)": ("events.nudge_open_waitlists", "30"),
}


def schedule(apps, schema_editor):
    for name, (task, minute) in SCHEDULES.items():
        schedule_task(apps, name=name, task=task, minute=minute)


def unschedule(apps, schema_editor):
    unschedule_tasks(apps, *SCHEDULES)


class Migration(migrations.Migration):
    dependencies = [
        ("events", "0003_advanced_waitlist"),
        BEAT_DEPENDENCY,
    ]

    operations = [migrations.RunPython(schedule, unschedule)]
