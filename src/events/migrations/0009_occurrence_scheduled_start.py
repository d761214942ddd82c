"""`Event.scheduled_start`: the rule instant an occurrence was generated for.

Existing occurrences take their current start (an occurrence moved before this
migration cannot be told apart: its slot is taken where it is now).
"""

from django.db import migrations, models


def backfill(apps, schema_editor):
    Event = apps.get_model("events", "Event")
    Event.objects.filter(event_series__isnull=False, is_template=False).update(
        scheduled_start=models.F("start")
    )


class Migration(migrations.Migration):
    dependencies = [
        ("events", "0008_schedule_offer_notification_resend"),
    ]

    operations = [
        migrations.AddField(
            model_name="event",
            name="scheduled_start",
            field=models.DateTimeField(blank=True, editable=False, null=True),
        ),
        migrations.RunPython(backfill, migrations.RunPython.noop),
    ]
