from django.conf import settings
from django.db import models

from common.models import TimeStampedModel
from events.core.models.event import Event


class Invitation(TimeStampedModel):
    """Admits a user to a private event; may let them in past capacity."""

    event = models.ForeignKey(Event, on_delete=models.CASCADE, related_name="invitations")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="invitations"
    )
    overrides_max_attendees = models.BooleanField(default=False)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["event", "user"], name="unique_invitation")]
