"""`EventRSVP.checked_in_at`: RSVP attendees are checked in at the door like tickets.

A nullable column with no default: portable (ADR 0005) and instant on a large table.
"""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("events", "0009_occurrence_scheduled_start"),
    ]

    operations = [
        migrations.AddField(
            model_name="eventrsvp",
            name="checked_in_at",
            field=models.DateTimeField(blank=True, null=True),
        ),
    ]
