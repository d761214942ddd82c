from django.conf import settings
from django.db import models

from common.models import TimeStampedModel
from events.models.event import Event


class EventRSVP(TimeStampedModel):
    class Status(models.TextChoices):
        YES = "yes"
        NO = "no"
        MAYBE = "maybe"

    event = models.ForeignKey(Event, on_delete=models.CASCADE, related_name="rsvps")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="rsvps"
    )
    status = models.CharField(max_length=8, choices=Status.choices)
    #: When staff checked the attendee in at the door (only a YES can be); as `Ticket`.
    checked_in_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name = "RSVP"
        constraints = [models.UniqueConstraint(fields=["event", "user"], name="unique_event_rsvp")]

    def __str__(self) -> str:
        return f"{self.user} → {self.event}: {self.status}"
