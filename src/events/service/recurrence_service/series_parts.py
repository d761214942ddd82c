"""The rule and the template of a series, which every series operation needs.

A series without them is a plain grouping of events, not a recurring series: each
operation refuses it with 409 `not_a_recurring_series` instead of failing on None.
"""

from datetime import timedelta

from events.models import Event, EventSeries, RecurrenceRule
from events.series_errors import NotARecurringSeries

#: `RecurrenceRule.get_occurrences` has strict bounds: widen by this to include an instant.
ONE_MICROSECOND = timedelta(microseconds=1)


def rule_of(series: EventSeries) -> RecurrenceRule:
    if series.recurrence_rule is None:
        raise NotARecurringSeries()
    return series.recurrence_rule


def template_of(series: EventSeries) -> Event:
    """The series' template; 409 `not_a_recurring_series` when it has none."""
    if series.template_event is None:
        raise NotARecurringSeries()
    return series.template_event


def reload_parts(series: EventSeries) -> None:
    """Read the rule and the template of a just-locked series again (one query).

    On PostgreSQL, a `lock_series` that waited for another writer returns the series row
    as that writer committed it, but the joined rule and template rows as they were when
    the statement began (READ COMMITTED re-checks only the locked row). An operation
    that writes from the rule or the template (a split, an extra date rewriting
    `rrule_string`) reads them again after the lock. (A split also pauses the old
    series, so a generation pass queued behind it stops at the fresh `is_active`.) The
    assignment also points the rule's reverse accessor at this series, so
    `RecurrenceRule.extra_dates` sees the series' rdates as the operation changes them.
    """
    fresh = EventSeries.objects.select_related("recurrence_rule", "template_event").get(
        pk=series.pk
    )
    series.recurrence_rule = fresh.recurrence_rule
    series.template_event = fresh.template_event
