"""Input types every request schema shares, so each rule about a value lives once (ADR 0009).

`Instant` is the one datetime type of request bodies and queries: an aware datetime whose
UTC offset PostgreSQL can store (±15:59) and whose instant, converted to UTC, is still a
date Python can hold (years 0001–9999). Without it `2026-01-01T00:00:00+20:00` reached
the database (a 500) and `9999-12-31T23:59-01:00` overflowed on `astimezone`. A value
outside either bound is refused with the error type `datetime_out_of_range`, which
`common.api` answers as 400 `invalid` (docs/spec/api.md "Hardening"), not as a 422 schema error.
`src/encore/tests/test_input_types.py` fails for any input datetime declared without it.

It also takes ISO 8601 text only: pydantic reads a number, or a string of digits, as a
Unix time, so `1700000000` or `"7"` would be a date nobody meant (issue 34). Those are
422 `invalid`, like any text that is not a datetime.
"""

import re
from datetime import UTC, datetime, timedelta
from typing import Annotated

from pydantic import AfterValidator, AwareDatetime, BeforeValidator
from pydantic_core import PydanticCustomError

#: PostgreSQL's bound for a `timestamptz` literal's offset.
MAX_UTC_OFFSET = timedelta(hours=15, minutes=59)
DATETIME_OUT_OF_RANGE = "datetime_out_of_range"
#: pydantic error types that are a value out of bounds (400 `invalid`), not a wrong shape.
FIELD_VALUE_ERRORS = frozenset({DATETIME_OUT_OF_RANGE})


#: A number as text: what pydantic would read as seconds since 1970.
_NUMBER = re.compile(r"\s*[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?\s*")


def iso_text_only(value: object) -> object:
    """The value, if it is ISO 8601 text (or already a datetime, from Python callers)."""
    if isinstance(value, datetime):
        return value
    if not isinstance(value, str) or _NUMBER.fullmatch(value):
        raise PydanticCustomError(
            "datetime_parsing", "A datetime is ISO 8601 text, e.g. 2026-12-17T18:00:00+01:00."
        )
    return value


def check_storable(value: datetime) -> datetime:
    """The datetime, if its offset and its UTC instant are ones the system can hold."""
    offset = value.utcoffset()
    if offset is None:  # only `LenientInstant`, after `assume_utc`, lets one through
        return value
    if abs(offset) > MAX_UTC_OFFSET:
        raise PydanticCustomError(
            DATETIME_OUT_OF_RANGE, "The UTC offset must lie within -15:59 and +15:59."
        )
    try:
        value.astimezone(UTC)
    except OverflowError:
        raise PydanticCustomError(
            DATETIME_OUT_OF_RANGE, "The instant must lie within the years 0001 to 9999 in UTC."
        ) from None
    return value


def assume_utc(value: datetime) -> datetime:
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value


#: A datetime with an explicit offset, storable (see the module docstring).
Instant = Annotated[AwareDatetime, BeforeValidator(iso_text_only), AfterValidator(check_storable)]
#: The same for query filters, where a time without an offset is read as UTC.
LenientInstant = Annotated[
    datetime,
    BeforeValidator(iso_text_only),
    AfterValidator(assume_utc),
    AfterValidator(check_storable),
]
