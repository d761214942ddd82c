"""Schedule `notifications.redispatch_stranded_deliveries` at minutes 10, 25, 40 and 55
UTC: deliveries left pending by a broker outage get their task again."""

from django.db import migrations

from common.beat_schedules import BEAT_DEPENDENCY, schedule_task, unschedule_tasks

NAME = "Re-dispatch stranded notification deliveries (every 15 minutes)"


def schedule(apps, schema_editor):
    schedule_task(apps, name=NAME, task="notifications.redispatch_stranded_deliveries", minute="10,25,40,55")


def unschedule(apps, schema_editor):
    unschedule_tasks(apps, NAME)


class Migration(migrations.Migration):
    dependencies = [
        ("notifications", "0002_notification_in_app"),
        BEAT_DEPENDENCY,
    ]

    operations = [migrations.RunPython(schedule, unschedule)]
