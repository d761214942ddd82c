"""The series' models: `EventSeries` (with its former slugs and followers) and its
`RecurrenceRule`.

`EventSeries` is a named group of events; a recurring one (docs/spec/series-design.md)
adds its rule, template and cursor.

A recurring series is a `RecurrenceRule` plus a DRAFT template event every occurrence is
cloned from. `last_generated_until` is the generation cursor: every occurrence of the
rule up to it has been materialised or excluded (`exdates`, UTC ISO instants).
`rdates` are one-off extra dates (RFC 5545 RDATE, UTC ISO instants) materialised like the
rule's own. A series split "from this date on" points back with `continues`; a renamed
series keeps its old public slugs in `EventSeriesSlug`, so old links redirect.

`RecurrenceRule` is the cadence of a recurring series, stored field by field.

Occurrences keep their wall-clock time in the rule's timezone across daylight-saving
switches ("Mondays 10:00 Europe/Vienna" is 09:00 UTC in winter, 08:00 UTC in summer).
To get there the rule is expanded by python-dateutil on *naive local* datetimes in the
rule's zone, and each local occurrence is then placed in that zone with zoneinfo and
turned into a UTC instant. (dateutil never compares an aware datetime across zones
this way, so no offset can leak into the arithmetic.) A local time that does not
exist on a spring-forward day takes the offset before the switch (zoneinfo's fold=0),
e.g. 02:30 becomes 03:30 summer time; an ambiguous one on a fall-back day is the first.

`rrule_string` is the RFC 5545 text of the rule, recomputed on every save: a
`DTSTART;TZID=<zone>:<local time>` line and an `RRULE:` line whose UNTIL is in UTC
(RFC 5545 requires UTC there when DTSTART carries a TZID), then the series' extra dates
as `RDATE` (with the TZID like DTSTART; one a fall-back hour makes ambiguous in UTC).

Extra dates (`EventSeries.rdates`) are part of the recurrence set (RFC 5545: RRULE ∪
RDATE, minus EXDATE). They live on the series, but `get_occurrences` adds them itself, so
generation, drift, cancellation and every later reader get them without knowing they
exist. As in RFC 5545, UNTIL and COUNT bound the RRULE only, never an RDATE.
"""

from collections.abc import Iterable
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any, Literal

from dateutil import rrule as dateutil_rrule
from django.conf import settings
from django.core.exceptions import ObjectDoesNotExist
from django.core.validators import MinValueValidator
from django.db import models

from common.models import TimeStampedModel
from common.timezones import get_zone, validate_timezone
from events.core.models.organization import Organization
from events.utils.recurrence_validators import (
    validate_generation_window_weeks,
    validate_recurrence_rule,
)

WEEKDAY_CODES = ("MO", "TU", "WE", "TH", "FR", "SA", "SU")
#: Every field that shapes the schedule (a change shifts the occurrences).
SCHEDULE_FIELDS = (
    "frequency",
    "interval",
    "weekdays",
    "monthly_type",
    "day_of_month",
    "nth_weekday",
    "weekday",
    "dtstart",
    "until",
    "count",
    "timezone",
)
#: Bounds given to dateutil are widened by this much, then the UTC instants are filtered
#: exactly: no zone is more than a day away from UTC.
_LOCAL_MARGIN = timedelta(days=1)
DateutilFrequency = Literal[0, 1, 2, 3, 4, 5, 6]
_DATEUTIL_FREQUENCIES: dict[str, DateutilFrequency] = {
    "daily": dateutil_rrule.DAILY,
    "weekly": dateutil_rrule.WEEKLY,
    "monthly": dateutil_rrule.MONTHLY,
    "yearly": dateutil_rrule.YEARLY,
}


class RecurrenceRule(TimeStampedModel):
    class Frequency(models.TextChoices):
        DAILY = "daily"
        WEEKLY = "weekly"
        MONTHLY = "monthly"
        YEARLY = "yearly"

    class MonthlyType(models.TextChoices):
        DAY_OF_MONTH = "day"
        NTH_WEEKDAY = "weekday"

    frequency = models.CharField(max_length=8, choices=Frequency.choices)
    interval = models.PositiveIntegerField(default=1, validators=[MinValueValidator(1)])
    weekdays = models.JSONField(default=list, blank=True, help_text="0 = Monday … 6 = Sunday.")
    monthly_type = models.CharField(
        max_length=8, choices=MonthlyType.choices, null=True, blank=True
    )
    day_of_month = models.PositiveSmallIntegerField(null=True, blank=True)
    nth_weekday = models.SmallIntegerField(null=True, blank=True, help_text="1..4, or -1 = last.")
    weekday = models.PositiveSmallIntegerField(null=True, blank=True, help_text="0 = Monday.")
    dtstart = models.DateTimeField()
    until = models.DateTimeField(null=True, blank=True)
    count = models.PositiveIntegerField(null=True, blank=True)
    timezone = models.CharField(max_length=64, default="UTC", validators=[validate_timezone])
    rrule_string = models.TextField(blank=True, editable=False)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=models.Q(interval__gte=1), name="recurrence_interval_positive"
            ),
            models.CheckConstraint(
                condition=models.Q(until__isnull=True) | models.Q(count__isnull=True),
                name="recurrence_one_end",
            ),
        ]

    if TYPE_CHECKING:
        series: "EventSeries"

    def __str__(self) -> str:
        return self.rrule_string or f"{self.frequency} from {self.dtstart}"

    # -- persistence -------------------------------------------------------------------
    def schedule(self) -> dict[str, Any]:
        """The schedule fields as the validators see them."""
        return {name: getattr(self, name) for name in SCHEDULE_FIELDS}

    def clean(self) -> None:
        """Normalise, then validate: creating a rule and editing one (the service's two
        paths) both end here, so [3, 0, 3] is checked and compared as [0, 3]."""
        if isinstance(self.weekdays, list) and all(isinstance(day, int) for day in self.weekdays):
            self.weekdays = sorted(set(self.weekdays))
        validate_recurrence_rule(self.schedule())

    def save(self, *args: Any, **kwargs: Any) -> None:
        self.weekdays = sorted(set(self.weekdays or []))
        self.rrule_string = self.build_rrule_string()
        update_fields = kwargs.get("update_fields")
        if update_fields is not None:
            kwargs["update_fields"] = {*update_fields, "weekdays", "rrule_string"}
        super().save(*args, **kwargs)

    # -- expansion ---------------------------------------------------------------------
    def to_rrule(self) -> dateutil_rrule.rrule:
        """A dateutil rule over naive wall-clock datetimes in `self.timezone`."""
        options: dict[str, Any] = {
            "dtstart": self._local(self.dtstart),
            "interval": self.interval,
            **self._by_parts(),
        }
        if self.count is not None:
            options["count"] = self.count
        if self.until is not None:
            options["until"] = self._local(self.until)
        return dateutil_rrule.rrule(self._dateutil_frequency(), **options)

    def get_occurrences(
        self, after: datetime, before: datetime, *, rdates: Iterable[datetime] | None = None
    ) -> list[datetime]:
        """The recurrence set strictly between two aware bounds, as sorted aware UTC
        datetimes: the rule's instants and the extra dates (each instant once).

        `rdates` defaults to the series' own (`extra_dates()`); give `()` for the rule
        alone, or other dates to expand a rule that is not saved on its series yet.
        Exdates are not subtracted here: callers treat them differently (generation
        skips them, drift reports an occurrence sitting on one).
        """
        zone = get_zone(self.timezone)
        local_after = self._local(after) - _LOCAL_MARGIN
        local_before = self._local(before) + _LOCAL_MARGIN
        instants = set()
        for local in self.to_rrule().between(local_after, local_before, inc=True):
            instant = local.replace(tzinfo=zone).astimezone(UTC)
            if after < instant < before and (self.until is None or instant <= self.until):
                instants.add(instant)
        extra = self.extra_dates() if rdates is None else rdates
        instants.update(moment.astimezone(UTC) for moment in extra if after < moment < before)
        return sorted(instants)

    def first_occurrence_from(self, moment: datetime) -> datetime | None:
        """The rule's first instant at or after `moment` (extra dates left out), or None
        when the rule ends before. Walks dateutil's expansion lazily, so a rule whose
        next date is years away costs no wide window."""
        zone = get_zone(self.timezone)
        for local in self.to_rrule().xafter(self._local(moment) - _LOCAL_MARGIN, inc=True):
            instant = local.replace(tzinfo=zone).astimezone(UTC)
            if self.until is not None and instant > self.until:
                return None
            if instant >= moment:
                return instant
        return None

    def extra_dates(self) -> list[datetime]:
        """The series' extra dates (RDATE) as UTC instants; none for a rule without series.

        Read through the reverse one-to-one, which is cached when the rule was reached
        from its series (`series.recurrence_rule`, `select_related`), so it costs no query
        on every path that locks or loads the series first. A rule being inserted has
        no series yet unless one was assigned in memory, so no query is spent asking.
        """
        if self._state.adding and "series" not in self._state.fields_cache:
            return []
        try:
            series = self.series
        except ObjectDoesNotExist:
            return []
        return sorted({datetime.fromisoformat(value).astimezone(UTC) for value in series.rdates})

    def _local(self, moment: datetime) -> datetime:
        return moment.astimezone(get_zone(self.timezone)).replace(tzinfo=None)

    def _dateutil_frequency(self) -> DateutilFrequency:
        return _DATEUTIL_FREQUENCIES[str(self.frequency)]

    def _by_parts(self) -> dict[str, Any]:
        """BYDAY / BYMONTHDAY; without them dateutil (like RFC 5545) follows DTSTART."""
        if self.frequency in (self.Frequency.DAILY, self.Frequency.WEEKLY) and self.weekdays:
            return {"byweekday": sorted(set(self.weekdays))}
        if self.frequency != self.Frequency.MONTHLY:
            return {}
        if self.monthly_type == self.MonthlyType.DAY_OF_MONTH:
            return {"bymonthday": self.day_of_month}
        if (
            self.monthly_type == self.MonthlyType.NTH_WEEKDAY
            and self.weekday is not None
            and self.nth_weekday is not None
        ):
            return {"byweekday": dateutil_rrule.weekdays[self.weekday](self.nth_weekday)}
        return {}

    # -- RFC 5545 text -----------------------------------------------------------------
    def build_rrule_string(self) -> str:
        local_start = self._local(self.dtstart)
        dtstart = f"DTSTART;TZID={self.timezone}:{local_start:%Y%m%dT%H%M%S}"
        lines = [dtstart, f"RRULE:{';'.join(self._rrule_parts())}", *self._rdate_lines()]
        return "\n".join(lines)

    def _rdate_lines(self) -> list[str]:
        """RDATE in the rule's zone like DTSTART; an instant its wall-clock time would not
        name again (the second 02:30 of a fall-back night) goes on a UTC RDATE line."""
        zone = get_zone(self.timezone)
        local_values, utc_values = [], []
        for instant in self.extra_dates():
            local = self._local(instant)
            # RFC 5545 reads an ambiguous local time as its first instance (fold 0).
            if local.replace(fold=0, tzinfo=zone).astimezone(UTC) == instant:
                local_values.append(f"{local:%Y%m%dT%H%M%S}")
            else:
                utc_values.append(f"{instant:%Y%m%dT%H%M%SZ}")
        lines = []
        if local_values:
            lines.append(f"RDATE;TZID={self.timezone}:{','.join(local_values)}")
        if utc_values:
            lines.append(f"RDATE:{','.join(utc_values)}")
        return lines

    def _rrule_parts(self) -> list[str]:
        parts = [f"FREQ={str(self.frequency).upper()}"]
        if self.interval != 1:
            parts.append(f"INTERVAL={self.interval}")
        if self.count is not None:
            parts.append(f"COUNT={self.count}")
        if self.until is not None:
            parts.append(f"UNTIL={self.until.astimezone(UTC):%Y%m%dT%H%M%SZ}")
        by = self._by_parts()
        if "bymonthday" in by:
            parts.append(f"BYMONTHDAY={by['bymonthday']}")
        elif self.frequency == self.Frequency.MONTHLY and "byweekday" in by:
            parts.append(f"BYDAY={self.nth_weekday}{WEEKDAY_CODES[self.weekday or 0]}")
        elif "byweekday" in by:
            parts.append(f"BYDAY={','.join(WEEKDAY_CODES[day] for day in by['byweekday'])}")
        return parts


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
