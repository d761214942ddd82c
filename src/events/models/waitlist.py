from django.conf import settings
from django.db import models

from common.models import TimeStampedModel
from events.models.event import Event


class EventWaitList(TimeStampedModel):
    """The queue: one row per (event, user); `created_at` defines FIFO order."""

    event = models.ForeignKey(Event, on_delete=models.CASCADE, related_name="waitlist")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="waitlist_entries"
    )

    class Meta:
        ordering = ["created_at"]
        constraints = [
            models.UniqueConstraint(fields=["event", "user"], name="unique_waitlist_entry")
        ]

    def __str__(self) -> str:
        return f"{self.user} waiting for {self.event}"
