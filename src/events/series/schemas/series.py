"""Bodies and answers of the recurring-series routes (docs/spec/api.md "Recurring series").

Request schemas check shapes and types (a violation is a 422). Values are checked by
`events.utils.recurrence_validators`, the same functions `RecurrenceRule.clean()` and
`EventSeries.clean()` run, so a body this API accepts is a rule the model accepts; a
value error is a 400 `invalid` with field errors, raised before anything is written.
The template PATCH forbids unknown fields: a field outside PROPAGATABLE_FIELDS is a
422 and nothing changes.
"""

import uuid
from datetime import datetime
from typing import Any

from ninja import Field, Schema
from pydantic import ConfigDict, StrictBool, StrictInt

from common.errors import InvalidInput
from events.core.schemas.durations import IsoDuration
from events.core.schemas.event import EventListItem
from events.core.schemas.event_admin import Count, EventTime, VisibilitySettingsSchema
from events.models import Event
from events.series.schemas.series_edit import (
    OccurrenceDate,
    SeriesDuration,
    SeriesTemplateCreateSchema,
    template_event_data,
)
from events.utils import recurrence_validators as rv


def _raise_if(errors: dict[str, list[str]]) -> None:
    if errors:
        raise InvalidInput(errors)


def _window_errors(weeks: int | None) -> dict[str, list[str]]:
    message = rv.generation_window_weeks_error(weeks) if weeks is not None else None
    return {"generation_window_weeks": [message]} if message else {}


class _RuleFieldsSchema(Schema):
    model_config = ConfigDict(extra="forbid")

    interval: StrictInt | None = None
    weekdays: list[StrictInt] | None = None
    monthly_type: str | None = Field(None, description="'day' or 'weekday'")
    day_of_month: StrictInt | None = None
    nth_weekday: StrictInt | None = Field(None, description="1..4 or -1 (the last)")
    weekday: StrictInt | None = None
    until: EventTime | None = None
    count: StrictInt | None = None
    timezone: str | None = Field(None, max_length=64)


class RecurrenceCreateSchema(_RuleFieldsSchema):
    frequency: str = Field(..., description="daily|weekly|monthly|yearly")
    dtstart: EventTime

    def rule_data(self) -> dict[str, Any]:
        """The rule fields sent (defaults left to the model), checked as a whole rule."""
        data = {k: v for k, v in self.model_dump(exclude_unset=True).items() if v is not None}
        checked = {"interval": 1, "timezone": "UTC", **data}
        _raise_if(rv.recurrence_rule_errors(checked))
        return data


class RecurrencePatchFieldsSchema(_RuleFieldsSchema):
    """Any rule field but `dtstart`; `null` clears a nullable one."""

    frequency: str | None = None


class SeriesCreateSchema(Schema):
    model_config = ConfigDict(extra="forbid")

    event: SeriesTemplateCreateSchema
    duration: SeriesDuration | None = Field(
        None, description="Length of every occurrence: ISO 8601 (PT1H30M) or minutes"
    )
    series_name: str = Field(..., min_length=1, max_length=150)
    series_description: str = ""
    recurrence: RecurrenceCreateSchema
    auto_publish: StrictBool = False
    generation_window_weeks: StrictInt = 8

    def check(self) -> dict[str, Any]:
        """The rule data, after every value check (400 with all field errors)."""
        errors = _window_errors(self.generation_window_weeks)
        try:
            rule = self.recurrence.rule_data()
        except InvalidInput as exc:
            errors.update({f"recurrence.{k}": v for k, v in exc.extra["errors"].items()})
            rule = {}
        _raise_if(errors)
        return rule

    def template_data(self) -> dict[str, Any]:
        """The template's fields: start = dtstart, end = dtstart + duration."""
        return template_event_data(self.event, self.recurrence.dtstart, self.duration)


class SeriesRecurrencePatchSchema(Schema):
    model_config = ConfigDict(extra="forbid")

    recurrence: RecurrencePatchFieldsSchema | None = None
    auto_publish: StrictBool | None = None
    generation_window_weeks: StrictInt | None = None

    def rule_changes(self) -> dict[str, Any]:
        _raise_if(_window_errors(self.generation_window_weeks))
        if self.recurrence is None:
            return {}
        changes = self.recurrence.model_dump(exclude_unset=True)
        if changes.get("interval", 1) is None or changes.get("frequency", "x") is None:
            raise InvalidInput({"recurrence": ["frequency and interval cannot be cleared."]})
        if changes.get("timezone", "UTC") is None:
            raise InvalidInput({"timezone": ["The timezone cannot be cleared."]})
        if changes.get("weekdays", []) is None:
            changes["weekdays"] = []
        return changes


class TemplatePatchSchema(Schema):
    """PROPAGATABLE_FIELDS only; anything else is refused by the schema (422)."""

    model_config = ConfigDict(extra="forbid")

    name: str | None = Field(None, min_length=1, max_length=200)
    description: str | None = None
    visibility: Event.Visibility | None = None
    event_type: Event.EventType | None = None
    requires_ticket: StrictBool | None = None
    max_attendees: Count | None = None
    venue: uuid.UUID | None = None
    visibility_settings: VisibilitySettingsSchema | None = None
    waitlist_open: StrictBool | None = None
    waitlist_time_window: IsoDuration | None = None
    waitlist_batch_size: Count | None = None
    waitlist_lottery_mode: StrictBool | None = None

    def changes(self) -> dict[str, Any]:
        data = self.model_dump(exclude_unset=True)
        if isinstance(data.get("visibility_settings"), dict):
            data["visibility_settings"] = {
                k: v for k, v in data["visibility_settings"].items() if v is not None
            }
        return data


class CancelOccurrenceSchema(Schema):
    model_config = ConfigDict(extra="forbid")

    occurrence_date: OccurrenceDate = Field(
        ..., description="The instant with its offset, or a local date YYYY-MM-DD"
    )


class GenerateSchema(Schema):
    model_config = ConfigDict(extra="forbid")

    until: EventTime | None = None


# -- answers -------------------------------------------------------------------------------
class RecurrenceRuleSchema(Schema):
    id: uuid.UUID
    frequency: str
    interval: int
    weekdays: list[int]
    monthly_type: str | None
    day_of_month: int | None
    nth_weekday: int | None
    weekday: int | None
    dtstart: datetime
    until: datetime | None
    count: int | None
    timezone: str
    rrule_string: str


class TemplateRefSchema(Schema):
    id: uuid.UUID
    name: str
    slug: str
    start: datetime
    end: datetime | None


class SeriesDetail(Schema):
    id: uuid.UUID
    name: str
    slug: str
    description: str
    is_active: bool
    auto_publish: bool
    generation_window_weeks: int
    exdates: list[str]
    rdates: list[str]
    continues_id: uuid.UUID | None = Field(None, description="The series this one was split from.")
    last_generated_until: datetime | None
    recurrence_rule: RecurrenceRuleSchema | None
    template_event: TemplateRefSchema | None


class DriftSchema(Schema):
    stale_occurrences: list[uuid.UUID]


class CancelledSchema(Schema):
    cancelled: list[uuid.UUID]


class PublicSeriesSchema(Schema):
    """A series as the public sees it: never its template, only visible occurrences."""

    id: uuid.UUID
    name: str
    slug: str
    description: str
    organization_slug: str
    is_active: bool
    rrule_string: str | None
    occurrences: list[EventListItem]
