"""Bodies of the second-round series routes (docs/spec/api.md "Series, second round").

- `SeriesPatchSchema`: the series' own fields (name, description, slug, switches).
- `OccurrenceDate`: `cancel-occurrence`'s date, a full instant or a local `YYYY-MM-DD`.
- `SeriesDuration`: the length of every occurrence at creation, ISO 8601 or minutes.
- `SeriesTemplateCreateSchema`: the create body's `event`, whose `start` is the rule's
  `dtstart` and may therefore be left out.

A value out of range (a date the database or the rule expansion cannot hold) is the
error type `datetime_out_of_range`, which `common.api` answers with 400 `invalid`, as
docs/spec/api.md "Hardening" asks; a wrong shape stays a 422 with a message naming the forms
accepted.
"""

import re
from datetime import date, datetime, timedelta
from typing import Annotated, Any, cast

from django.core.validators import slug_re
from ninja import Field, Schema
from pydantic import (
    BeforeValidator,
    ConfigDict,
    PlainValidator,
    StrictBool,
    StrictInt,
    TypeAdapter,
    ValidationError,
    WithJsonSchema,
)
from pydantic_core import PydanticCustomError

from common.errors import InvalidInput
from common.http.fields import DATETIME_OUT_OF_RANGE, Instant
from events.core.schemas.event_admin import EARLIEST, LATEST, EventCreateSchema, EventTime
from events.models import EventSeries
from events.utils import recurrence_validators as rv

SERIES_SLUG_MAX = EventSeries._meta.get_field("slug").max_length


# -- occurrence dates ----------------------------------------------------------------------
LOCAL_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


def _in_years(value: date) -> date:
    """Years the rule expansion can work in: it widens a local day by a day on each side
    and converts to UTC, which overflows at the edges of Python's calendar (a 500)."""
    if not EARLIEST <= value.year < LATEST:
        raise PydanticCustomError(
            DATETIME_OUT_OF_RANGE, f"Dates must lie between the years {EARLIEST} and {LATEST}."
        )
    return value


def _date_or_instant(value: Any) -> str:
    if isinstance(value, str) and LOCAL_DATE.fullmatch(value):
        return "local_date"
    if isinstance(value, date) and not isinstance(value, datetime):
        return "local_date"
    return "instant"


_ADAPTERS: dict[str, TypeAdapter[Any]] = {
    "local_date": TypeAdapter(date),
    "instant": TypeAdapter(Instant),
}


def _occurrence_date(value: Any) -> date | datetime:
    """A local date when the value is `YYYY-MM-DD`, else an instant with its offset. The
    error of the form chosen is reported under the field's own name (a tagged union
    would add the tag to it), with its type kept, so an unstorable instant stays a 400."""
    try:
        parsed = _ADAPTERS[_date_or_instant(value)].validate_python(value)
    except ValidationError as exc:
        error = exc.errors()[0]
        raise PydanticCustomError(error["type"], error["msg"]) from None
    _in_years(parsed)
    return cast(date | datetime, parsed)


#: `2026-12-17T18:00:00+01:00` (an instant) or `2026-12-17` (a day in the series' zone).
OccurrenceDate = Annotated[
    date | Instant,
    PlainValidator(_occurrence_date),
    WithJsonSchema(
        {"oneOf": [{"type": "string", "format": "date"}, {"type": "string", "format": "date-time"}]}
    ),
]


# -- durations -----------------------------------------------------------------------------
_ISO_DURATION = re.compile(
    r"P(?:(?P<weeks>\d{1,15})W)?(?:(?P<days>\d{1,15})D)?"
    r"(?:T(?:(?P<hours>\d{1,15})H)?(?:(?P<minutes>\d{1,15})M)?(?:(?P<seconds>\d{1,15})S)?)?"
)
DURATION_FORMS = "ISO 8601 such as 'PT1H30M' or 'P1D', or a whole number of minutes such as 90"
MAX_DURATION = timedelta(days=366)


def _parse_duration(value: Any) -> timedelta:
    """`PT1H30M` or `90` (minutes). Years and months are refused: their length depends on
    the date, an occurrence's length does not."""
    try:
        duration = _duration_of(value)
    except OverflowError:  # more days than a timedelta holds
        duration = None
    if duration is None or not timedelta(0) < duration <= MAX_DURATION:
        raise PydanticCustomError(
            DATETIME_OUT_OF_RANGE, "The duration must be longer than zero and at most 366 days."
        )
    return duration


def _duration_of(value: Any) -> timedelta:
    if isinstance(value, timedelta):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return timedelta(minutes=value)
    if isinstance(value, str) and (match := _ISO_DURATION.fullmatch(value.strip().upper())):
        parts = {name: int(n) for name, n in match.groupdict().items() if n is not None}
        if parts:
            return timedelta(**parts)
    raise PydanticCustomError("duration_format", f"Give the duration as {DURATION_FORMS}.")


SeriesDuration = Annotated[
    timedelta,
    BeforeValidator(_parse_duration),
    WithJsonSchema(
        {
            "oneOf": [
                {"type": "string", "format": "duration", "examples": ["PT1H30M"]},
                {"type": "integer", "minimum": 1, "description": "minutes"},
            ]
        }
    ),
]


class SeriesTemplateCreateSchema(EventCreateSchema):
    """The create body's `event`: `start` may be left out, since it is the rule's
    `dtstart` (a different one is refused by the service)."""

    start: EventTime | None = None  # type: ignore[assignment]


def template_event_data(
    event: SeriesTemplateCreateSchema, dtstart: datetime, duration: timedelta | None
) -> dict[str, Any]:
    """The template's fields, its end derived from `duration`. Without an end or a
    duration the template would get Event's one-day default, and every occurrence would
    last 24 hours: that is refused instead (docs/architecture/recurring-series.md)."""
    data = event.service_data()
    if duration is not None and "end" in data:
        raise InvalidInput({"duration": ["Give either `duration` or `event.end`, not both."]})
    if duration is not None:
        data["end"] = dtstart + duration
    if "end" not in data:
        raise InvalidInput(
            {"duration": [f"Give the length of each occurrence: `duration` ({DURATION_FORMS})."]}
        )
    return data


# -- the series PATCH ----------------------------------------------------------------------
class SeriesPatchSchema(Schema):
    """`{name?, description?, slug?, auto_publish?, generation_window_weeks?}`; only the
    fields sent change."""

    model_config = ConfigDict(extra="forbid")

    name: str | None = Field(None, min_length=1, max_length=150)
    description: str | None = None
    slug: str | None = Field(None, min_length=1, max_length=SERIES_SLUG_MAX)
    auto_publish: StrictBool | None = None
    generation_window_weeks: StrictInt | None = None

    def changes(self) -> dict[str, Any]:
        """The fields sent, values checked (400 `invalid` with every field error)."""
        data = self.model_dump(exclude_unset=True)
        errors: dict[str, list[str]] = {}
        for name in ("name", "description", "slug", "auto_publish", "generation_window_weeks"):
            if name in data and data[name] is None:
                errors[name] = ["This field cannot be cleared."]
        if isinstance(data.get("name"), str):
            data["name"] = data["name"].strip()
            if not data["name"]:
                errors["name"] = ["The name cannot be blank."]
        if isinstance(data.get("slug"), str) and not slug_re.fullmatch(data["slug"]):
            errors["slug"] = ["Letters, digits, hyphens and underscores only."]
        weeks = data.get("generation_window_weeks")
        message = rv.generation_window_weeks_error(weeks) if weeks is not None else None
        if message:
            errors["generation_window_weeks"] = [message]
        if errors:
            raise InvalidInput(errors)
        return data
