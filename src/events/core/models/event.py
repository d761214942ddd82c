"""The Event: capacity, schedule, visibility, and the five fields of the active waitlist."""

from datetime import timedelta
from typing import Any

from django.core.exceptions import ValidationError
from django.db import models

from common.models import TimeStampedModel
from common.timezones import validate_timezone
from events.core.models.organization import Organization
from events.core.models.venue import Venue
from events.series.models import EventSeries

WAITLIST_WINDOW_MIN = timedelta(hours=1)
WAITLIST_WINDOW_MAX = timedelta(days=7)
DEFAULT_EVENT_LENGTH = timedelta(days=1)
DEFAULT_CHECK_IN_LEAD = timedelta(hours=1)
#: A waitlist party (and an RSVP with its guests) is at most this many seats.
WAITLIST_PARTY_MAX = 10


def capacity_limit(max_attendees: int | None, venue_capacity: int | None) -> int:
    """The smaller of the event's and the venue's limits, ignoring empty/0; 0 = unlimited.

    `Event.effective_capacity`'s rule on bare numbers, for the claim's locked check,
    which reads them in one statement instead of loading the event and its venue.
    """
    positive = [value for value in (max_attendees, venue_capacity) if value]
    return min(positive) if positive else 0


def default_visibility_settings() -> dict[str, bool]:
    return {"show_capacity": True, "show_attendee_count": True}


class Event(TimeStampedModel):
    class Status(models.TextChoices):
        DRAFT = "draft"
        OPEN = "open"
        CLOSED = "closed"
        CANCELLED = "cancelled"

    class Visibility(models.TextChoices):
        PUBLIC = "public"
        UNLISTED = "unlisted"
        PRIVATE = "private"
        MEMBERS_ONLY = "members_only"
        STAFF_ONLY = "staff_only"

    class PartyPolicy(models.TextChoices):
        """When the head's party does not fit: wait for it, or let smaller ones behind fill."""

        STRICT = "strict"
        FILL = "fill"

    class EventType(models.TextChoices):
        PUBLIC = "public"
        PRIVATE = "private"
        MEMBERS_ONLY = "members_only"

    organization = models.ForeignKey(Organization, on_delete=models.CASCADE, related_name="events")
    name = models.CharField(max_length=200)
    slug = models.SlugField(max_length=220)
    description = models.TextField(blank=True)
    cover_image = models.ForeignKey(
        "events.StoredImage", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    status = models.CharField(
        max_length=16, choices=Status.choices, default=Status.DRAFT, db_index=True
    )
    visibility = models.CharField(
        max_length=16, choices=Visibility.choices, default=Visibility.PUBLIC
    )
    event_type = models.CharField(
        max_length=16, choices=EventType.choices, default=EventType.PUBLIC
    )
    start = models.DateTimeField(db_index=True)
    end = models.DateTimeField(blank=True)
    timezone = models.CharField(max_length=64, blank=True, validators=[validate_timezone])
    rsvp_before = models.DateTimeField(null=True, blank=True)
    check_in_starts_at = models.DateTimeField(null=True, blank=True)
    check_in_ends_at = models.DateTimeField(null=True, blank=True)
    max_tickets_per_user = models.PositiveIntegerField(null=True, blank=True)
    requires_ticket = models.BooleanField(default=False)
    max_attendees = models.PositiveIntegerField(default=0, help_text="0 = no cap.")
    venue = models.ForeignKey(
        Venue, on_delete=models.SET_NULL, null=True, blank=True, related_name="events"
    )
    attendee_count = models.PositiveIntegerField(default=0, editable=False)
    visibility_settings = models.JSONField(default=default_visibility_settings, blank=True)

    # The active waitlist (docs/spec/waitlist-design.md). A NULL window keeps the legacy passive queue.
    waitlist_open = models.BooleanField(default=False)
    waitlist_time_window = models.DurationField(null=True, blank=True)
    waitlist_batch_size = models.PositiveIntegerField(default=0)
    waitlist_cutoff_date = models.DateTimeField(null=True, blank=True)
    waitlist_lottery_mode = models.BooleanField(default=False)
    waitlist_max_party_size = models.PositiveSmallIntegerField(default=1)
    waitlist_party_policy = models.CharField(
        max_length=8, choices=PartyPolicy.choices, default=PartyPolicy.STRICT
    )

    # Recurring series (docs/spec/series-design.md).
    event_series = models.ForeignKey(
        EventSeries, on_delete=models.SET_NULL, null=True, blank=True, related_name="events"
    )
    is_template = models.BooleanField(default=False)
    is_modified = models.BooleanField(default=False)
    occurrence_index = models.PositiveIntegerField(null=True, blank=True)
    #: The rule's instant this occurrence was generated for. `start` may be moved by an
    #: organiser; this stays, so a later re-scan of the rule knows the slot is taken.
    scheduled_start = models.DateTimeField(null=True, blank=True, editable=False)

    class Meta:
        ordering = ["start"]
        constraints = [
            models.UniqueConstraint(fields=["organization", "slug"], name="unique_event_slug"),
            models.CheckConstraint(
                condition=models.Q(is_template=False) | models.Q(status="draft"),
                name="event_template_is_draft",
            ),
            models.CheckConstraint(
                condition=models.Q(end__gte=models.F("start")), name="event_end_after_start"
            ),
        ]
        indexes = [models.Index(fields=["status", "start"], name="event_status_start")]

    def __str__(self) -> str:
        return self.name

    def save_organiser_edit(self, changed: list[str]) -> None:
        """Save the fields an organiser changed; an edited occurrence of a series becomes
        `is_modified` (drift detection leaves it alone, docs/spec/series-design.md). `changed` grows by it."""
        if self.event_series_id is not None and not self.is_template:
            self.is_modified = True
            changed.append("is_modified")
        self.save(update_fields=[*changed, "updated_at"])

    # -- derived values -------------------------------------------------------------
    @property
    def effective_capacity(self) -> int:
        """Smallest of max_attendees and venue capacity, ignoring empty/0; 0 = unlimited."""
        venue_capacity = None
        if self.venue_id is not None and self.venue is not None:
            venue_capacity = self.venue.capacity
        return capacity_limit(self.max_attendees, venue_capacity)

    @property
    def show_capacity(self) -> bool:
        return bool((self.visibility_settings or {}).get("show_capacity", True))

    @property
    def show_attendee_count(self) -> bool:
        return bool((self.visibility_settings or {}).get("show_attendee_count", True))

    @property
    def active_waitlist(self) -> bool:
        return self.waitlist_time_window is not None

    # -- defaults and validation -----------------------------------------------------
    def apply_defaults(self) -> None:
        """Fill the derived defaults of docs/spec/domain.md; called on every save so no path skips them."""
        if self.start and not self.end:
            self.end = self.start + DEFAULT_EVENT_LENGTH
        if not self.timezone and self.organization_id:
            self.timezone = self.organization.timezone
        if self.start and self.check_in_starts_at is None:
            self.check_in_starts_at = self.start - DEFAULT_CHECK_IN_LEAD
        if self.end and self.check_in_ends_at is None:
            self.check_in_ends_at = self.end

    def save(self, *args: Any, **kwargs: Any) -> None:
        self.apply_defaults()
        super().save(*args, **kwargs)

    def clean(self) -> None:
        self.apply_defaults()
        errors: dict[str, list[str]] = {}
        self._clean_schedule(errors)
        self._clean_waitlist_config(errors)
        self._clean_venue(errors)
        if errors:
            raise ValidationError(errors)

    def _clean_schedule(self, errors: dict[str, list[str]]) -> None:
        if self.start and self.end and self.end < self.start:
            errors.setdefault("end", []).append("The end must not be before the start.")
        if (
            self.check_in_starts_at
            and self.check_in_ends_at
            and self.check_in_ends_at < self.check_in_starts_at
        ):
            errors.setdefault("check_in_ends_at", []).append("Check-in must end after it starts.")
        if self.is_template and self.status != self.Status.DRAFT:
            errors.setdefault("status", []).append("A series template is always a draft.")

    def _clean_waitlist_config(self, errors: dict[str, list[str]]) -> None:
        """The waitlist design's rules: window 1h..7d; a cutoff needs a window and lies before the start;
        a party is 1..WAITLIST_PARTY_MAX seats."""
        if not 1 <= (self.waitlist_max_party_size or 0) <= WAITLIST_PARTY_MAX:
            errors.setdefault("waitlist_max_party_size", []).append(
                f"The largest party must be between 1 and {WAITLIST_PARTY_MAX} seats."
            )
        window = self.waitlist_time_window
        if window is not None and not (WAITLIST_WINDOW_MIN <= window <= WAITLIST_WINDOW_MAX):
            errors.setdefault("waitlist_time_window", []).append(
                "The waitlist time window must be between 1 hour and 7 days."
            )
        if self.waitlist_cutoff_date is not None:
            if window is None:
                errors.setdefault("waitlist_cutoff_date", []).append(
                    "A waitlist cutoff needs a waitlist time window."
                )
            if self.start and self.waitlist_cutoff_date >= self.start:
                errors.setdefault("waitlist_cutoff_date", []).append(
                    "The waitlist cutoff must be strictly before the event starts."
                )

    def _clean_venue(self, errors: dict[str, list[str]]) -> None:
        if self.venue_id and self.venue and self.venue.organization_id != self.organization_id:
            errors.setdefault("venue", []).append("The venue belongs to another organisation.")
