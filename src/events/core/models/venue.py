from django.db import models

from common.models import TimeStampedModel
from events.core.models.organization import Organization


class Venue(TimeStampedModel):
    organization = models.ForeignKey(Organization, on_delete=models.CASCADE, related_name="venues")
    name = models.CharField(max_length=150)
    address = models.CharField(max_length=255, blank=True)
    capacity = models.PositiveIntegerField(
        null=True, blank=True, help_text="Seats; empty or 0 means the venue sets no limit."
    )

    class Meta:
        ordering = ["name"]
        constraints = [
            models.UniqueConstraint(fields=["organization", "name"], name="unique_venue_name")
        ]

    def __str__(self) -> str:
        return self.name
