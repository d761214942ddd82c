"""Base model every Encore table inherits: UUID key, timestamps, no `None` in a NOT NULL column."""

import uuid
from collections.abc import Collection
from typing import Any

from django.core.exceptions import ValidationError
from django.db import models


class TimeStampedModel(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        abstract = True

    def clean_fields(self, exclude: Collection[str] | None = None) -> None:
        """Django's checks, plus: `None` in a field that may be blank but not NULL is refused.

        Django skips every check of an empty value in a `blank=True` field, `None`
        included, so `{"description": null}` in a PATCH reached the database's NOT NULL
        constraint (a 500). Every service validates with `full_clean()` before saving, so
        this one rule turns such a null into a 400 `invalid` on every model (ADR 0009).
        """
        errors: dict[str, list[str]] = {}
        try:
            super().clean_fields(exclude=exclude)
        except ValidationError as exc:
            errors.update(exc.message_dict)
        for field in self._meta.concrete_fields:
            if exclude and field.name in exclude:
                continue
            if _may_be_blank_not_null(field) and getattr(self, field.attname) is None:
                errors.setdefault(field.name, []).append(str(field.error_messages["null"]))
        if errors:
            raise ValidationError(errors)


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


def _may_be_blank_not_null(field: "models.Field[Any, Any]") -> bool:
    return field.blank and not field.null and field.editable and not field.primary_key
