"""Durations in every body as docs/spec/api.md writes them: compact ISO 8601 (`PT2H`, `P7D`).

Without this, the router's JSON encoder (Django's) would write `P0DT02H00M00S` for the
same value; input accepts either form.
"""

from datetime import timedelta
from typing import Annotated

from pydantic import BeforeValidator, PlainSerializer, WithJsonSchema


def _iso_duration(value: timedelta) -> str:
    """`PT2H`, `P7D`, `P400DT1H30M`: days at most, never years or months.

    Services receive a PATCH body's durations as this text (`model_dump`) and Django's
    `parse_duration` reads them back; pydantic's own form switches to years from 365
    days on (`P1Y35D`), which Django cannot parse, and that was a 500.
    """
    sign = "-" if value < timedelta(0) else ""
    value = abs(value)
    hours, rest = divmod(value.seconds, 3600)
    minutes, seconds = divmod(rest, 60)
    time = "".join(f"{n}{unit}" for n, unit in ((hours, "H"), (minutes, "M")) if n)
    if seconds or value.microseconds:
        time += f"{seconds}.{value.microseconds:06d}".rstrip("0").rstrip(".") + "S"
    date = f"{value.days}D" if value.days else ""
    if not date and not time:
        return "PT0S"
    return f"{sign}P{date}{'T' + time if time else ''}"


#: One JSON schema for input and output, so a component holding it (the waitlist
#: settings, read and written) is the same in both directions.
IsoDuration = Annotated[
    timedelta,
    PlainSerializer(_iso_duration, return_type=str),
    WithJsonSchema({"type": "string", "format": "duration", "examples": ["PT2H"]}),
]


def _minutes_or_iso(value: object) -> object:
    """An integer is a number of minutes; text must be ISO 8601 (`PT1H30M`). Anything
    else (`"1h"`, `90.5`, `true`) is refused with the two accepted forms named, instead
    of pydantic's own reading (an integer as seconds, `"01:30:00"` as a clock)."""
    if isinstance(value, bool):
        raise ValueError(DURATION_FORMS)
    if isinstance(value, int):
        if abs(value) > _MINUTES_MAX:
            raise ValueError(DURATION_FORMS)
        return timedelta(minutes=value)
    if isinstance(value, str) and value.lstrip("+-").upper().startswith("P"):
        return value
    if isinstance(value, timedelta):
        return value
    raise ValueError(DURATION_FORMS)


#: Far beyond any event; keeps `timedelta(minutes=...)` from overflowing (a 500).
_MINUTES_MAX = 10**7
DURATION_FORMS = "Give the duration as ISO 8601 (e.g. PT1H30M) or as a number of minutes (90)."

#: A length of time as an organiser types it: ISO 8601 text or an integer of minutes.
MinutesOrIsoDuration = Annotated[
    IsoDuration,
    BeforeValidator(_minutes_or_iso),
    WithJsonSchema(
        {
            "oneOf": [
                {"type": "string", "format": "duration"},
                {"type": "integer", "description": "minutes"},
            ],
            "examples": ["PT1H30M", 90],
        }
    ),
]
