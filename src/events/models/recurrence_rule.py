"""The path docs/spec/series-design.md names for the recurrence rule; the model lives in
`events.series.models` (the series feature's package) and is re-exported here."""

from events.series.models import SCHEDULE_FIELDS, WEEKDAY_CODES, RecurrenceRule

__all__ = ["SCHEDULE_FIELDS", "WEEKDAY_CODES", "RecurrenceRule"]
