"""Builders for recurring-series tests: a rule, and a series assembled without a first pass."""

import itertools
from datetime import UTC, datetime
from typing import Any

import icalendar
import recurring_ical_events

from events.core.tests.factories import make_org
from events.models import Event, EventSeries, Organization, RecurrenceRule
from events.series import services as recurrence_service

_seq = itertools.count(1)

#: Monday 5 January 2026, 10:00 in Vienna (09:00 UTC, winter time).
MONDAY_10_VIENNA = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)


def utc(year: int, month: int, day: int, hour: int = 0, minute: int = 0) -> datetime:
    return datetime(year, month, day, hour, minute, tzinfo=UTC)


def make_rule(**fields: Any) -> RecurrenceRule:
    fields.setdefault("frequency", RecurrenceRule.Frequency.WEEKLY)
    fields.setdefault("dtstart", MONDAY_10_VIENNA)
    fields.setdefault("timezone", "Europe/Vienna")
    rule = RecurrenceRule(**fields)
    rule.full_clean()
    rule.save()
    return rule


def make_series(
    organization: Organization | None = None,
    *,
    rule: RecurrenceRule | None = None,
    template: dict[str, Any] | None = None,
    **series_fields: Any,
) -> EventSeries:
    """Rule + series + DRAFT template (start = dtstart), no generation pass yet."""
    organization = organization or make_org()
    rule = rule or make_rule()
    n = next(_seq)
    series = EventSeries.objects.create(
        organization=organization,
        name=series_fields.pop("name", f"Series {n}"),
        slug=series_fields.pop("slug", f"series-{n}"),
        recurrence_rule=rule,
        **series_fields,
    )
    fields = {"name": f"Yoga {n}", "slug": f"yoga-{n}", "timezone": rule.timezone}
    fields.update(template or {})
    event = Event.objects.create(
        organization=organization,
        start=rule.dtstart,
        status=Event.Status.DRAFT,
        is_template=True,
        event_series=series,
        **fields,
    )
    series.template_event = event
    series.save(update_fields=["template_event"])
    return series


def template_of(series: EventSeries) -> Event:
    return Event.objects.get(event_series=series, is_template=True)


def rule_of(series: EventSeries) -> RecurrenceRule:
    return RecurrenceRule.objects.get(series=series)


def generate(series: EventSeries, **kwargs: Any) -> list[Event]:
    """A pass on a freshly loaded series (as the task does)."""
    fresh = EventSeries.objects.get(pk=series.pk)
    return recurrence_service.generate_series_events(fresh, **kwargs)


def published_series(organization: Organization | None = None, **fields: Any) -> EventSeries:
    """A series whose occurrences open on creation, after its first generation pass."""
    series = make_series(organization, auto_publish=True, **fields)
    generate(series)
    return series


def series_admin_path(organization: Organization, series: EventSeries, suffix: str = "") -> str:
    """`/organization-admin/{org}/event-series/{id}{suffix}`."""
    return f"/organization-admin/{organization.slug}/event-series/{series.pk}{suffix}"


def occurrences(series: EventSeries) -> list[Event]:
    return list(
        Event.objects.filter(event_series=series, is_template=False).order_by("start", "pk")
    )


def starts(series: EventSeries) -> list[datetime]:
    return [event.start for event in occurrences(series)]


def expand_rule_text(rrule_string: str, after: datetime, before: datetime) -> list[datetime]:
    """What a calendar library (icalendar, recurring-ical-events) makes of an
    `rrule_string`'s DTSTART/RRULE/RDATE lines: the UTC instants between two bounds."""
    text = "\r\n".join(
        [
            "BEGIN:VCALENDAR",
            "VERSION:2.0",
            "PRODID:-//test//EN",
            "BEGIN:VEVENT",
            "UID:probe@test",
            "DTSTAMP:20260101T000000Z",
            *rrule_string.splitlines(),
            "END:VEVENT",
            "END:VCALENDAR",
            "",
        ]
    )
    expanded = recurring_ical_events.of(icalendar.Calendar.from_ical(text)).between(after, before)
    return sorted(component["DTSTART"].dt.astimezone(UTC) for component in expanded)
