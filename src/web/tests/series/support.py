"""Builders for the series page tests: a recurring series with dates ahead."""

from datetime import UTC, datetime, timedelta
from typing import Any

from django.test import Client
from django.utils import timezone

from events.models import EventSeries, Organization
from events.series.tests.recurrence_builders import generate, make_rule, make_series


def next_weekday_at(weekday: int, hour: int, weeks: int = 1) -> datetime:
    """A coming `weekday` (0 = Monday) at `hour`:00 UTC, `weeks` weeks or so from now."""
    now = timezone.now().astimezone(UTC).replace(hour=hour, minute=0, second=0, microsecond=0)
    days = (weekday - now.weekday()) % 7 + 7 * (weeks - 1)
    return now + timedelta(days=days or 7)


def weekly_series(
    organization: Organization,
    *,
    weekdays: list[int] | None = None,
    generated: bool = True,
    **fields: Any,
) -> EventSeries:
    """Weekly on Tuesdays 18:00 UTC, published automatically, four weeks ahead."""
    rule = make_rule(dtstart=next_weekday_at(1, 18), timezone="UTC", weekdays=weekdays or [1])
    fields.setdefault("auto_publish", True)
    fields.setdefault("generation_window_weeks", 4)
    series = make_series(organization, rule=rule, **fields)
    if generated:
        generate(series)
    return EventSeries.objects.get(pk=series.pk)


def client_of(user: Any) -> Client:
    """A test client signed in as `user`."""
    client = Client()
    client.force_login(user)
    return client


def manage_url(series: EventSeries, action: str = "") -> str:
    return f"/manage/series/{series.pk}" + (f"/{action}" if action else "")
