"""Base model every Encore table inherits: UUID key and timestamps."""

import uuid

from django.db import models


class TimeStampedModel(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        abstract = True


class OutboxMessage(TimeStampedModel):
    """A task the broker refused when it was due (see `common.outbox`): kept until the
    beat's `common.flush_outbox` publishes it, so a broker outage delays work, never
    loses it. `args`/`kwargs` are the task's JSON-serialisable arguments."""

    task_name = models.CharField(max_length=200)
    args = models.JSONField(default=list)
    kwargs = models.JSONField(default=dict)
    # Empty: the task's route (CELERY_TASK_ROUTES) decides.
    queue = models.CharField(max_length=64, blank=True)
    attempts = models.PositiveIntegerField(default=0)
    last_error = models.TextField(blank=True)
    sent_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [
            models.Index(
                fields=["created_at"],
                name="outbox_unsent",
                condition=models.Q(sent_at__isnull=True),
            )
        ]

    def __str__(self) -> str:
        return f"{self.task_name} ({'sent' if self.sent_at else 'waiting'})"
