"""Schedule the daily generation of recurring series: `events.generate_recurring_events`
at 04:00 UTC (docs/spec/seed-tables.md "When generation runs")."""

from django.db import migrations

from common.beat_schedules import BEAT_DEPENDENCY, schedule_task, unschedule_tasks

NAME = "Generate recurring events (daily, 04:00 UTC)"


def schedule(apps, schema_editor):
    schedule_task(apps, name=NAME, task="events.generate_recurring_events", minute="0", hour="4")


def unschedule(apps, schema_editor):
    unschedule_tasks(apps, NAME)


class Migration(migrations.Migration):
    dependencies = [
        ("events", "0006_recurring_series"),
        BEAT_DEPENDENCY,
    ]

    operations = [migrations.RunPython(schedule, unschedule)]
