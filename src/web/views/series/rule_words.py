"""A recurrence rule in words: "Every Tuesday and Thursday at 18:00".

Reads the fields of `events.models.RecurrenceRule` (saved or not), the way its
`to_rrule()` reads them, so the sentence describes what the generator produces: a weekly
rule without weekdays follows the weekday of its first date, a monthly rule without a
monthly type the day of the month of its first date, a yearly rule the date of its first
date. Times are the wall-clock time in the rule's zone. Every word goes through gettext;
day and month names are Django's own translations.
"""

from collections.abc import Sequence

from django.utils import formats
from django.utils.dates import MONTHS, WEEKDAYS
from django.utils.translation import gettext, ngettext, pgettext

from common.timezones import get_zone
from events.models import RecurrenceRule


def weekday_name(day: int) -> str:
    return str(WEEKDAYS[day])


def join_words(words: Sequence[str]) -> str:
    """'Tuesday', 'Tuesday and Thursday', 'Monday, Wednesday and Friday'."""
    if len(words) <= 1:
        return "".join(words)
    return gettext("%(first)s and %(last)s") % {
        "first": ", ".join(words[:-1]),
        "last": words[-1],
    }


def ordinal_weekday(nth: int, day: int) -> str:
    """'the second Tuesday', 'the last Friday'."""
    names = {
        1: gettext("the first %(day)s"),
        2: gettext("the second %(day)s"),
        3: gettext("the third %(day)s"),
        4: gettext("the fourth %(day)s"),
        -1: gettext("the last %(day)s"),
    }
    return names.get(nth, names[1]) % {"day": weekday_name(day)}


def describe_rule(rule: RecurrenceRule) -> str:
    """The whole rule: cadence, time, and its end (a date or a number of dates)."""
    local_start = rule.dtstart.astimezone(get_zone(rule.timezone))
    sentence = gettext("%(cadence)s at %(time)s") % {
        "cadence": _cadence(rule, local_start.weekday(), local_start.day, local_start.month),
        "time": local_start.strftime("%H:%M"),
    }
    if rule.count is not None:
        return ngettext("%(rule)s, %(count)d time", "%(rule)s, %(count)d times", rule.count) % {
            "rule": sentence,
            "count": rule.count,
        }
    if rule.until is not None:
        until = rule.until.astimezone(get_zone(rule.timezone))
        # Translators: a Django date format for the last date of a series ("30 June 2027").
        layout = pgettext("series end date", "j F Y")
        return gettext("%(rule)s, until %(date)s") % {
            "rule": sentence,
            "date": formats.date_format(until, layout),
        }
    return sentence


def _cadence(rule: RecurrenceRule, start_weekday: int, start_day: int, start_month: int) -> str:
    interval = int(rule.interval or 1)
    weekdays = sorted(set(rule.weekdays or []))
    days = join_words([weekday_name(day) for day in weekdays])
    if rule.frequency == RecurrenceRule.Frequency.DAILY:
        if weekdays and interval == 1:
            return gettext("Every %(days)s") % {"days": days}
        every = ngettext("Every day", "Every %(n)d days", interval) % {"n": interval}
        return _on_days(every, days) if weekdays else every
    if rule.frequency == RecurrenceRule.Frequency.WEEKLY:
        days = days or weekday_name(start_weekday)
        if interval == 1:
            return gettext("Every %(days)s") % {"days": days}
        every = ngettext("Every week", "Every %(n)d weeks", interval) % {"n": interval}
        return _on_days(every, days)
    if rule.frequency == RecurrenceRule.Frequency.MONTHLY:
        every = ngettext("Every month", "Every %(n)d months", interval) % {"n": interval}
        if rule.monthly_type == RecurrenceRule.MonthlyType.NTH_WEEKDAY:
            on = ordinal_weekday(int(rule.nth_weekday or 1), int(rule.weekday or 0))
            return gettext("%(every)s on %(weekday)s") % {"every": every, "weekday": on}
        day = rule.day_of_month or start_day
        return gettext("%(every)s on day %(day)d") % {"every": every, "day": day}
    every = ngettext("Every year", "Every %(n)d years", interval) % {"n": interval}
    date = gettext("%(day)d %(month)s") % {"day": start_day, "month": MONTHS[start_month]}
    return gettext("%(every)s on %(date)s") % {"every": every, "date": date}


def _on_days(every: str, days: str) -> str:
    return gettext("%(every)s on %(days)s") % {"every": every, "days": days}
