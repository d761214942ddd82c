"""A named group of events; a recurring one (docs/spec/series-design.md) adds its rule, template and cursor.

A recurring series is a `RecurrenceRule` plus a DRAFT template event every occurrence is
cloned from. `last_generated_until` is the generation cursor: every occurrence of the
rule up to it has been materialised or excluded (`exdates`, UTC ISO instants).
`rdates` are one-off extra dates (RFC 5545 RDATE, UTC ISO instants) materialised like the
rule's own. A series split "from this date on" points back with `continues`; a renamed
series keeps its old public slugs in `EventSeriesSlug`, so old links redirect.
"""

from django.conf import settings
from django.db import models

from common.models import TimeStampedModel
from events.models.organization import Organization
from events.models.recurrence_rule import RecurrenceRule
from events.utils.recurrence_validators import validate_generation_window_weeks

DEFAULT_GENERATION_WINDOW_WEEKS = 8


class EventSeries(TimeStampedModel):
    organization = models.ForeignKey(
        Organization, on_delete=models.CASCADE, related_name="event_series"
    )
    name = models.CharField(max_length=150)
    slug = models.SlugField(max_length=160)
    description = models.TextField(blank=True)

    # Recurrence (docs/spec/series-design.md); all empty on a plain, hand-assembled series.
    template_event = models.OneToOneField(
        "events.Event",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="template_of_series",
    )
    recurrence_rule = models.OneToOneField(
        RecurrenceRule, on_delete=models.PROTECT, null=True, blank=True, related_name="series"
    )
    exdates = models.JSONField(
        default=list, blank=True, help_text="UTC ISO instants excluded or cancelled."
    )
    rdates = models.JSONField(
        default=list, blank=True, help_text="UTC ISO instants added to the rule (RDATE)."
    )
    continues = models.ForeignKey(
        "self",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="continued_by",
        help_text="The series this one took over from (a split).",
    )
    is_active = models.BooleanField(default=True, help_text="False pauses generation.")
    auto_publish = models.BooleanField(
        default=False, help_text="Occurrences are created open instead of draft."
    )
    generation_window_weeks = models.PositiveSmallIntegerField(
        default=DEFAULT_GENERATION_WINDOW_WEEKS, validators=[validate_generation_window_weeks]
    )
    last_generated_until = models.DateTimeField(null=True, blank=True, editable=False)

    class Meta:
        verbose_name_plural = "event series"
        ordering = ["name"]
        constraints = [
            models.UniqueConstraint(fields=["organization", "slug"], name="unique_series_slug")
        ]

    def __str__(self) -> str:
        return self.name


class EventSeriesSlug(TimeStampedModel):
    """A slug a series had before a rename: its public URL redirects to the current one."""

    organization = models.ForeignKey(
        Organization, on_delete=models.CASCADE, related_name="former_series_slugs"
    )
    series = models.ForeignKey(EventSeries, on_delete=models.CASCADE, related_name="former_slugs")
    slug = models.SlugField(max_length=160)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["organization", "slug"], name="unique_former_series_slug"
            )
        ]

    def __str__(self) -> str:
        return self.slug


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
