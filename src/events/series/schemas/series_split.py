"""Bodies and answers of the extra-date and split routes (docs/spec/api.md "Series, second round").

Shapes and types are checked here (a violation is a 422); values by the services, which
answer 400 `invalid` (or a named code) before anything is written. The split's
`recurrence` takes the rule fields of the recurrence PATCH plus `dtstart`, the anchor
(time of day, phase) the new rule's first date is found from.
"""

from typing import Any, Literal

from ninja import Field, Schema
from pydantic import ConfigDict

from common.errors import InvalidInput
from events.core.schemas.event_admin import EventTime
from events.series.schemas.series import (
    RecurrencePatchFieldsSchema,
    SeriesDetail,
    TemplatePatchSchema,
)


class ExtraDateSchema(Schema):
    model_config = ConfigDict(extra="forbid")

    start: EventTime


class SplitRecurrenceSchema(RecurrencePatchFieldsSchema):
    """The new series' rule changes; `dtstart` (optional) re-anchors it."""

    dtstart: EventTime | None = None


class SplitSchema(Schema):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    from_: EventTime = Field(..., alias="from")
    recurrence: SplitRecurrenceSchema | None = None
    template: TemplatePatchSchema | None = None
    stale: Literal["keep", "cancel"] = "keep"

    def rule_changes(self) -> dict[str, Any]:
        """The rule fields sent; `null` clears `until`, `count` and the by-parts only."""
        if self.recurrence is None:
            return {}
        changes = self.recurrence.model_dump(exclude_unset=True)
        for name in ("frequency", "interval", "timezone", "dtstart"):
            if name in changes and changes[name] is None:
                raise InvalidInput({f"recurrence.{name}": ["This field cannot be cleared."]})
        if changes.get("weekdays", []) is None:
            changes["weekdays"] = []
        return changes

    def template_changes(self) -> dict[str, Any]:
        return self.template.changes() if self.template is not None else {}


class SplitAnswer(Schema):
    old: SeriesDetail
    new: SeriesDetail
