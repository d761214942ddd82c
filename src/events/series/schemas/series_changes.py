"""Bodies and answers of a series change: the recurrence PATCH and its preview.

Both routes take one body, so a preview is asked exactly what the PATCH would be told.
`recurrence.dtstart` moves the time of day or the anchor date, `duration` (ISO 8601 or
an integer of minutes) the length of every occurrence, and `stale` says what happens to
occurrences whose date leaves the rule: `keep` (default) or `cancel`.
"""

import uuid
from datetime import datetime
from typing import Any, Literal

from ninja import Field, Schema
from pydantic import ConfigDict

from common.errors import InvalidInput
from events.core.schemas.durations import MinutesOrIsoDuration
from events.core.schemas.event_admin import EventTime
from events.series.schemas.series import (
    RecurrencePatchFieldsSchema,
    SeriesDetail,
    SeriesRecurrencePatchSchema,
)
from events.series.services import SeriesChange


class RecurrenceChangeFieldsSchema(RecurrencePatchFieldsSchema):
    """Any rule field, `dtstart` included (it cannot be cleared)."""

    dtstart: EventTime | None = None


class SeriesChangeSchema(SeriesRecurrencePatchSchema):
    """`{recurrence?, duration?, stale?, auto_publish?, generation_window_weeks?}`."""

    recurrence: RecurrenceChangeFieldsSchema | None = None
    duration: MinutesOrIsoDuration | None = Field(
        None, description="ISO 8601 (PT1H30M) or an integer of minutes"
    )
    stale: Literal["keep", "cancel"] = "keep"

    def change(self) -> SeriesChange:
        """The service's view of the body (400 with field errors for refused values)."""
        changes: dict[str, Any] = self.rule_changes()
        if "dtstart" in changes and changes["dtstart"] is None:
            raise InvalidInput({"recurrence.dtstart": ["The dtstart cannot be cleared."]})
        if "duration" in self.model_fields_set and self.duration is None:
            raise InvalidInput({"duration": ["The duration cannot be cleared."]})
        return SeriesChange(
            rule_changes=changes,
            duration=self.duration,
            stale=self.stale,
            auto_publish=self.auto_publish,
            generation_window_weeks=self.generation_window_weeks,
        )


# -- answers -------------------------------------------------------------------------------
class LastChangeSchema(Schema):
    created: list[uuid.UUID]
    moved: list[uuid.UUID]
    cancelled: list[uuid.UUID]


class SeriesChangeDetail(SeriesDetail):
    """The series detail after a change, with what the change did."""

    last_change: LastChangeSchema


class MovedOccurrenceSchema(Schema):
    model_config = ConfigDict(populate_by_name=True)

    event_id: uuid.UUID
    start_from: datetime = Field(..., alias="from")
    start_to: datetime = Field(..., alias="to")
    end: datetime = Field(..., description="the end after the move")
    attendees: int


class StaleOccurrenceSchema(Schema):
    event_id: uuid.UUID
    start: datetime
    attendees: int
    queued: int = Field(..., description="members on its waitlist")


class SeriesPreviewSchema(Schema):
    created: list[datetime]
    moved: list[MovedOccurrenceSchema]
    stale: list[StaleOccurrenceSchema]
