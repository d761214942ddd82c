"""The rule and the template of a series, which every series operation needs.

A series without them is a plain grouping of events, not a recurring series: each
operation refuses it with 409 `not_a_recurring_series` instead of failing on None.
"""

from datetime import timedelta

from events.models import Event, EventSeries, RecurrenceRule
from events.series.errors import NotARecurringSeries

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
