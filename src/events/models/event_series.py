"""A named group of events. Recurrence (issue 5) adds its rule and generation fields here."""

from django.conf import settings
from django.db import models

from common.models import TimeStampedModel
from events.models.organization import Organization


class EventSeries(TimeStampedModel):
    organization = models.ForeignKey(
        Organization, on_delete=models.CASCADE, related_name="event_series"
    )
    name = models.CharField(max_length=150)
    slug = models.SlugField(max_length=160)
    description = models.TextField(blank=True)

    class Meta:
        verbose_name_plural = "event series"
        ordering = ["name"]
        constraints = [
            models.UniqueConstraint(fields=["organization", "slug"], name="unique_series_slug")
        ]

    def __str__(self) -> str:
        return self.name


class EventSeriesFollow(TimeStampedModel):
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="series_follows"
    )
    event_series = models.ForeignKey(
        EventSeries, on_delete=models.CASCADE, related_name="followers"
    )
    notify_new_events = models.BooleanField(default=True)
    is_archived = models.BooleanField(default=False)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "event_series"], name="unique_series_follow")
        ]
