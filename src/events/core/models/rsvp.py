from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models

from common.models import TimeStampedModel
from events.core.models.event import WAITLIST_PARTY_MAX, Event

#: An RSVP and its guests are one party: at most WAITLIST_PARTY_MAX seats.
RSVP_GUESTS_MAX = WAITLIST_PARTY_MAX - 1


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
    #: People the attendee brings: a YES takes `1 + guests` seats (docs/spec/api.md, second round).
    guests = models.PositiveSmallIntegerField(
        default=0, validators=[MinValueValidator(0), MaxValueValidator(RSVP_GUESTS_MAX)]
    )
    #: When staff checked the attendee in at the door (only a YES can be); as `Ticket`.
    checked_in_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name = "RSVP"
        constraints = [models.UniqueConstraint(fields=["event", "user"], name="unique_event_rsvp")]

    def __str__(self) -> str:
        return f"{self.user} → {self.event}: {self.status}"

    @property
    def seats(self) -> int:
        """Seats this answer takes: the attendee and their guests for a YES, else none."""
        return 1 + self.guests if self.status == self.Status.YES else 0
