"""Which occurrence a local date names: `cancel-occurrence` with `YYYY-MM-DD`.

An organiser thinks "the 17th", not "2026-12-17T17:00:00Z". A local date (in the rule's
zone) names the series' one occurrence that day; the candidates are the rule's instants
that day, the extra dates (`rdates`, RFC 5545 RDATE) that day, and the starts of the
occurrences held that day (a moved one included), all compared as UTC instants. Dates
already excluded count as well, so cancelling a date twice answers as for an instant.
Several candidates are 400 `ambiguous_date` (the organiser then gives the instant);
none is 400 `not_an_occurrence`.

The date is resolved from the series row in hand, before `cancel_occurrence` takes the
series lock; the instant it yields is then checked under the lock like any instant, so
a concurrent edit of the extra dates can only turn it into a `not_an_occurrence`.
"""

from datetime import UTC, date, datetime, time, timedelta

from common.timezones import get_zone
from events.models import Event, EventSeries
from events.series.errors import AmbiguousDate, NotAnOccurrence
from events.series.services.series_parts import ONE_MICROSECOND, rule_of


def occurrence_on(series: EventSeries, day: date) -> datetime:
    """The one occurrence instant of `series` on the local `day`; one query."""
    rule = rule_of(series)
    zone = get_zone(rule.timezone)
    first = datetime.combine(day, time.min, tzinfo=zone).astimezone(UTC)
    after = datetime.combine(day + timedelta(days=1), time.min, tzinfo=zone).astimezone(UTC)
    candidates = set(rule.get_occurrences(first - ONE_MICROSECOND, after))
    candidates |= {
        instant
        for instant in (datetime.fromisoformat(v).astimezone(UTC) for v in series.rdates or [])
        if first <= instant < after
    }
    held = Event.objects.filter(
        event_series=series, is_template=False, start__gte=first, start__lt=after
    ).values_list("start", flat=True)
    candidates |= {start.astimezone(UTC) for start in held}
    if not candidates:
        raise NotAnOccurrence(f"The series has no occurrence on {day.isoformat()}.")
    if len(candidates) > 1:
        listed = sorted(instant.isoformat() for instant in candidates)
        raise AmbiguousDate(extra={"occurrences": listed})
    return candidates.pop()
