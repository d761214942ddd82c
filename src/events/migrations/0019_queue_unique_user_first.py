"""The queue's unique (event, user) becomes (user, event) and the user column loses its
own index: the constraint serves a user's entries too, and the expiry sweep, which
rewrites every rotated member's row (no HOT update: the rotation is indexed), writes one
index entry fewer per member (docs/spec/quality.md b1)."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("events", "0018_claim_rsvp_commit_after_the_lock"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.RemoveConstraint(
            model_name="eventwaitlist",
            name="unique_waitlist_entry",
        ),
        migrations.AlterField(
            model_name="eventwaitlist",
            name="user",
            field=models.ForeignKey(
                db_index=False,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="waitlist_entries",
                to=settings.AUTH_USER_MODEL,
            ),
        ),
        migrations.AddConstraint(
            model_name="eventwaitlist",
            constraint=models.UniqueConstraint(
                fields=("user", "event"), name="unique_waitlist_entry"
            ),
        ),
    ]
