"""Indexes only: the queue's selection order in one index, and the waitlist tables' diet.

1. `waitlist_selection_order` now follows the whole selection order. The old key (event,
   last_offer_expired_at, created_at, id) sorts NULLs last, so it served only the
   never-rotated range: a batch short of that range needed a second query for rotated
   members, and any `ORDER BY ... NULLS FIRST` sorted the whole queue. The new key
   starts with `last_offer_expired_at IS NOT NULL`, so never-rotated members (FIFO) then
   rotated ones (by expiry) come off one index scan, on PostgreSQL and SQLite alike.
2. The hourly sweep updates every lapsed offer and every member it rotates, and a row
   update writes an entry into every index of its table (any indexed column changes, so
   no HOT update). Indexes no query needs go: the single-column ones on the offers'
   status, expires_at, batch_id, created_at and event (the composite indexes lead with
   the event), and the queue's created_at and event (same). The offers' seat and expiry
   lookups become partial indexes on PENDING rows, which an expiring offer leaves
   without a new entry. No column, constraint or behaviour changes.
"""

import django.db.models.deletion
from django.db import migrations, models

PENDING = models.Q(("status", "pending"))


class Migration(migrations.Migration):
    dependencies = [
        ("events", "0004_schedule_waitlist_tasks"),
    ]

    operations = [
        migrations.RemoveIndex(
            model_name="eventwaitlist",
            name="waitlist_selection_order",
        ),
        migrations.AddIndex(
            model_name="eventwaitlist",
            index=models.Index(
                models.F("event"),
                models.ExpressionWrapper(
                    models.Q(("last_offer_expired_at__isnull", False)),
                    output_field=models.BooleanField(),
                ),
                models.F("last_offer_expired_at"),
                models.F("created_at"),
                models.F("id"),
                name="waitlist_selection_order",
            ),
        ),
        migrations.AlterField(
            model_name="eventwaitlist",
            name="created_at",
            field=models.DateTimeField(auto_now_add=True),
        ),
        migrations.AlterField(
            model_name="eventwaitlist",
            name="event",
            field=models.ForeignKey(
                db_index=False,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="waitlist",
                to="events.event",
            ),
        ),
        migrations.RemoveIndex(
            model_name="waitlistoffer",
            name="offer_held_seats",
        ),
        migrations.AlterField(
            model_name="waitlistoffer",
            name="batch_id",
            field=models.UUIDField(),
        ),
        migrations.AlterField(
            model_name="waitlistoffer",
            name="created_at",
            field=models.DateTimeField(auto_now_add=True),
        ),
        migrations.AlterField(
            model_name="waitlistoffer",
            name="event",
            field=models.ForeignKey(
                db_index=False,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="waitlist_offers",
                to="events.event",
            ),
        ),
        migrations.AlterField(
            model_name="waitlistoffer",
            name="expires_at",
            field=models.DateTimeField(),
        ),
        migrations.AlterField(
            model_name="waitlistoffer",
            name="status",
            field=models.CharField(
                choices=[
                    ("pending", "Pending"),
                    ("claimed", "Claimed"),
                    ("expired", "Expired"),
                    ("revoked", "Revoked"),
                ],
                default="pending",
                max_length=16,
            ),
        ),
        migrations.AddIndex(
            model_name="waitlistoffer",
            index=models.Index(
                condition=PENDING,
                fields=["event", "is_cutoff_batch", "expires_at"],
                name="offer_held_seats",
            ),
        ),
        migrations.AddIndex(
            model_name="waitlistoffer",
            index=models.Index(
                condition=PENDING, fields=["expires_at"], name="offer_pending_expiry"
            ),
        ),
    ]
