"""Run `notifications.redispatch_stranded_deliveries` every 5 minutes instead of 15: it now
also revives failed deliveries of time-critical notifications (an offer e-mail lost to an
SMTP outage), and an offer's window is counted in minutes to hours."""

from django.db import migrations

from common.beat_schedules import BEAT_DEPENDENCY, schedule_task, unschedule_tasks

OLD_NAME = "Re-dispatch stranded notification deliveries (every 15 minutes)"
NAME = "Re-dispatch stranded and failed time-critical deliveries (every 5 minutes)"
TASK = "notifications.redispatch_stranded_deliveries"


def forward(apps, schema_editor):
    unschedule_tasks(apps, OLD_NAME)
    schedule_task(apps, name=NAME, task=TASK, minute="*/5")


def backward(apps, schema_editor):
    unschedule_tasks(apps, NAME)
    schedule_task(apps, name=OLD_NAME, task=TASK, minute="10,25,40,55")


class Migration(migrations.Migration):
    dependencies = [
        ("notifications", "0004_delivery_revival"),
        BEAT_DEPENDENCY,
    ]

    operations = [migrations.RunPython(forward, backward)]
