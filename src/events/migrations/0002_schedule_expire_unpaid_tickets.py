"""Schedule the hourly unpaid-ticket sweep: `events.expire_unpaid_tickets` at minute 15 UTC."""

from django.db import migrations

from common.beat_schedules import BEAT_DEPENDENCY, schedule_task, unschedule_tasks

NAME = "Expire unpaid tickets (hourly, minute 15 UTC)"


def schedule(apps, schema_editor):
    schedule_task(apps, name=NAME, task="events.expire_unpaid_tickets", minute="15")


def unschedule(apps, schema_editor):
    unschedule_tasks(apps, NAME)


class Migration(migrations.Migration):
    dependencies = [
        ("events", "0001_initial"),
        BEAT_DEPENDENCY,
    ]

    operations = [migrations.RunPython(schedule, unschedule)]
