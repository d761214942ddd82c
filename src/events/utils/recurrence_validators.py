"""The rules a recurrence rule and a series' generation window must satisfy.

One set of functions for every write path: `RecurrenceRule.clean()` and
`EventSeries.clean()` call them, and the API schemas call the same ones, so a rule the
API accepts is exactly a rule the model accepts.

Each `*_error` function returns a message or None (usable from Pydantic validators as
well as from Django); `recurrence_rule_errors` checks a whole rule, the fields depending
on each other included, and returns `{field: [messages]}`; `validate_recurrence_rule`
raises Django's `ValidationError` with that map.
"""

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from django.core.exceptions import ValidationError

from common.timezones import is_valid_timezone

FREQUENCIES = ("daily", "weekly", "monthly", "yearly")
MONTHLY_TYPES = ("day", "weekday")  # DAY_OF_MONTH, NTH_WEEKDAY
NTH_WEEKDAYS = (1, 2, 3, 4, -1)  # -1 = the last one of the month
#: Frequencies for which `weekdays` means something (BYDAY filters days / picks week days).
WEEKDAY_FREQUENCIES = ("daily", "weekly")
GENERATION_WINDOW_WEEKS_MIN = 1
GENERATION_WINDOW_WEEKS_MAX = 52
#: The parameters that belong to one monthly type only.
MONTHLY_PARAMETERS = {"day": ("day_of_month",), "weekday": ("nth_weekday", "weekday")}


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def interval_error(interval: Any) -> str | None:
    if not _is_int(interval) or interval < 1:
        return "The interval must be a whole number of at least 1."
    return None


def weekday_error(weekday: Any) -> str | None:
    if not _is_int(weekday) or not 0 <= weekday <= 6:
        return "A weekday is a number from 0 (Monday) to 6 (Sunday)."
    return None


def weekdays_error(weekdays: Any) -> str | None:
    if weekdays is None:
        return None
    if not isinstance(weekdays, list | tuple):
        return "Weekdays must be a list of numbers from 0 (Monday) to 6 (Sunday)."
    for value in weekdays:
        message = weekday_error(value)
        if message:
            return message
    return None


def day_of_month_error(day: Any) -> str | None:
    if not _is_int(day) or not 1 <= day <= 31:
        return "The day of the month must be between 1 and 31."
    return None


def nth_weekday_error(nth: Any) -> str | None:
    if not _is_int(nth) or nth not in NTH_WEEKDAYS:
        return "The week of the month must be 1, 2, 3, 4 or -1 (the last)."
    return None


def timezone_error(name: Any) -> str | None:
    if not isinstance(name, str) or not is_valid_timezone(name):
        return f"'{name}' is not a valid IANA timezone."
    return None


def count_error(count: Any) -> str | None:
    if count is not None and (not _is_int(count) or count < 1):
        return "The count must be a whole number of at least 1."
    return None


def generation_window_weeks_error(weeks: Any) -> str | None:
    if not _is_int(weeks) or not (
        GENERATION_WINDOW_WEEKS_MIN <= weeks <= GENERATION_WINDOW_WEEKS_MAX
    ):
        return (
            f"The generation window must be between {GENERATION_WINDOW_WEEKS_MIN} "
            f"and {GENERATION_WINDOW_WEEKS_MAX} weeks."
        )
    return None


def ends_errors(dtstart: Any, until: Any, count: Any) -> dict[str, list[str]]:
    """At most one end; an `until` lies after the start."""
    errors: dict[str, list[str]] = {}
    if until is not None and count is not None:
        errors["count"] = ["Give either an end date ('until') or a count, not both."]
    message = count_error(count)
    if message:
        errors.setdefault("count", []).append(message)
    if isinstance(until, datetime) and isinstance(dtstart, datetime) and until <= dtstart:
        errors["until"] = ["The end date must be after the start."]
    return errors


def monthly_errors(fields: Mapping[str, Any]) -> dict[str, list[str]]:
    """`day` needs day_of_month 1..31; `weekday` needs nth_weekday and weekday; each
    monthly parameter belongs to its own type, and monthly types to monthly rules."""
    frequency, monthly_type = fields.get("frequency"), fields.get("monthly_type")
    if monthly_type is None:
        return {
            name: ["Only a monthly rule with the matching monthly type uses this."]
            for names in MONTHLY_PARAMETERS.values()
            for name in names
            if fields.get(name) is not None
        }
    if monthly_type not in MONTHLY_TYPES:
        return {"monthly_type": [f"Expected one of {', '.join(MONTHLY_TYPES)}."]}
    if frequency != "monthly":
        return {"monthly_type": ["Only a monthly rule has a monthly type."]}
    errors: dict[str, list[str]] = {}
    checks = {
        "day_of_month": day_of_month_error,
        "nth_weekday": nth_weekday_error,
        "weekday": weekday_error,
    }
    for name in MONTHLY_PARAMETERS[monthly_type]:
        message = checks[name](fields.get(name))
        if message:
            errors[name] = [message]
    for other_type, names in MONTHLY_PARAMETERS.items():
        if other_type == monthly_type:
            continue
        for name in names:
            if fields.get(name) is not None:
                errors[name] = [f"A '{monthly_type}' monthly rule does not use this."]
    return errors


def recurrence_rule_errors(fields: Mapping[str, Any]) -> dict[str, list[str]]:
    """Every problem of a whole rule (keys: the RecurrenceRule field names)."""
    errors: dict[str, list[str]] = {}
    frequency = fields.get("frequency")
    if frequency not in FREQUENCIES:
        errors["frequency"] = [f"Expected one of {', '.join(FREQUENCIES)}."]
    single = {
        "interval": interval_error(fields.get("interval", 1)),
        "weekdays": weekdays_error(fields.get("weekdays")),
        "timezone": timezone_error(fields.get("timezone", "UTC")),
    }
    if fields.get("weekdays") and frequency not in WEEKDAY_FREQUENCIES:
        single["weekdays"] = single["weekdays"] or (
            "Weekdays apply to daily and weekly rules; a monthly rule uses its monthly type."
        )
    for name, message in single.items():
        if message:
            errors[name] = [message]
    if not isinstance(fields.get("dtstart"), datetime):
        errors["dtstart"] = ["The series needs a start date and time."]
    for name, messages in {
        **monthly_errors(fields),
        **ends_errors(fields.get("dtstart"), fields.get("until"), fields.get("count")),
    }.items():
        errors.setdefault(name, []).extend(messages)
    return errors


def validate_recurrence_rule(fields: Mapping[str, Any]) -> None:
    errors = recurrence_rule_errors(fields)
    if errors:
        raise ValidationError(errors)


def validate_generation_window_weeks(weeks: Any) -> None:
    """Django field validator of `EventSeries.generation_window_weeks`."""
    message = generation_window_weeks_error(weeks)
    if message:
        raise ValidationError(message, code="invalid_generation_window")
