"""A notification type for an offer an organiser revoked (`waitlist_offer_revoked`)."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("notifications", "0006_delivery_retries_for_a_day"),
    ]

    operations = [
        migrations.AlterField(
            model_name="notification",
            name="notification_type",
            field=models.CharField(
                choices=[
                    ("waitlist_spot_available", "Waitlist Spot Available"),
                    ("waitlist_offer_expired", "Waitlist Offer Expired"),
                    ("waitlist_offer_revoked", "Waitlist Offer Revoked"),
                    ("series_events_generated", "Series Events Generated"),
                    ("event_open", "Event Open"),
                    ("event_updated", "Event Updated"),
                    ("event_cancelled", "Event Cancelled"),
                    ("ticket_created", "Ticket Created"),
                    ("ticket_cancelled", "Ticket Cancelled"),
                    ("rsvp_confirmation", "Rsvp Confirmation"),
                ],
                max_length=40,
            ),
        ),
    ]
