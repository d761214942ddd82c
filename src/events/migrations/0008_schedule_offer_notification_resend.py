"""Schedule the resend of lost waitlist offer notifications:
`events.resend_waitlist_offer_notifications` at minutes 5, 20, 35 and 50 UTC, clear of
the sweep (0), the unpaid-ticket expiry (15) and the nudge (30)."""

from django.db import migrations

from common.beat_schedules import BEAT_DEPENDENCY, schedule_task, unschedule_tasks

NAME = "Resend lost waitlist offer notifications (every 15 minutes)"


def schedule(apps, schema_editor):
    schedule_task(apps, name=NAME, task="events.resend_waitlist_offer_notifications", minute="5,20,35,50")


def unschedule(apps, schema_editor):
    unschedule_tasks(apps, NAME)


class Migration(migrations.Migration):
    dependencies = [
        ("events", "0007_schedule_series_generation"),
        BEAT_DEPENDENCY,
    ]

    operations = [migrations.RunPython(schedule, unschedule)]
