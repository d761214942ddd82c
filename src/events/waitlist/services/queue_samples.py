"""The queue's length over time, for the organiser's statistics (issue 12 item 8).

Every change of the queue's membership (a join, a leave, a claim or a staff removal
taking an entry away) and every pass that made a batch writes one `WaitlistQueueSample`.
These calls sit on hot paths (a claim holds the Event lock), so a sample is a single
statement: `INSERT ... SELECT` of the count read by the database itself over the
queue's `(event, ...)` index, compiled once per process (ADR 0006); nothing is read into
Python. The caller's transaction holds it: a rolled-back join leaves no sample.
"""

import uuid
from datetime import datetime
from typing import Any

from django.db.models import (
    Count,
    DateTimeField,
    F,
    IntegerField,
    OuterRef,
    QuerySet,
    Subquery,
    Value,
)
from django.db.models.functions import Coalesce

from common.compiled_query import CompiledInsert, Param
from events.models import Event, EventWaitList, WaitlistQueueSample
from events.waitlist.selectors import queue as waitlist_selectors


def _sample_row() -> QuerySet[Any, Any]:
    queued = (
        EventWaitList.objects.filter(event_id=OuterRef("pk"))
        .order_by()
        .values("event_id")
        .annotate(n=Count("pk"))
        .values("n")
    )
    return Event.objects.filter(pk=waitlist_selectors.event_id_param()).values(
        sample_event=F("pk"),
        sample_at=Param("at", DateTimeField()),
        sample_length=Coalesce(Subquery(queued, output_field=IntegerField()), Value(0)),
    )


_SAMPLE = CompiledInsert(
    WaitlistQueueSample,
    _sample_row,
    into={"sample_event": "event_id", "sample_at": "at", "sample_length": "length"},
    prepared_as="queue_sample",
)


def record_queue_length(event_id: uuid.UUID, now: datetime) -> None:
    """Write the event's queue length at `now` (nothing if the event is gone)."""
    _SAMPLE.execute(event_id=event_id, at=now)
