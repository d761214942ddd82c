"""The next dates of a rule, before anything is saved: the generator's own expansion.

`RecurrenceRule.get_occurrences` is what `recurrence_service.generation` materialises, so
the preview and the occurrences can never disagree (daylight-saving switches included).
Like a generation pass the preview starts at `max(dtstart, now)`; the window grows until
it holds enough dates or the rule cannot produce more.
"""

from datetime import datetime, timedelta

from events.models import RecurrenceRule

PREVIEW_COUNT = 10
ONE_MICROSECOND = timedelta(microseconds=1)
#: One period of each frequency, generously: the first window holds `count` periods.
_PERIOD = {
    RecurrenceRule.Frequency.DAILY: timedelta(days=1),
    RecurrenceRule.Frequency.WEEKLY: timedelta(weeks=1),
    RecurrenceRule.Frequency.MONTHLY: timedelta(days=31),
    RecurrenceRule.Frequency.YEARLY: timedelta(days=366),
}
#: Far enough for any valid rule (29 February every 4 years, ten times) and no further.
_HORIZON = timedelta(days=366 * 45)


def next_dates(rule: RecurrenceRule, now: datetime, count: int = PREVIEW_COUNT) -> list[datetime]:
    """The first `count` instants (UTC) of `rule` from `max(dtstart, now)` on."""
    after = max(rule.dtstart - ONE_MICROSECOND, now)
    limit = after + _HORIZON
    if rule.until is not None:
        limit = min(limit, rule.until + ONE_MICROSECOND)
    span = _PERIOD[RecurrenceRule.Frequency(rule.frequency)] * int(rule.interval or 1) * count
    while True:
        before = min(after + span, limit)
        found = rule.get_occurrences(after, before)
        if len(found) >= count or before >= limit:
            return found[:count]
        span *= 4
