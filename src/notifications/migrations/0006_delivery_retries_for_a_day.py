"""Deliveries are retried for a day (ADR 0036): a failed row records when it is due again,
and the re-dispatch job runs every minute. Rows failed transiently before this change are
due at once; a failed row without a due time is given up."""

from django.db import migrations, models
from django.db.models import Q
from django.utils import timezone

from common.beat_schedules import BEAT_DEPENDENCY, schedule_task, unschedule_tasks

OLD_NAME = "Re-dispatch stranded and failed time-critical deliveries (every 5 minutes)"
NAME = "Re-dispatch stranded deliveries and those due again (every minute)"
TASK = "notifications.redispatch_stranded_deliveries"


def forward(apps, schema_editor):
    delivery = apps.get_model("notifications", "NotificationDelivery")
    delivery.objects.filter(status="failed", transient_failure=True).update(
        next_attempt_at=timezone.now()
    )
    unschedule_tasks(apps, OLD_NAME)
    schedule_task(apps, name=NAME, task=TASK, minute="*")


def backward(apps, schema_editor):
    unschedule_tasks(apps, NAME)
    schedule_task(apps, name=OLD_NAME, task=TASK, minute="*/5")


class Migration(migrations.Migration):
    dependencies = [
        ("notifications", "0005_redispatch_every_five_minutes"),
        BEAT_DEPENDENCY,
    ]

    operations = [
        migrations.AddField(
            model_name="notificationdelivery",
            name="next_attempt_at",
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.AddIndex(
            model_name="notificationdelivery",
            index=models.Index(
                condition=Q(("next_attempt_at__isnull", False), ("status", "failed")),
                fields=["next_attempt_at"],
                name="delivery_due_again",
            ),
        ),
        migrations.RunPython(forward, backward),
    ]
