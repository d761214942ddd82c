"""The plan of a series change in words, for the organiser to read before applying it.

`recurrence_service.preview_series_change` is what `POST …/event-series/{id}/preview`
answers (docs/spec/api.md "Preview answer"): the dates created, the occurrences moved
with their attendees, and those left off the new cadence with their attendees and queue.
Formatted once here in the series' zone, as the series page's rows are.
"""

from datetime import datetime
from typing import TypedDict

from common.human_time import human_formatter
from events.series.services import ChangePlan


class Moment(TypedDict):
    iso: str
    when: str


class MovedRow(TypedDict):
    before: Moment
    after: Moment
    attendees: int


class StaleRow(TypedDict):
    at: Moment
    attendees: int
    queued: int


class Plan(TypedDict):
    created: list[Moment]
    moved: list[MovedRow]
    stale: list[StaleRow]
    nothing: bool


def planned_rows(plan: ChangePlan, zone_name: str) -> Plan:
    when = human_formatter(zone_name)

    def moment(value: datetime) -> Moment:
        return Moment(iso=value.isoformat(), when=when(value))

    created = [moment(start) for start in plan.created]
    moved = [
        MovedRow(before=moment(m.start_from), after=moment(m.start_to), attendees=m.attendees)
        for m in plan.moved
    ]
    stale = [
        StaleRow(at=moment(s.start), attendees=s.attendees, queued=s.queued) for s in plan.stale
    ]
    return Plan(created=created, moved=moved, stale=stale, nothing=not (created or moved or stale))
