"""Schedule `common.flush_outbox` every minute: tasks the broker refused (it was down)
are published as soon as it is back."""

from django.db import migrations

from common.beat_schedules import BEAT_DEPENDENCY, schedule_task, unschedule_tasks

NAME = "Publish tasks the broker refused (every minute)"


def schedule(apps, schema_editor):
    schedule_task(apps, name=NAME, task="common.flush_outbox", minute="*")


def unschedule(apps, schema_editor):
    unschedule_tasks(apps, NAME)


class Migration(migrations.Migration):
    dependencies = [
        ("common", "0001_initial"),
        BEAT_DEPENDENCY,
    ]

    operations = [migrations.RunPython(schedule, unschedule)]
